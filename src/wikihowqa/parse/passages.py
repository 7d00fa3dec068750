"""Cut a document into passages that respect paragraph, list and table boundaries.

DPR's passages are 100 words; a passage here holds whole blocks up to ``max_words``: a heading stays with
what follows it, a list or table stays whole when it fits and is otherwise cut between items or rows, and
only a paragraph longer than ``max_words`` is cut, at sentence ends found by nupunkt (then, for a run-on
"sentence", at word boundaries). Every passage is an exact slice ``text[start:end]`` of its document's text,
so a reader can highlight it in place. Sentences come from the project's splitter,
``wikihowqa.core.sentences``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wikihowqa.core.sentences import spans as sentence_spans
from wikihowqa.parse.blocks import Block

DEFAULT_MAX_WORDS = 100

_WORD = re.compile(r"\S+")
_ITEM = re.compile(r"^\s*(?:[-*•·▪◦‣–]\s+|\(?\d{1,3}[.)]\s+|\(?[a-zA-Z][.)]\s+(?=\S))")
_TERMINAL = re.compile(r"[.!?:;…。！？」』)\]\"'”’]$")


@dataclass(frozen=True, slots=True)
class PassageSpan:
    """A passage with its place in the document: ``text == document_text[start:end]``."""

    text: str
    position: int
    start: int
    end: int
    words: int


@dataclass(frozen=True, slots=True)
class _Piece:
    start: int
    end: int
    words: int


def _count(text: str) -> int:
    return len(text.split())  # the runs of _WORD: split's whitespace is the same as \s


def _word_windows(text: str, offset: int, max_words: int) -> list[_Piece]:
    words = list(_WORD.finditer(text))
    return [
        _Piece(
            offset + words[i].start(),
            offset + words[min(i + max_words, len(words)) - 1].end(),
            min(max_words, len(words) - i),
        )
        for i in range(0, len(words), max_words)
    ]


def _cut(text: str, offset: int, max_words: int) -> list[_Piece]:
    """Pieces of an over-long paragraph: whole sentences packed up to ``max_words``, else word windows."""
    pieces: list[_Piece] = []
    for start, end in sentence_spans(text):  # trimmed of whitespace, none empty
        sentence = text[start:end]
        begin = offset + start
        n = _count(sentence)
        if n > max_words:
            pieces.extend(_word_windows(sentence, begin, max_words))
        else:
            pieces.append(_Piece(begin, end + offset, n))
    return _pack([[p] for p in pieces], max_words)


def _pack(units: Iterable[list[_Piece]], max_words: int) -> list[_Piece]:
    """Greedy packing of units (each a run of pieces that should stay together) into passages."""
    out: list[_Piece] = []
    current: _Piece | None = None
    for unit in units:
        size = sum(p.words for p in unit)
        if size > max_words:  # too big to stay together: pack its pieces one by one, from a fresh passage
            if current is not None:
                out.append(current)
                current = None
            inner = _pack([[p] for p in unit], max_words) if len(unit) > 1 else unit
            out.extend(inner[:-1])
            current = inner[-1] if inner else None
            continue
        if current is not None and current.words + size > max_words:
            out.append(current)
            current = None
        first, last = unit[0], unit[-1]
        current = (
            _Piece(first.start, last.end, size)
            if current is None
            else _Piece(current.start, last.end, current.words + size)
        )
    if current is not None:
        out.append(current)
    return out


def _locate(text: str, blocks: Sequence[Block]) -> list[tuple[Block, int]]:
    located: list[tuple[Block, int]] = []
    cursor = 0
    for block in blocks:
        if not block.text:
            continue
        at = text.find(block.text, cursor)
        if at < 0:
            raise ValueError(f"block not found in text after offset {cursor}: {block.text[:40]!r}")
        located.append((block, at))
        cursor = at + len(block.text)
    return located


def passage_spans(
    text: str, blocks: Sequence[Block] | None = None, max_words: int = DEFAULT_MAX_WORDS
) -> list[PassageSpan]:
    """Passages of ``text``; ``blocks`` (in text order) say where headings, lists and tables are, and are
    guessed from the lines of ``text`` when not given."""
    if max_words < 1:
        raise ValueError("max_words must be at least 1")
    if blocks is None:
        blocks = blocks_from_text(text)
    units: list[list[_Piece]] = []
    pending: list[_Piece] = []  # headings waiting for what follows them
    group_of_last = None
    for block, at in _locate(text, blocks):
        n = _count(block.text)
        pieces = _cut(block.text, at, max_words) if n > max_words else [_Piece(at, at + len(block.text), n)]
        if block.kind == "heading":
            pending.extend(pieces)
            group_of_last = None
            continue
        if block.group >= 0 and block.group == group_of_last and units and not pending:
            units[-1].extend(pieces)
        else:
            units.append(pending + pieces)
            pending = []
        group_of_last = block.group if block.group >= 0 else None
    if pending:
        units.append(pending)
    return [
        PassageSpan(text[p.start : p.end], i, p.start, p.end, p.words)
        for i, p in enumerate(_pack(units, max_words))
    ]


def blocks_from_text(text: str) -> list[Block]:
    """Blocks guessed from plain text, one per line: runs of bulleted or numbered lines are lists, runs of
    lines with ``|`` cells are tables, and a short line without end punctuation before a paragraph is a
    heading."""
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    kinds: list[str] = []
    for line in lines:
        if _ITEM.match(line):
            kinds.append("item")
        elif line.count(" | ") >= 1 and not line.endswith((".", "!", "?")):
            kinds.append("row")
        else:
            kinds.append("paragraph")
    blocks: list[Block] = []
    group = -1
    for i, (line, kind) in enumerate(zip(lines, kinds, strict=True)):
        if kind in {"item", "row"}:
            if i == 0 or kinds[i - 1] != kind:
                group += 1
            blocks.append(Block(kind, line, group))
            continue
        following = kinds[i + 1] if i + 1 < len(kinds) else None
        if (
            following is not None
            and _count(line) <= 12
            and not _TERMINAL.search(line)
            and (following != "paragraph" or _count(lines[i + 1]) > _count(line))
        ):
            blocks.append(Block("heading", line))
        else:
            blocks.append(Block("paragraph", line))
    return blocks


def split_passages(text: str, max_words: int = DEFAULT_MAX_WORDS) -> list[str]:
    """Passages of ``text`` (paragraphs separated by newlines), each at most ``max_words`` words."""
    return [span.text for span in passage_spans(text, None, max_words)]
