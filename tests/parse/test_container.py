"""The main container read whole: which element it is, and what of it counts as text."""

from __future__ import annotations

import lxml.html

from wikihowqa.parse.blocks import Block
from wikihowqa.parse.container import container_blocks, has_pictured_items, main_container
from wikihowqa.parse.html import interior

PARAGRAPH = (
    "Choosing the right tool is a balancing act between the features a team will use every week and the "
    "price it pays for the ones it never opens."
)


def _texts(html: str) -> list[str]:
    root = lxml.html.document_fromstring(html)
    return [block.text for block in container_blocks(root.find("body"))]


def test_a_hidden_copy_of_the_shown_text_is_read_once():
    # a raw-Markdown copy of the article for machines, hidden from readers and assistive technology
    shown = "".join(f"<p>{PARAGRAPH} ({i})</p>" for i in range(3))
    copy = "\n\n".join(f"{PARAGRAPH} ({i})" for i in range(3))
    texts = _texts(
        f"<html><body><article>{shown}</article><pre hidden aria-hidden='true'>{copy}</pre></body></html>"
    )
    assert len(texts) == 3 and all(t.startswith("Choosing the right tool") for t in texts)


def test_hidden_text_found_nowhere_else_is_content():
    # a collapsed FAQ answer and a carousel's slides, each hidden until opened, hold text of their own
    texts = _texts(
        "<html><body><main><p>" + PARAGRAPH + "</p><h3>Does it work offline?</h3>"
        "<div class='accordion-panel' hidden>"
        "<p>Yes: every note is kept on the device and synced later.</p></div>"
        "<div class='slide' aria-hidden='true'><p>“We moved our whole support team over in a week.”</p></div>"
        "</main></body></html>"
    )
    assert "Yes: every note is kept on the device and synced later." in texts
    assert "“We moved our whole support team over in a week.”" in texts


def test_without_an_element_holding_most_of_the_text_the_extractors_region_is_the_container():
    # a service page: price cards, an add-on list and a sign-up box side by side under <body>, none with
    # most of the text; the extractor's paragraphs lie in one of them, which is the region to read
    lead = [f"{PARAGRAPH} Section {i} of the service description." for i in range(3)]
    html = (
        "<html><body><div class='packages'>"
        + "".join(f"<div class='card'><h3>Package {i}</h3><p>$299.00</p></div>" for i in range(6))
        + "</div><div class='about'>"
        + "".join(f"<p>{line}</p>" for line in lead)
        + "</div><div class='addons'>"
        + "".join(f"<p>Add-on {i}: an hour of coaching with a certified career coach.</p>" for i in range(8))
        + "</div></body></html>"
    )
    root = lxml.html.document_fromstring(html)
    assert main_container(root, lead).get("class") == "about"


def _b(kind: str, text: str, group: int = -1) -> Block:
    return Block(kind, text, group)


def test_the_headings_and_lists_between_the_paragraphs_trafilatura_kept_are_added_in_place():
    whole = [
        _b("item", "Share on Facebook", 0),  # before the first kept block: not added
        _b("paragraph", "Coffee grows in the humid forests of Ethiopia."),
        _b("heading", "Identification characteristics"),
        _b("item", "Flowers: white and aromatic.", 1),
        _b("item", "Fruit: a berry.", 1),
        _b("paragraph", "Coffee today is mainly grown for its seeds."),
        _b("heading", "Related articles"),  # after the last kept block: not added
    ]
    extracted = [whole[1], whole[5]]
    assert interior(extracted, whole) == tuple(whole[1:6])


def test_nothing_is_added_when_trafilatura_read_another_text_or_another_order():
    whole = [_b("paragraph", "One."), _b("heading", "Two"), _b("paragraph", "Three.")]
    assert interior([whole[2], whole[0]], whole) is None  # out of order
    assert interior([_b("paragraph", "Elsewhere."), whole[0], whole[2]], whole) is None  # a third not found
    assert interior([whole[0]], whole) is None  # nothing lies between
    only_paragraphs = [whole[0], _b("paragraph", "A paragraph trafilatura left out."), whole[2]]
    assert interior([whole[0], whole[2]], only_paragraphs) is None  # only headings and items are added


def test_a_gallery_caption_is_no_list_item_of_the_text_without_pictures():
    main = lxml.html.fromstring(
        "<main><p>The minister arrived in Hanoi on Wednesday morning.</p>"
        "<ul><li><img src='a.jpg'><div>The minister shakes hands in Hanoi.</div></li></ul>"
        "<ul><li>Coast guard cutters were promised to Vietnam.</li></ul></main>"
    )
    with_pictures = [b.text for b in container_blocks(main)]
    without = [b.text for b in container_blocks(main, pictures=False)]
    assert "The minister shakes hands in Hanoi." in with_pictures
    assert without == [t for t in with_pictures if t != "The minister shakes hands in Hanoi."]
    assert "Coast guard cutters were promised to Vietnam." in without
    assert has_pictured_items(main)
    assert not has_pictured_items(main.find("ul[2]"))  # nothing to leave out: the one reading serves


def test_a_filter_menus_checkable_entries_are_interface_not_text():
    # a listing's "spoken language" filter: hundreds of radio menu entries beside the list itself
    menu = "".join(f"<a role='menuitemradio' href='?l={i}'>Language {i}</a>" for i in range(50))
    texts = _texts(f"<html><body><div role='group'>{menu}</div><p>{PARAGRAPH}</p></body></html>")
    assert texts == [PARAGRAPH]


def _linked_texts(html: str) -> list[str]:
    root = lxml.html.document_fromstring(html)
    return [block.text for block in container_blocks(root.find("body"), keep_links=True)]


def test_a_cards_recurring_action_link_is_left_out_and_its_tags_stay():
    # every card: its title, a tag leading to the filtered listing, and an action leading to its own item
    cards = "".join(
        f"<li><h3><a href='/item/{i}'>Desk model {i}</a></h3><div><a href='/type/standing'>Standing</a></div>"
        f"<div><a href='/cart?add={i}'>Add to cart</a></div><div><a href='#'>Quick view</a></div></li>"
        for i in range(4)
    )
    texts = _linked_texts(f"<html><body><ul>{cards}</ul></body></html>")
    assert texts == [t for i in range(4) for t in (f"Desk model {i}", "Standing")]


def _shop_page() -> lxml.html.HtmlElement:
    chrome = "".join(f"<li><a href='/c/{i}'>Department number {i} of the store</a></li>" for i in range(60))
    items = "<ul><li>Balm Trio $42</li><li>Serum Pack $88</li></ul>"
    grid = f"<main class='grid'><h1>Skincare Sets</h1>{items}</main>"
    return lxml.html.document_fromstring(
        f"<html><body><nav><ul>{chrome}</ul></nav>{grid}<footer>{chrome}</footer></body></html>"
    )


def test_a_shops_small_named_main_holding_the_headline_is_its_content():
    root = _shop_page()
    assert main_container(root, ["Balm Trio $42"], shop=True).get("class") == "grid"


def test_a_small_headline_main_is_not_the_content_where_the_extractor_found_more_text_elsewhere():
    root = _shop_page()
    story = [PARAGRAPH] * 10  # an article's paragraphs, read outside its header's <main>
    assert main_container(root, story).get("class") != "grid"
    assert main_container(root, ["Balm Trio $42"]).get("class") == "grid"
