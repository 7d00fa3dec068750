"""A section the page shows twice, read once.

Pages render some of their text a second time: a layout for another screen size that the stylesheet hides,
a "continue reading" copy, a sticky summary. Read from the markup both copies are there, and an extraction
holds the section twice. A single repeated line is often meant (a call to action under each section, a
recurring table row, a chorus), so only a *run* of repeated blocks is dropped: :data:`RUN` or more long
paragraphs in a row, repeating an earlier run of the extraction block for block, is a copied section. List
items and table rows do not count towards a run: a meal plan or a timetable repeats its entries from day to
day on purpose.
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
#: Earlier places of a paragraph compared with its repetition, and blocks a comparison runs at most: keeps
#: a page of thousands of identical blocks linear (50,000 of them took minutes unbounded).
STARTS = 3
LONGEST = 400
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
    """Indexes of the blocks that belong to a copied section (see the module's docstring): a run of blocks
    that repeats an earlier run block for block, in the same order, holding :data:`RUN` long paragraphs or
    more. A section of the same shape with other entries (a second meal plan after the first, whose
    headings and some meals recur) breaks off where it differs; one under a heading of its own, said once
    ("Plan F" after "Plan E"), is the author's repetition, not a copy (a copy repeats its heading too, or
    has none)."""
    keys = [_key(b.text) for b in blocks]
    where: dict[str, list[int]] = {}
    dropped: set[int] = set()
    i = 0
    while i < len(blocks):
        longest, origin = 0, -1
        if _long(blocks[i], keys[i]):  # a copied section is found at one of its paragraphs
            for start in where.get(keys[i], ())[:STARTS]:
                n = _matched(keys, start, i)
                if n > longest:
                    longest, origin = n, start
        run = range(i, i + longest)
        if longest and sum(_long(blocks[j], keys[j]) for j in run) >= RUN:
            # the section begins where the two stop agreeing going back: its title, when it has one of
            # its own, stands just before
            back = 0
            while back < LONGEST and origin - back > 0 and i - back - 1 not in dropped:
                if keys[origin - back - 1] != keys[i - back - 1] or origin - back - 1 >= i - back - 1:
                    break
                back += 1
            head = i - back - 1
            titled = head >= 0 and blocks[head].kind == "heading" and len(where.get(keys[head], ())) == 1
            if not titled:
                dropped.update(range(i - back, i + longest))
            for j in run:
                where.setdefault(keys[j], []).append(j)
            i += longest
            continue
        where.setdefault(keys[i], []).append(i)
        i += 1
    return dropped


def _matched(keys: list[str], start: int, at: int) -> int:
    """How many blocks from ``at`` on repeat those from ``start`` on (at most :data:`LONGEST`)."""
    n = 0
    while n < LONGEST and at + n < len(keys) and start + n < at and keys[start + n] == keys[at + n]:
        n += 1
    return n


def _long(block: Block, key: str) -> bool:
    return block.kind == "paragraph" and len(key.split()) >= MIN_WORDS


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
