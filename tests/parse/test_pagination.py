"""Paginated articles: continuation links recognised, pages joined in order, next-article links ignored."""

from __future__ import annotations

import lxml.html
import pytest

from wikihowqa.parse import collect_pages, continuation_urls, join_pages, parse_html
from wikihowqa.parse.pagination import detect, is_continuation, page_number

BASE = "https://breadcraft.example/guides/sourdough-basics"
PAGES = {
    BASE: "paginated_p1.html",
    f"{BASE}?page=2": "paginated_p2.html",
    f"{BASE}?page=3": "paginated_p3.html",
}


def links(html: str, url: str):
    return detect(lxml.html.document_fromstring(html), url)


def test_first_page_names_all_later_pages(fixture_bytes):
    page = parse_html(fixture_bytes("paginated_p1.html"), BASE)
    assert page.pagination.next_url == f"{BASE}?page=2"
    assert continuation_urls(page) == [f"{BASE}?page=2", f"{BASE}?page=3"]
    assert "paginated" in page.flags


def test_last_page_has_no_continuation(fixture_bytes):
    page = parse_html(fixture_bytes("paginated_p3.html"), f"{BASE}?page=3")
    assert continuation_urls(page) == [] and page.pagination.page_number == 3


def test_view_all_link_is_preferred(fixture_bytes):
    page = parse_html(fixture_bytes("paginated_viewall_p1.html"), BASE)
    assert continuation_urls(page) == [f"{BASE}?view=all"]


def test_pages_are_fetched_and_joined_in_reading_order(fixture_bytes):
    fetched = []

    def fetch(url):
        fetched.append(url)
        return parse_html(fixture_bytes(PAGES[url]), url)

    whole = collect_pages(parse_html(fixture_bytes("paginated_p1.html"), BASE), fetch)
    assert fetched == [f"{BASE}?page=2", f"{BASE}?page=3"]
    assert whole.pages == tuple(PAGES)
    first, second, third = (whole.text.index(s) for s in ("wild yeast", "Fold the dough", "covered pot"))
    assert first < second < third
    assert whole.text.count("Sourdough Basics") <= 1  # the headline repeated on every page is kept once
    assert "pages_joined" in whole.flags
    assert all(whole.text[s.start : s.end] == s.text for s in whole.spans)


def test_a_view_all_page_replaces_the_pages(fixture_bytes):
    def fetch(url):
        assert url == f"{BASE}?view=all"
        return parse_html(fixture_bytes("paginated_all.html"), url)

    whole = collect_pages(parse_html(fixture_bytes("paginated_viewall_p1.html"), BASE), fetch)
    assert "wild yeast" in whole.text and "covered pot" in whole.text
    assert whole.pages == (BASE, f"{BASE}?view=all")


def test_a_missing_continuation_leaves_the_page_flagged(fixture_bytes):
    first = parse_html(fixture_bytes("paginated_p1.html"), BASE)
    result = collect_pages(first, lambda url: None)
    assert result.text == first.text and "paginated" in result.flags and "pages_joined" not in result.flags


def test_join_skips_rejected_pages(fixture_bytes):
    one = parse_html(fixture_bytes("paginated_p1.html"), BASE)
    bad = parse_html(b"", f"{BASE}?page=2")
    assert join_pages([one, bad]).text == one.text


def test_rel_next_to_the_next_blog_post_is_not_a_continuation():
    html = """<html><head><link rel="next" href="/2019/05/another-post/" title="Another post"></head>
    <body><article><p>text</p></article><a rel="next" href="/2019/05/another-post/">Next post »</a>
    </body></html>"""
    assert not links(html, "https://blog.example/2019/05/first-post/").paginated


def test_next_link_to_another_site_is_ignored():
    html = '<html><body><a href="https://other.example/story?page=2">Next page</a></body></html>'
    assert not links(html, "https://news.example/story").paginated


@pytest.mark.parametrize(
    ("current", "candidate"),
    [
        ("https://a.example/story", "https://a.example/story?page=2"),
        ("https://a.example/story?page=2", "https://a.example/story?page=3"),
        ("https://a.example/story/", "https://a.example/story/2/"),
        ("https://a.example/story", "https://www.a.example/story/page/2"),
        ("https://a.example/story.html", "https://a.example/story-2.html"),
        ("https://a.example/list?id=7", "https://a.example/list?id=7&p=2"),
    ],
)
def test_urls_with_a_later_page_number_are_continuations(current, candidate):
    assert is_continuation(current, candidate)


@pytest.mark.parametrize(
    ("current", "candidate"),
    [
        ("https://a.example/story?page=3", "https://a.example/story?page=2"),
        ("https://a.example/story", "https://a.example/other-story?page=2"),
        ("https://a.example/list?id=7", "https://a.example/list?id=8&p=2"),
        ("https://a.example/2019/05/first", "https://a.example/2019/05/second"),
    ],
)
def test_other_urls_are_not(current, candidate):
    assert not is_continuation(current, candidate)


def test_relative_links_and_base_href_resolve_against_the_original_url():
    html = '<html><head><base href="https://cdn.example/mag/"></head><body><a href="tips?page=2">Next</a>'
    assert not links(html, "https://mag.example/tips").paginated  # the base points off-site
    html = '<html><body><a href="?page=2">next ›</a></body></html>'
    assert links(html, "https://mag.example/tips").next_url == "https://mag.example/tips?page=2"


def test_page_number_reads_query_and_path_forms():
    assert page_number("https://a.example/x?page=4")[1] == 4
    assert page_number("https://a.example/x/page/5/")[1] == 5
    assert page_number("https://a.example/x")[1] is None


@pytest.mark.parametrize("href", ["http://[oops/", "https://[::1/?page=2", "//[bad"])
def test_a_malformed_link_is_skipped_never_the_page(href):
    body = "<p>" + "Knead the dough for ten minutes until it is smooth. " * 8 + "</p>"
    link = f"<a rel='next' href='{href}'>Next</a>"
    html = f"<html><body><article><h1>Dough</h1>{body}{link}</article></body></html>"
    page = parse_html(html.encode(), f"{BASE}?page=1")
    assert page.ok and len(page.text.split()) >= 80 and page.pagination.next_url is None


def test_a_malformed_base_href_falls_back_to_the_page_url():
    html = "<html><head><base href='http://[oops/'></head><body><a href='?page=2'>Next</a></body></html>"
    assert links(html, BASE).next_url == f"{BASE}?page=2"
