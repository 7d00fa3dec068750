"""Markup that trafilatura misreads, rewritten before extraction: code listings in figures, hidden tab panels,
paragraphs written as ``div``s.

trafilatura drops every ``<figure>`` (it takes one for an image, unless a table is inside) and every element
marked hidden (``aria-hidden``, ``display:none``). Both are right for a news page's photo and an off-screen
menu, and wrong for two structures of reference pages: a code listing wrapped in a ``<figure>``
(``<figure class="listing"><pre>…``, one of the HTML standard's own examples of a figure), and the
inactive panels of a tab set (the same step for Windows, macOS and Linux; the same call in Python, Node.js
and Java), which a reader opens with one click and the page's reference text includes. It also reads a
``div``'s own text only where a page has little ``<p>`` text, which loses the answers of FAQ accordions and
the descriptions of feature cards that service pages write as ``<div>`` text.
"""

from __future__ import annotations

import re

from lxml import etree
from lxml.html import HtmlElement

#: A figure holding preformatted text is a code listing (or a poem, a transcript), not a picture. Not a
#: figure holding a quotation: those are testimonials (a logo, a quote, a name) on service pages as often
#: as quotations of an article's own text, and the ground truth keeps those out as often as in.
_TEXT_FIGURES = etree.XPath("/descendant::figure[.//pre]")
_TAB_PANELS = etree.XPath("/descendant::*[@role='tabpanel']")
_HIDING_STYLE = re.compile(r"display\s*:\s*none\s*;?|visibility\s*:\s*hidden\s*;?", re.I)


def unwrap_text_figures(root: HtmlElement) -> int:
    """Turn figures holding a code block into ``div``s, as trafilatura itself does for a
    figure holding a table; return how many. The caption stays as a paragraph of the block."""
    figures = _TEXT_FIGURES(root)
    for figure in figures:
        figure.tag = "div"
        for caption in figure.iter("figcaption"):
            caption.tag = "p"
    return len(figures)


def show_tab_panels(root: HtmlElement) -> int:
    """Un-hide the inactive panels of tab sets (``role="tabpanel"`` marked ``hidden``, ``aria-hidden`` or
    ``display:none``); return how many. For documentation, whose tabs hold alternatives a reader picks
    from (per platform, per language): each is part of the reference."""
    shown = 0
    for panel in _TAB_PANELS(root):
        style = panel.get("style") or ""
        hiding = panel.get("hidden") is not None or panel.get("aria-hidden") is not None
        if not hiding and not _HIDING_STYLE.search(style):
            continue
        panel.attrib.pop("hidden", None)
        panel.attrib.pop("aria-hidden", None)
        if style:
            panel.set("style", _HIDING_STYLE.sub("", style))
        shown += 1
    return shown


#: Elements that start a block of their own: a ``div`` holding one of these is a container, not a paragraph.
_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "details", "dialog", "div", "dl", "dd", "dt",
        "fieldset", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
        "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "ul", "menu", "center",
        "iframe", "video", "audio", "canvas", "select", "textarea", "button", "img", "picture", "svg",
    }
)  # fmt: skip
#: Words a text-only ``div`` must hold to be read as a paragraph.
DIV_PARAGRAPH_WORDS = 8


def divs_to_paragraphs(root: HtmlElement, min_words: int = DIV_PARAGRAPH_WORDS) -> int:
    """Turn ``div``s that hold only text and inline markup (no block inside) into ``p``s; return how many.

    Sites write paragraphs as ``<div>`` text as often as ``<p>`` (an accordion's answer, a card's
    description, a CMS's rich-text field). trafilatura reads a ``div``'s own text only on pages with little
    ``<p>`` text, so on the others that text is lost; readability makes the same change for the same
    reason. One pass, last element first, so each ``div`` knows whether a block lies inside it."""
    has_block: set[HtmlElement] = set()
    turned = 0
    for el in reversed(list(root.iter())):
        tag = el.tag
        if not isinstance(tag, str):
            continue
        parent = el.getparent()
        blocky = tag in _BLOCK_TAGS or el in has_block
        if tag == "div" and el not in has_block and len(el.text_content().split()) >= min_words:
            el.tag = "p"
            turned += 1
        if parent is not None and blocky:
            has_block.add(parent)
    return turned
