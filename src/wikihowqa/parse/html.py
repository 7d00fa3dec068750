"""Main content of a parsed page → text blocks and Markdown.

Chosen by measurement on the 102 development pages of the article-extraction benchmark
(``benchmarks/extraction.py``, tables in ``benchmarks/RESULTS.md``): trafilatura alone scores F1 0.954,
readability-lxml 0.944, resiliparse (a fast parser-based extractor, 13× trafilatura's speed) 0.914, html2text
0.633. What is used here is trafilatura's extraction core in a cascade the library does not offer, on a tree
prepared first (F1 of each step in the benchmark's ablation rows):

1. trafilatura in precision mode, without its slower readability/jusText comparison (0.953, 1.6× faster),
   and only where that finds almost nothing, once more in recall mode (0.957);
2. boilerplate removal before it (:mod:`wikihowqa.parse.boilerplate`: comments, related links, share,
   cookie and newsletter blocks, link-only lists), so a fallback cannot pick them up (0.958);
3. an article body split into sibling containers with the same class (one per ad slot, as some CMSs
   render it) joined back into one, because trafilatura keeps only the first (0.963).

Extraction runs without trafilatura's formatting pass: with it, a paragraph holding bold text directly in a
``<div>`` is split at the bold words and loses a space (seen on forum posts). trafilatura's serializer then
renders the result, so Markdown keeps headings, lists and tables (GFM), but not bold or italics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml.etree import _Element
from lxml.html import HtmlElement
from trafilatura.core import bare_extraction
from trafilatura.xml import xmltotxt

from wikihowqa.parse.blocks import Block

try:  # trafilatura's own article-container expressions: the chunks it would pick the first of
    from trafilatura.xpaths import BODY_XPATH as _BODY_XPATH
except ImportError:  # pragma: no cover - internal name; without it chunk joining is skipped
    _BODY_XPATH = []

#: Below this many characters a precision-mode extraction is taken as a miss (trafilatura's own minimum).
MIN_EXTRACTED_CHARS = 250

_SPACES = re.compile(r"[ \t\u00a0]+")


@dataclass(frozen=True, slots=True)
class Extraction:
    blocks: tuple[Block, ...]
    markdown: str
    mode: str  # "precision", "recall" or "none"

    @property
    def text(self) -> str:
        return "\n".join(block.text for block in self.blocks)


def join_body_chunks(root: HtmlElement) -> int:
    """Move the content of later sibling article-body containers into the first; return how many moved.

    Only containers matched by the expression trafilatura would choose the first from, with the same tag
    and class as that first one and not nested in it, are joined.
    """
    for expr in _BODY_XPATH[:1]:
        found = expr(root)
        if len(found) < 2:
            return 0
        first = found[0]
        inside = set(first.iter())
        above = set(first.iterancestors())
        moved = 0
        for other in found[1:]:
            if other.tag != first.tag or other.get("class") != first.get("class"):
                continue
            if other in inside or other in above or other.getparent() is None:
                continue
            first.extend(list(other))
            other.drop_tree()
            moved += 1
        return moved
    return 0


def _run(root: HtmlElement, mode: str) -> _Element | None:
    document = bare_extraction(
        root,
        fast=True,
        favor_precision=mode == "precision",
        favor_recall=mode == "recall",
        include_comments=False,
        include_tables=True,
        include_formatting=False,
        include_links=False,
        include_images=False,
        with_metadata=False,
        deduplicate=False,
    )
    return None if document is None else document.body


def _clean(line: str) -> str:
    return _SPACES.sub(" ", line).strip()


def blocks_of(body: _Element) -> list[Block]:
    """Plain-text blocks of an extracted body, one per heading, paragraph, list item and table row."""
    blocks: list[Block] = []
    group = 0
    if body.text and body.text.strip():
        blocks.append(Block("paragraph", _clean(body.text)))
    for child in body:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "table":
            for row in child.iter("row"):
                cells = [_clean(" ".join(cell.itertext())) for cell in row.iterfind("cell")]
                line = " | ".join(cell for cell in cells if cell)
                if line:
                    blocks.append(Block("row", line, group))
            group += 1
            if child.tail and child.tail.strip():
                blocks.append(Block("paragraph", _clean(child.tail)))
            continue
        lines = [_clean(line) for line in xmltotxt(child, False).splitlines() if line.strip()]
        if tag == "list":
            blocks.extend(Block("item", line, group) for line in lines)
            group += 1
        else:
            kind = "heading" if tag == "head" else "paragraph"
            blocks.extend(Block(kind if i == 0 else "paragraph", line) for i, line in enumerate(lines))
    return blocks


def extract(root: HtmlElement, *, join_chunks: bool = True, rescue: bool = True) -> Extraction:
    """Main content of a prepared tree (boilerplate already removed): blocks, Markdown and the mode used.

    ``join_chunks`` and ``rescue`` switch off steps 2 and 3 of the cascade (for the benchmark's ablation).
    """
    if join_chunks:
        join_body_chunks(root)
    body, mode = _run(root, "precision"), "precision"
    text = "" if body is None else " ".join(body.itertext()).strip()
    if rescue and len(text) < MIN_EXTRACTED_CHARS:
        rescue = _run(root, "recall")
        rescue_text = "" if rescue is None else " ".join(rescue.itertext()).strip()
        if len(rescue_text) > len(text):
            body, mode = rescue, "recall"
    if body is None:
        return Extraction((), "", "none")
    blocks = tuple(blocks_of(body))
    if not blocks:
        return Extraction((), "", "none")
    return Extraction(blocks, xmltotxt(body, True).strip(), mode)
