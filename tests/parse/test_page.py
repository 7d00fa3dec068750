"""parse_html on real-world page shapes: articles with comments, tables, lists, encodings, junk input."""

from __future__ import annotations

import gzip

import pytest

from wikihowqa.parse import ParseSettings, parse_html
from wikihowqa.parse.page import EMPTY_BODY, EMPTY_TEXT, NON_HTML, TOO_DEEP, TOO_LARGE

BLOG = "https://homehacks.example/descale-kettle/"


def test_article_text_keeps_the_body_and_drops_comments_related_share_cookie_and_newsletter(fixture_bytes):
    page = parse_html(fixture_bytes("blog_with_comments.html"), BLOG)
    assert page.ok and page.title == "How to Descale a Kettle With Citric Acid"
    assert "Hard water leaves a chalky crust" in page.text
    assert "Fill the kettle halfway" in page.text and "overnight before rinsing" in page.text
    for junk in (
        "worked brilliantly",
        "lemon juice",
        "Leave a Reply",
        "How to Clean a Coffee Maker",
        "weekly cleaning tips",
        "We use cookies",
        "Twitter",
        "Popular posts",
        "All rights reserved",
    ):
        assert junk not in page.text and junk not in page.markdown
    assert page.comments_removed and "comments_removed" in page.flags
    assert {"cookie", "related", "share", "newsletter"} <= set(page.removed)


def test_comment_section_opened_only_by_a_heading_is_removed(fixture_bytes):
    page = parse_html(fixture_bytes("heading_comments.html"), "https://orchids.example/repot")
    assert "fresh bark every two years" in page.text and "direct sun for a month" in page.text
    assert "bloomed again" not in page.text and "terracotta" not in page.text
    assert page.comments_removed


def test_markdown_shows_a_table_as_a_table_and_lists_as_lists(fixture_bytes):
    page = parse_html(fixture_bytes("table_article.html"), "https://trailnotes.example/tents")
    md = page.markdown.splitlines()
    assert "| Design | Typical weight | Best for |" in [line.strip() for line in md]
    assert any(set(line.replace("|", "").strip()) == {"-"} for line in md)
    assert "| Trekking-pole shelter | 0.7 kg | Ultralight hikers who carry poles anyway |" in [
        line.strip() for line in md
    ]
    assert "- Lie down inside with your sleeping mat to check the length." in md
    assert "## Checklist before you buy" in md
    assert "Dome | 1.8 kg | Exposed, windy campsites" in page.text.splitlines()
    assert [b.kind for b in page.blocks].count("row") == 4


def test_ordered_steps_become_a_numbered_markdown_list(fixture_bytes):
    page = parse_html(fixture_bytes("blog_with_comments.html"), BLOG)
    assert (
        "2. Switch it off, stir in the citric acid and wait fifteen minutes while the scale fizzes away."
        in page.markdown
    )


def test_passages_carry_their_position_and_are_slices_of_the_text(fixture_bytes):
    page = parse_html(
        fixture_bytes("table_article.html"),
        "https://trailnotes.example/tents",
        settings=ParseSettings(max_words=40),
    )
    assert len(page.passages) > 1
    for i, span in enumerate(page.spans):
        assert span.position == i and page.text[span.start : span.end] == span.text and span.words <= 40


def test_windows_1252_page_declared_only_in_the_header():
    html = (
        "<html><body><article><p>Le café crème coûte 3 € — « très bon » dit-il, à Noël comme à Pâques, "
        "chaque année.</p></article></body></html>"
    )
    page = parse_html(
        html.encode("cp1252"), "https://cafe.example/", {"Content-Type": "text/html; charset=windows-1252"}
    )
    assert "Le café crème coûte 3 € — « très bon »" in page.text and page.encoding == "cp1252"


def test_shift_jis_page_declared_nowhere():
    body = (
        "抹茶ラテの作り方。茶筅で抹茶をよく点ててから、温めた牛乳を注ぎます。甘さはお好みで調整してください。"
        * 3
    )
    html = f"<html><head><title>抹茶ラテ</title></head><body><article><p>{body}</p></article></body></html>"
    page = parse_html(html.encode("shift_jis"), "https://matcha.example/")
    assert "茶筅で抹茶をよく点ててから" in page.text and page.title == "抹茶ラテ"


