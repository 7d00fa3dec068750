"""A section the page shows twice, read once.

Pages render some of their text a second time: a layout for another screen size that the stylesheet hides,
a "continue reading" copy, a sticky summary. Read from the markup both copies are there, and an extraction
holds the section twice. A single repeated line is often meant (a call to action under each section, a
recurring table row, a chorus), so only a *run* of repeated blocks is dropped: :data:`RUN` or more long
blocks in a row, each of which the extraction already holds word for word, is a copied section.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, TypeVar

from wikihowqa.parse.blocks import Block

#: A block of at least this many words, repeated, counts towards a copied section.
MIN_WORDS = 12
#: Long repeated blocks in a row that make a copied section.
RUN = 3
_WORDS = re.compile(r"\w+")
_MARKER = re.compile(r"^\s*(?:#+|[-*+]|\d+[.)]|\|)\s*")


class _Extraction(Protocol):
    @property
    def blocks(self) -> tuple[Block, ...]: ...

    @property
    def markdown(self) -> str: ...


E = TypeVar("E", bound=_Extraction)


def _key(text: str) -> str:
    return " ".join(_WORDS.findall(text.casefold()))


def repeated_runs(blocks: Sequence[Block]) -> set[int]:
    """Indexes of the blocks that belong to a copied section (see the module's docstring)."""
    keys = [_key(b.text) for b in blocks]
    seen: set[str] = set()
    again = []
    for key in keys:
        again.append(bool(key) and key in seen)
        if key:
            seen.add(key)
    dropped: set[int] = set()
    i = 0
    while i < len(blocks):
        if not again[i]:
            i += 1
            continue
        j, long = i, 0
        while j < len(blocks) and (again[j] or not keys[j]):
            long += len(keys[j].split()) >= MIN_WORDS
            j += 1
        if long >= RUN:
            dropped.update(range(i, j))
        i = j
    return dropped


def without_copies(blocks: Sequence[Block], markdown: str) -> tuple[tuple[Block, ...], str] | None:
    """The blocks and Markdown without their copied sections, or ``None`` when there are none. In the
    Markdown a line goes when it reads as a dropped block and an earlier line already read so."""
    dropped = repeated_runs(blocks)
    if not dropped:
        return None
    gone = {_key(blocks[i].text) for i in dropped}
    kept = tuple(b for i, b in enumerate(blocks) if i not in dropped)
    lines, seen = [], set()
    for line in markdown.split("\n"):
        key = _key(_MARKER.sub("", line))
        if key in gone and key in seen:
            continue
        seen.add(key)
        lines.append(line)
    return kept, re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def read_once(extraction: E) -> E:
    """``extraction`` (a dataclass with ``blocks`` and ``markdown``) without its copied sections."""
    found = without_copies(extraction.blocks, extraction.markdown)
    if found is None:
        return extraction
    return replace(extraction, blocks=found[0], markdown=found[1])  # type: ignore[type-var]
