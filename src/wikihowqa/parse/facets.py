"""A collection's interface, taken out of a collection or listing page before extraction: its filter panel
and the text it prints for screen readers only.

A category page, a tag archive or a product grid lets its reader narrow the items down: a panel of facets
("Colour", "Size", "Price", "Brand", each a list of checkable values with counts, "Clear", "Remove all",
"Apply") beside or above the grid. The panel is the page's interface, not its content: no one reading the
page as text wants forty colour names. Read whole, the main container takes it in with the items; on a
grid of twenty products the panel can be most of the text.

Pages build these panels in one of two ways. Most name them, as every shop template does: a block whose
``class`` or ``id`` holds the word *facet(s)*, *filter(s)* or *refinement(s)* (``facets-wrapper``,
``product-filters``, ``refinement-bar``, ``FacetFiltersForm``), or, for the sort bar above the grid,
*sort* or *toolbar* (``sort-by``, ``toolbar-sorter``). Some build them as a form of checkboxes with no
name. A named block is a panel only where it also reads like one: it holds form controls (or is
one filter choice), and is not most of the page's text (a layout named after its filters,
``facets-container``, around the grid and the panel together, is not the panel).
"""

from __future__ import annotations

import re
from functools import lru_cache

from lxml import etree
from lxml.html import HtmlElement

from wikihowqa.parse.sizes import text_sizes

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")
#: Words of a class or id that name a filter panel or a part of one.
_PANEL_WORDS = frozenset(
    {
        "facet",
        "facets",
        "filter",
        "filters",
        "refinement",
        "refinements",
        "sort",
        "sorting",
        "sorter",
        "sortby",
        "toolbar",
    }
)
_STEMS = ("facet", "filter", "refinement", "sort", "toolbar")
_NAMED = etree.XPath(".//*[@class or @id]")
_CONTROLS = etree.XPath(
    "boolean(.//input[@type='checkbox' or @type='radio'] | .//select | .//button"
    " | .//*[@role='checkbox' or @role='radio' or @role='option'])"
)
_CHECKBOX_FORMS = etree.XPath(".//form[count(.//input[@type='checkbox' or @type='radio']) >= $n]")
_PICTURES = etree.XPath("count(.//img | .//picture)")
#: A panel holds at most this share of the page's text: more is the grid (or the page) around it.
PANEL_SHARE = 0.5
#: A block holding this many pictures holds the items (a grid of product photos named ``filter-results``
#: after the filtering it shows), not only the panel: a panel's values are words, a colour swatch or two.
GRID_PICTURES = 3
#: Checkable values that make an unnamed form a filter panel.
MIN_CHECKS = 3
#: A named block of this many words or fewer is one filter choice, control or not (a ``div`` built as a
#: button: "Argyle").
CHOICE_WORDS = 3
#: Characters of text above which a block is more than one choice, its words not counted.
CHOICE_CHARS = 40


@lru_cache(maxsize=1 << 14)
def _names_panel(name: str) -> bool:
    """Whether a class or id value holds a word of :data:`_PANEL_WORDS` (values repeat across a page and a
    site: each is looked at once)."""
    lowered = name.lower()
    if not any(stem in lowered for stem in _STEMS):
        return False
    words = {w.lower() for w in _SEPARATORS.split(_CAMEL.sub("-", name)) if w}
    return not words.isdisjoint(_PANEL_WORDS)


def _named_panel(el: HtmlElement) -> bool:
    return _names_panel(el.get("class") or "") or _names_panel(el.get("id") or "")


def _panel_sized(el: HtmlElement, held: int, chars: dict[HtmlElement, int], headed: set[HtmlElement]) -> bool:
    """Whether ``el`` can be only a panel: a small part of the text, without the page's headline
    (``headed``: the elements holding an ``<h1>``) or a grid of pictures."""
    return chars.get(el, 0) <= PANEL_SHARE * held and el not in headed and _PICTURES(el) < GRID_PICTURES


def _one_choice(el: HtmlElement, chars: dict[HtmlElement, int]) -> bool:
    return chars.get(el, 0) <= CHOICE_CHARS and len(el.text_content().split()) <= CHOICE_WORDS


def filter_panels(
    container: HtmlElement, chars: dict[HtmlElement, int], named: list[HtmlElement] | None = None
) -> set[HtmlElement]:
    """The filter panels inside ``container`` (the outermost ones); ``chars``: the text size of each
    element (:func:`wikihowqa.parse.sizes.text_sizes`); ``named``: its elements with a class or id, when
    already listed. Looked for in document order, never inside a panel already found."""
    held = chars.get(container, 0)
    if held == 0:
        return set()
    headed = {a for h1 in container.iter("h1") for a in h1.iterancestors()} | set(container.iter("h1"))
    forms = set(_CHECKBOX_FORMS(container, n=MIN_CHECKS))
    panels: set[HtmlElement] = set()
    for el in [*(_NAMED(container) if named is None else named), *forms]:
        if el is container or not (el in forms or _named_panel(el)):
            continue
        if any(a in panels for a in el.iterancestors()) or not _panel_sized(el, held, chars, headed):
            continue
        if el in forms or _one_choice(el, chars) or _CONTROLS(el):
            panels.add(el)
    return panels


#: Class names, from the CSS frameworks and CMS themes that define them, of text printed for screen readers
#: only (clipped to one pixel, or placed off-screen).
_SCREEN_READER_CLASSES = frozenset(
    {
        "sr-only",
        "visually-hidden",
        "visuallyhidden",
        "screen-reader-text",
        "screen-reader-only",
        "hidden-visually",
        "u-hidden-visually",
        "a11y-hidden",
        "assistive-text",
    }
)


@lru_cache(maxsize=1 << 14)
def _screen_reader_only(name: str) -> bool:
    return not _SCREEN_READER_CLASSES.isdisjoint(name.split())


def screen_reader_text(root: HtmlElement, named: list[HtmlElement] | None = None) -> list[HtmlElement]:
    """The elements of ``root`` shown to screen readers only. On a collection each card says its prices
    twice, once on screen ("$36") and once for a screen reader ("Regular price: $36", "Sale price",
    "Unit price / per", "current price $148.02"); the page as read on screen, which is its content, has
    only the first. ``named``: the elements of ``root`` with a class or id, when already listed."""
    return [
        el for el in (_NAMED(root) if named is None else named) if _screen_reader_only(el.get("class") or "")
    ]


def drop_collection_interface(
    root: HtmlElement, sizes: tuple[dict[HtmlElement, int], dict[HtmlElement, int]] | None = None
) -> int:
    """Remove a collection's filter panels and screen-reader-only text from ``root``; return how many
    elements went. ``sizes`` (the tree's :func:`wikihowqa.parse.sizes.text_sizes`, when known) are left
    those of the page as served: the share of the page's text its main region holds, which says where the
    content is, counts the panels beside the items."""
    chars = (sizes or text_sizes(root))[0]
    named = _NAMED(root)  # listed once for both: the list is most of the cost
    dropped = filter_panels(root, chars, named) | set(screen_reader_text(root, named))
    for el in dropped:
        if el.getparent() is not None:
            el.drop_tree()
    return len(dropped)
