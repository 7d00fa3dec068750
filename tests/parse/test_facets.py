"""A collection page's filter panel (facets, checkable values, "Clear") is its interface, not its content."""

from __future__ import annotations

import lxml.html

from wikihowqa.parse.facets import filter_panels
from wikihowqa.parse.html import extract
from wikihowqa.parse.sizes import text_sizes

CARDS = "".join(
    f"<li class='card'><img src='{n}.jpg'><a href='/p/{n}'>Merino Wool Hiking Sock Number {n}</a>"
    f"<span>$1{n}.00</span></li>"
    for n in range(12)
)
FACETS = "".join(
    f"<details><summary>{facet}</summary>"
    + "".join(f"<label><input type='checkbox'>{v}</label><i>{v} ({n})</i>" for n, v in enumerate(values))
    + "<a href='#'>Clear</a></details>"
    for facet, values in [("Colour", ["Charcoal", "Navy", "Olive"]), ("Size", ["Small", "Medium", "Large"])]
)


def _page(panel: str, grid: str = f"<ul class='grid'>{CARDS}</ul>") -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(
        f"<html><body><main><h1>Hiking Socks</h1>{panel}{grid}</main></body></html>"
    )


def _panels(root: lxml.html.HtmlElement) -> set:
    return filter_panels(root, text_sizes(root)[0])


def test_a_panel_named_after_its_filters_is_left_out_of_a_collection():
    root = _page(f"<aside class='facets-wrapper'><h2>Filters</h2>{FACETS}</aside>")
    text = extract(root, "collection").text
    assert "Merino Wool Hiking Sock Number 11" in text
    assert "Charcoal" not in text and "Filters" not in text


def test_an_unnamed_form_of_checkboxes_is_a_filter_panel():
    root = _page(f"<form action='/search'>{FACETS}</form>")
    assert [el.tag for el in _panels(root)] == ["form"]


def test_a_filter_named_block_holding_the_pictured_grid_is_not_a_panel():
    root = _page("", f"<div id='filter-results'><button>Compare</button><ul>{CARDS}</ul></div>")
    assert not _panels(root)


def test_a_filter_named_block_without_controls_is_a_panel_only_as_one_short_choice():
    root = _page(
        "<div class='filter-intro'><p>Our socks are knitted from merino wool that keeps feet dry.</p></div>"
        "<div class='colour-filter-button'>Charcoal</div>"
    )
    assert [el.get("class") for el in _panels(root)] == ["colour-filter-button"]


def test_a_cards_screen_reader_labels_are_left_out_of_a_collection():
    cards = "".join(
        f"<li><img src='{n}.jpg'><a href='/p/{n}'>Trail Runner {n}</a>"
        f"<span class='visually-hidden'>Regular price</span><span>$1{n}0</span></li>"
        for n in range(6)
    )
    text = extract(_page("", f"<ul>{cards}</ul>"), "collection").text
    assert "Trail Runner 5" in text and "$150" in text
    assert "Regular price" not in text


def test_a_sort_bar_is_left_out_with_the_filters():
    bar = "<div class='sort-by'><span>Sort by:</span><button>Best Match</button><button>Price</button></div>"
    text = extract(_page(bar), "collection").text
    assert "Merino Wool Hiking Sock Number 3" in text
    assert "Sort by" not in text and "Best Match" not in text
