"""The extraction cascade's preparation of the tree (trafilatura's input)."""

from __future__ import annotations

import lxml.html

from wikihowqa.parse.blocks import Block
from wikihowqa.parse.html import choose, from_headline, join_body_chunks

STORY = "The council voted on Tuesday to extend the night bus routes to the northern suburbs from March. "


def test_an_article_body_cut_into_same_class_boxes_is_joined():
    # each piece in a wrapper of its own between ad slots, so trafilatura's expression finds all three
    chunks = "".join(
        f"<section><div class='post-content'><p>{STORY * 4} ({i})</p></div></section><div class='ad'></div>"
        for i in range(3)
    )
    root = lxml.html.document_fromstring(f"<html><body><article>{chunks}</article></body></html>")
    assert join_body_chunks(root) == 2
    assert len(root.xpath("//div[@class='post-content']")) == 1


def test_teaser_boxes_that_share_the_body_class_are_not_joined():
    # two promotion cards styled as post content, beside an article that is much longer than both
    cards = "".join(
        f"<section><div class='post-content'><p>Award {i}: best of the year.</p></div></section>"
        for i in range(2)
    )
    article = "".join(f"<p>{STORY * 3}</p>" for _ in range(12))
    root = lxml.html.document_fromstring(
        f"<html><body><aside>{cards}</aside><main>{article}</main></body></html>"
    )
    assert join_body_chunks(root) == 0
    assert len(root.xpath("//div[@class='post-content']")) == 2


def test_a_collections_card_grid_is_read_where_trafilatura_kept_only_its_category_text():
    # trafilatura kept the category's paragraph; the container holds it and the product cards after it
    intro = "Trail shoes for rocky and muddy paths, with grippy outsoles and protective toe caps for all."
    cards = "\n".join(f"Trail Runner {i} GTX\n$129.95" for i in range(6))  # three times the intro's words
    whole = f"{intro}\n{cards}"
    assert choose(intro, whole, "collection") == "container"
    assert choose(intro, whole, "product") == "extracted"  # a product page's: its buying interface


def test_a_listings_items_are_read_where_trafilatura_kept_only_a_few_of_them():
    # trafilatura kept the listing's introduction and two entries; the container holds all twelve entries,
    # about three times its words, where a forum's profile trusts trafilatura's pick (one post or many)
    intro = "Upcoming meetups for people who build and repair their own bicycles in the city this winter."
    entries = [f"Wheel truing night {i}, Thursday 7 pm, community workshop" for i in range(12)]
    extracted = "\n".join([intro, *entries[:2]])
    whole = "\n".join([intro, *entries])
    assert choose(extracted, whole, "listing") == "container"
    assert choose(extracted, whole, "forum") == "extracted"


def _headed(before: int, after: int) -> tuple[lxml.html.HtmlElement, list[Block]]:
    menu = [Block("item", f"Menu entry {i}") for i in range(before)]
    cards = [Block("paragraph", f"Lamp model {i} $49.00") for i in range(after)]
    html = "<html><body><div><h1>Table lamps</h1></div></body></html>"
    main = lxml.html.document_fromstring(html).find("body")
    return main, [*menu, Block("heading", "Table lamps"), *cards]


def test_a_category_page_read_whole_starts_at_its_title():
    # the header's menu comes before the category's title; its cards after it
    main, whole = _headed(before=3, after=10)
    assert [b.text for b in from_headline(main, whole)][:2] == ["Table lamps", "Lamp model 0 $49.00"]


def test_a_title_with_most_of_the_container_before_it_is_not_where_the_content_starts():
    main, whole = _headed(before=30, after=3)
    assert from_headline(main, whole) == whole
