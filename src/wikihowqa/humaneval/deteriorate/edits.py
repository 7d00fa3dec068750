"""What a deterioration is and how it is stored: the edit records, offsets in both texts, and the file.

Invariant (tested): the deteriorated text differs from the original only inside the recorded edits;
:func:`check_answer` is what a file (or a reviewer's fix) is held to when read back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError
from wikihowqa.dataset.readers import iter_jsonl
from wikihowqa.dataset.writers import write_jsonl

NEGATION = "negation"
NUMBER = "number"
UNIT = "unit"
ANTONYM = "antonym"
SWAP = "swap"
ORDER = "order"
UNSUPPORTED = "unsupported"
#: Deterioration types, in the order reports list them.
EDIT_TYPES: tuple[str, ...] = (NEGATION, NUMBER, UNIT, ANTONYM, SWAP, ORDER, UNSUPPORTED)
#: Types a reviewer may give to a hand-made edit, besides the generated ones.
REVIEW_TYPES: tuple[str, ...] = (*EDIT_TYPES, "other")


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class Edit:
    """One change: ``deteriorated[start:end] == new`` and ``original[original_start:original_end] == old``."""

    type: str
    start: int
    end: int
    old: str
    new: str
    original_start: int
    original_end: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "start": self.start,
            "end": self.end,
            "old": self.old,
            "new": self.new,
            "original_start": self.original_start,
            "original_end": self.original_end,
        }


@dataclass(frozen=True, slots=True)
class DeterioratedAnswer:
    """An answer picked for the study; ``edits`` is empty for the answers left intact."""

    article_id: int
    question: str
    category: str | None
    original: str
    deteriorated: str
    edits: tuple[Edit, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_deteriorated(self) -> bool:
        return bool(self.edits)

    def to_dict(self) -> dict[str, Any]:
        row = {
            "article_id": self.article_id,
            "question": self.question,
            "category": self.category,
            "original": self.original,
            "deteriorated": self.deteriorated,
            "edits": [e.to_dict() for e in self.edits],
        }
        row.update(self.extra)
        return row


@dataclass(frozen=True, slots=True)
class Change:
    """A replacement in original coordinates (``start == end`` inserts)."""

    start: int
    end: int
    new: str


@dataclass(frozen=True, slots=True)
class Candidate:
    """A proposed deterioration: one or more changes that only make sense together (a swap has two)."""

    type: str
    changes: tuple[Change, ...]
    sentence: int


# --------------------------------------------------------------------------- offsets


def apply_edits(original: str, candidates: Iterable[Candidate]) -> tuple[str, tuple[Edit, ...]]:
    """The deteriorated text and its edits, offsets in both texts; changes must not overlap."""
    changes = sorted(
        ((c.type, ch) for c in candidates for ch in c.changes), key=lambda t: (t[1].start, t[1].end)
    )
    pieces: list[str] = []
    edits: list[Edit] = []
    cursor = 0
    shift = 0
    for kind, ch in changes:
        if ch.start < cursor or ch.end < ch.start or ch.end > len(original):
            raise ValueError(f"overlapping or out-of-range change at {ch.start}:{ch.end}")
        if not ch.new:
            raise ValueError("a change must leave text an assessor can highlight")
        pieces.append(original[cursor : ch.start])
        start = ch.start + shift
        pieces.append(ch.new)
        edits.append(
            Edit(kind, start, start + len(ch.new), original[ch.start : ch.end], ch.new, ch.start, ch.end)
        )
        shift += len(ch.new) - (ch.end - ch.start)
        cursor = ch.end
    pieces.append(original[cursor:])
    return "".join(pieces), tuple(edits)


def reconstruct_original(deteriorated: str, edits: Sequence[Edit]) -> str:
    """Undo the edits; equals the original exactly when the edits are complete and correct."""
    pieces: list[str] = []
    cursor = 0
    for e in sorted(edits, key=lambda e: e.start):
        pieces.append(deteriorated[cursor : e.start])
        pieces.append(e.old)
        cursor = e.end
    pieces.append(deteriorated[cursor:])
    return "".join(pieces)


def check_answer(answer: DeterioratedAnswer) -> list[str]:
    """Problems with an answer's edits (empty when the offsets and texts are consistent)."""
    problems: list[str] = []
    previous_end = -1
    previous_original_end = -1
    for i, e in enumerate(sorted(answer.edits, key=lambda e: e.start)):
        if e.type not in REVIEW_TYPES:
            problems.append(f"edit {i}: unknown type {e.type!r}")
        if (
            not (0 <= e.start <= e.end <= len(answer.deteriorated))
            or answer.deteriorated[e.start : e.end] != e.new
        ):
            problems.append(f"edit {i}: deteriorated[{e.start}:{e.end}] is not {e.new!r}")
        if (
            not (0 <= e.original_start <= e.original_end <= len(answer.original))
            or answer.original[e.original_start : e.original_end] != e.old
        ):
            problems.append(f"edit {i}: original[{e.original_start}:{e.original_end}] is not {e.old!r}")
        if e.start < previous_end or e.original_start < previous_original_end:
            problems.append(f"edit {i}: overlaps the previous edit")
        if e.old == e.new:
            problems.append(f"edit {i}: changes nothing")
        previous_end, previous_original_end = e.end, e.original_end
    if not problems and reconstruct_original(answer.deteriorated, answer.edits) != answer.original:
        problems.append("the text differs from the original outside the recorded edits")
    return problems


def edit_from_dict(row: Mapping[str, Any]) -> Edit:
    try:
        return Edit(
            str(row["type"]),
            int(row["start"]),
            int(row["end"]),
            str(row["old"]),
            str(row["new"]),
            int(row["original_start"]),
            int(row["original_end"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"malformed edit {dict(row)!r:.120}: {exc}") from None


def answer_from_dict(row: Mapping[str, Any]) -> DeterioratedAnswer:
    known = {"article_id", "question", "category", "original", "deteriorated", "edits"}
    try:
        answer = DeterioratedAnswer(
            article_id=int(row["article_id"]),
            question=str(row.get("question") or ""),
            category=row.get("category"),
            original=str(row["original"]),
            deteriorated=str(row["deteriorated"]),
            edits=tuple(edit_from_dict(e) for e in row.get("edits") or ()),
            extra={k: v for k, v in row.items() if k not in known},
        )
    except KeyError as exc:
        raise ValueError(f"missing field {exc.args[0]!r}") from None
    problems = check_answer(answer)
    if problems:
        raise ValueError("; ".join(problems))
    return answer


def read_deteriorated(path: Path) -> list[DeterioratedAnswer]:
    answers = []
    for lineno, row in iter_jsonl(path):
        try:
            answers.append(answer_from_dict(row))
        except ValueError as exc:
            raise DatasetError(f"{path}:{lineno}: {exc}") from None
    return answers


def write_deteriorated(path: Path, answers: Iterable[DeterioratedAnswer]) -> int:
    return write_jsonl(path, (a.to_dict() for a in answers))