def test_empty_and_whitespace_bodies_are_rejected():
    assert parse_html(b"", "https://x.example/").rejection == EMPTY_BODY
    assert parse_html(b"  \r\n\t ", "https://x.example/").rejection == EMPTY_BODY


@pytest.mark.parametrize(
    "body",
    [
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        b"GIF89a\x01\x00",
        b"\xff\xd8\xff\xe0\x00\x10JFIF",
        gzip.compress(b"<html>hi</html>", mtime=0),
        bytes(range(256)) * 4,
    ],
)
def test_binary_content_is_rejected_as_non_html(body):
    page = parse_html(body, "https://x.example/file")
    assert page.rejection == NON_HTML and page.detail


def test_a_non_html_content_type_is_rejected():
    page = parse_html(
        b"<html><body><p>text</p></body></html>", "https://x.example/a", {"Content-Type": "application/pdf"}
    )
    assert page.rejection == NON_HTML and page.detail == "application/pdf"


def test_plain_text_without_markup_is_rejected():
    assert parse_html(b"just some words, no markup at all", "https://x.example/").rejection == NON_HTML


def test_page_over_the_size_limit_is_rejected_without_parsing():
    fifty_mb = b"<html><body>" + b"<p>" + b"word " * 10_000_000 + b"</p></body></html>"
    page = parse_html(fifty_mb, "https://x.example/big")
    assert page.rejection == TOO_LARGE and "bytes" in page.detail


def test_deeply_nested_markup_is_rejected():
    deep = b"<html><body>" + b"<div>" * 100_000 + b"deep text" + b"</div>" * 100_000 + b"</body></html>"
    assert parse_html(deep, "https://x.example/deep").rejection == TOO_DEEP


STEPS = " ".join(f"step{i}" for i in range(80))


def _deep_page(opening: str, levels: int) -> bytes:
    return (
        "<html><head><title>Deep</title></head><body><article><p>Old generators never closed their tags.</p>"
        + opening * levels
        + f"<p>{STEPS}</p></article></body></html>"
    ).encode()


@pytest.mark.parametrize("tag", ["font", "b", "div"])
def test_markup_past_libxml2s_default_depth_is_kept_with_all_its_words(tag):
    page = parse_html(_deep_page(f"<{tag}>", 300), "https://x.example/deep")
    assert page.ok, page.detail
    assert "step0" in page.text and "step79 " in page.text + " " and len(page.text.split()) >= 85


def test_markup_deeper_than_the_bound_is_rejected_with_its_depth():
    from wikihowqa.parse.page import MAX_DEPTH

    page = parse_html(_deep_page("<div>", MAX_DEPTH + 100), "https://x.example/deep")
    assert page.rejection == TOO_DEEP and f"> {MAX_DEPTH}" in page.detail


def _called_from_depth(frames: int, call):
    return call() if frames == 0 else _called_from_depth(frames - 1, call)


def test_the_deepest_kept_page_parses_from_a_caller_300_frames_deep():
    """Nested lists are the deepest recursion downstream (trafilatura handles them one frame per level):
    a page nested right up to the bound still parses, not cut short by a RecursionError, with 300 frames
    (and pytest's own) already on the stack."""
    import sys

    import lxml.html

    from wikihowqa.parse.page import MAX_DEPTH, tree_depth

    levels = (MAX_DEPTH - 6) // 2  # each level is a <ul> and an <li>
    body = _deep_page("<ul><li>item", levels)
    tree = lxml.html.document_fromstring(body, lxml.html.HTMLParser(huge_tree=True))
    assert MAX_DEPTH - 6 < tree_depth(tree) <= MAX_DEPTH
    assert sys.getrecursionlimit() == 1000
    page = _called_from_depth(300, lambda: parse_html(body, "https://x.example/lists"))
    assert page.ok, page.detail
    assert page.text.count("item") == levels and "step79" in page.text


ROSES = (
    "<html><head><title>Cut</title></head><body><article><p>"
    + "Pruning roses in late winter encourages strong new growth and more flowers in summer. " * 4
    + "</p><p>Cut just above an outward-facing bud at a slant so rain runs off the wound.</p>"
)


