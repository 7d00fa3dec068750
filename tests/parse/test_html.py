"""The extraction cascade's preparation of the tree (trafilatura's input)."""

from __future__ import annotations

import lxml.html

from wikihowqa.parse.html import join_body_chunks

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
