"""A release's captures as pages: the released passages are the article, boilerplate sits in the chrome."""

from __future__ import annotations

from wikihowqa.parse import parse_html
from wikihowqa.replay.release_pages import boilerplate_kind, page_html, split_address

ARTICLE = [
    "Sealing your concrete garage floor is the best way to prevent damage from road salt and freezing.",
    "Film-forming acrylic, epoxy and polyurethane products seal the concrete pores and leave a coating.",
]
COOKIE = "This website uses cookies to improve your experience while you navigate through the website."
SIGNUP = "Sign up to receive posts by email and get my free mini-course."


def test_boilerplate_passages_are_told_from_the_article():
    assert [boilerplate_kind(p) for p in (*ARTICLE, COOKIE, SIGNUP)] == [None, None, "cookie", "signup"]


def test_the_parse_stage_reads_the_article_back_and_drops_the_chrome():
    url = "https://www.familyhandyman.com/garage/seal/"
    page = parse_html(page_html(url, "Make Your Garage Floor Last", [*ARTICLE, COOKIE, SIGNUP]), url, {})
    assert page.ok and all(p in page.text for p in ARTICLE)
    assert COOKIE not in page.text and "Popular Posts" not in page.text and "Privacy Policy" not in page.text


def test_a_wayback_address_names_its_timestamp_and_original_url():
    address = (
        "http://web.archive.org/web/20160506033836/http://gardeningcentral.org:80/dry_figs/dry_figs.html"
    )
    assert split_address(address) == (
        "20160506033836",
        "http://gardeningcentral.org:80/dry_figs/dry_figs.html",
    )