@pytest.mark.parametrize(
    "cut",
    [
        "<p>Wear thick gloves: the thorns of old climbers are sharp and hard to see in the twig",  # mid-text
        '<p class="tip',  # mid-tag
        "<!-- sidebar starts",  # mid-comment
        "<div>",  # right after a start tag
        "<div><p>Burn or bin the clippings.</p>",  # right after an end tag, inside an open container
    ],
)
def test_truncated_html_keeps_its_text_and_is_flagged_truncated(cut):
    page = parse_html((ROSES + cut).encode(), "https://roses.example/")
    assert page.ok and "Pruning roses in late winter" in page.text
    assert page.truncated == "unclosed" and "truncated" in page.flags
    assert page.info()["truncated"] == "unclosed" and "truncated" in page.info()["flags"]


def test_a_body_shorter_than_its_content_length_is_flagged_truncated():
    body = (ROSES + "</article></body></html>").encode()
    whole = {"Content-Type": "text/html", "Content-Length": str(len(body))}
    assert parse_html(body, "https://roses.example/", whole).truncated is None
    cut = parse_html(body, "https://roses.example/", {**whole, "Content-Length": str(len(body) + 500)})
    assert cut.ok and cut.truncated == "content_length" and "truncated" in cut.flags
    # A compressed transfer's Content-Length counts compressed bytes: no comparison is possible.
    gzipped = {**whole, "Content-Length": str(len(body) + 500), "Content-Encoding": "gzip"}
    assert parse_html(body, "https://roses.example/", gzipped).truncated is None


@pytest.mark.parametrize(
    "ending",
    [
        "</article></body></html>",
        "</article>",  # </body> and </html> are optional end tags
        "</article>\n<script>document.write('<div>')</script>\n",
        "</article><br>",
        "</article><!-- served in 12 ms -->",
    ],
)
def test_a_whole_page_is_not_flagged_truncated(ending):
    page = parse_html((ROSES + ending).encode(), "https://roses.example/")
    assert page.ok and page.truncated is None and "truncated" not in page.flags


@pytest.mark.parametrize("opener", ["<script>x", "<style>x", "<!--x"])
def test_the_truncation_check_is_linear_in_unclosed_raw_text_tags(opener):
    # Each unclosed <script> made the old check rescan to the end: 67 s at 180 KB, hours at 2 MB.
    import time

    from wikihowqa.parse.page import truncation

    text = "<p>hi</p>" + opener * 200_000 + "<br>"
    start = time.perf_counter()
    assert truncation(text) is None  # ends on a void tag and opens no container outside raw text
    assert truncation("<div>" + opener * 200_000) == "unclosed"
    assert time.perf_counter() - start < 5


def test_an_unclosed_script_hides_the_containers_after_it_as_a_browser_does():
    from wikihowqa.parse.page import truncation

    assert truncation("<p>a</p><script>var s = '<div>';</script><br>") is None
    assert truncation("<p>a</p><div>b</div><script>document.write('<div>')") == "unclosed"  # ends inside


