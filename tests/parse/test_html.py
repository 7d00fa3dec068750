"""The extraction cascade's preparation of the tree (trafilatura's input)."""

from __future__ import annotations

import lxml.html

from wikihowqa.parse.html import choose, join_body_chunks

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