def test_no_snapshot_of_the_demo_corpus_is_taken_for_truncated():
    from wikihowqa.demo.paths import corpus_path
    from wikihowqa.parse.decode import decode_html
    from wikihowqa.parse.page import sniff, truncation

    snapshots = sorted((corpus_path() / "archive" / "snapshots").iterdir())
    pages = [p.read_bytes() for p in snapshots]
    html = [b for b in pages if sniff(b, None, ParseSettings()) is None]
    assert len(html) > 200
    assert [truncation(decode_html(b).text, None, len(b)) for b in html] == [None] * len(html)
    halves = [b[: len(b) // 2] for b in html]
    assert all(truncation(decode_html(b).text, None, len(b)) == "unclosed" for b in halves)


def test_a_javascript_app_shell_has_no_text(fixture_bytes):
    page = parse_html(fixture_bytes("app_shell.html"), "https://app.example/")
    assert page.rejection == EMPTY_TEXT


def test_a_page_of_only_navigation_has_no_text():
    html = "<html><body><nav><a href='/a'>Home</a> <a href='/b'>Shop</a></nav><footer>© 2019</footer></body>"
    assert parse_html(html.encode(), "https://x.example/").rejection == EMPTY_TEXT


def test_too_few_words_is_a_setting():
    html = b"<html><body><article><p>Only four words here.</p></article></body></html>"
    assert parse_html(html, "https://x.example/").ok
    assert (
        parse_html(html, "https://x.example/", settings=ParseSettings(min_words=10)).rejection == EMPTY_TEXT
    )


def test_text_input_is_accepted_too():
    page = parse_html(
        "<html><body><article><p>Brewing green tea at eighty degrees keeps it sweet.</p></article></body>",
        "https://t.example/",
    )
    assert page.ok and page.encoding is None and "eighty degrees" in page.text


def test_xml_declaration_and_nul_bytes_do_not_break_parsing():
    html = (
        '<?xml version="1.0" encoding="utf-8"?>\n<html><body><article><p>Sharpen the chisel on a fine water '
        "stone\x00 before paring.</p></article></body></html>"
    )
    page = parse_html(html.encode(), "https://x.example/")
    assert page.ok and "Sharpen the chisel" in page.text


def test_unexpected_errors_become_a_rejection_not_an_exception(monkeypatch):
    import wikihowqa.parse.html as extraction

    def broken(root, *args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(extraction, "extract", broken)
    page = parse_html(b"<html><body><p>text</p></body></html>", "https://x.example/")
    assert page.rejection == "parse_error" and "boom" in page.detail


def test_running_out_of_memory_is_a_too_large_rejection(monkeypatch):
    import wikihowqa.parse.html as extraction

    def hungry(root, *args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(extraction, "extract", hungry)
    page = parse_html(b"<html><body><p>text</p></body></html>", "https://x.example/")
    assert page.rejection == TOO_LARGE


@pytest.mark.parametrize("unit", ["<p>x</p>", "x<br>", "<li>item</li>", "<div><span>a</span></div>"])
def test_a_page_past_the_element_bound_is_cut_there_and_keeps_its_start(unit):
    from wikihowqa.parse.page import MAX_ELEMENTS

    html = (
        "<html><body><main><h2>Start here</h2>"
        + unit * (MAX_ELEMENTS * 2)
        + "<p>The end.</p></main></body></html>"
    )
    page = parse_html(html, "https://x.example/")
    assert page.ok and page.truncated == "cut" and "truncated" in page.flags
    assert "Start here" in page.text and "The end." not in page.text


def test_a_page_within_the_bound_is_not_cut():
    page = parse_html("<html><body>" + "<p>x</p>" * 2000 + "</body></html>", "https://x.example/")
    assert page.ok and page.truncated is None


def test_bad_settings_are_user_errors():
    from wikihowqa.core.errors import SettingsError

    with pytest.raises(SettingsError):
        ParseSettings(pagination="sometimes")
    with pytest.raises(SettingsError):
        ParseSettings(max_words=0)


@pytest.mark.parametrize("enabled", [True, False])
def test_no_cycle_collection_runs_inside_a_parse_and_the_collector_is_left_as_found(
    fixture_bytes, monkeypatch, enabled
):
    import gc

    from wikihowqa.parse import page

    inside, during = [False], []
    parse = page._parse

    def watched(*args, **kwargs):
        inside[0] = True
        try:
            return parse(*args, **kwargs)
        finally:
            inside[0] = False

    monkeypatch.setattr(page, "_parse", watched)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    gc.callbacks.append(lambda phase, info: during.append(inside[0]))
    try:
        parse_html(fixture_bytes("blog_with_comments.html"), BLOG)
        assert gc.isenabled() is enabled
        parse_html(b"<html><body></body></html>", BLOG)  # a rejected page too
        assert gc.isenabled() is enabled
    finally:
        gc.callbacks.pop()
        (gc.enable if was else gc.disable)()
    assert not any(during)


def test_the_shell_of_a_script_rendered_page_is_no_text():
    shell = (
        b"<html><body><header><a href='/'>Skip to content</a></header><main><div>Cart (0)</div>"
        b"<div>Loading...</div><div>I'm shopping for...</div><div>Sign In</div></main></body></html>"
    )
    page = parse_html(shell, "https://shop.example/item/1")
    assert page.rejection == EMPTY_TEXT and "no running text" in page.detail


@pytest.mark.parametrize(
    "body",
    [
        "<p>Only four words here.</p>",  # a sentence, however short
        "<p>Descaling every month keeps the kettle quick</p>",  # six words: running text
        # one long "word"
        "<p>緑茶は八十度のお湯で淹れると甘みが出て苦みが抑えられ、香りも長く楽しめますし、色も鮮やかに保たれます</p>",
    ],
)
def test_a_short_page_with_running_text_is_kept(body):
    assert parse_html(f"<html><body><article>{body}</article></body></html>", "https://x.example/").ok
