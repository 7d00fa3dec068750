"""The manual review the paper did before its study: accept, fix or reject each deteriorated answer.

A review file is CSV (a template opens in any spreadsheet) or JSONL, one row per deteriorated answer:
``article_id``, ``decision`` (``accept`` | ``fix`` | ``reject``), for ``fix`` the corrected
``deteriorated`` text, optionally (JSONL only) its ``edits`` in full, and a free ``note``. For a fix
without edits, the generated edits the reviewer left alone are kept (offsets shifted) and only the
stretches they changed are diffed against the original, each new edit typed like the generated edit it
overlaps, meets or is inserted at ("other" when none): IDR by type must mean the same after a review.
"""

from __future__ import annotations

import csv
import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import atomic_write
from wikihowqa.dataset.readers import iter_jsonl
from wikihowqa.humaneval.deteriorate import DeterioratedAnswer, Edit, check_answer, edit_from_dict

DECISIONS = ("accept", "fix", "reject")
CSV_FIELDS = ("article_id", "decision", "question", "original", "deteriorated", "edits", "note")
_PIECE = re.compile(r"\w+|\s+|[^\w\s]")


def _pieces(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _PIECE.finditer(text)]


def _piece_diff(
    a_text: str, b_text: str
) -> tuple[list[tuple[int, int]], list[tuple[int, int]], list[tuple[int, int, int, int]]]:
    """Both texts' pieces and the piece ranges ``(i1, i2, j1, j2)`` where they differ (difflib, no junk)."""
    a, b = _pieces(a_text), _pieces(b_text)
    matcher = difflib.SequenceMatcher(
        None, [a_text[s:e] for s, e in a], [b_text[s:e] for s, e in b], autojunk=False
    )
    return a, b, [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def derive_edits(original: str, deteriorated: str) -> tuple[Edit, ...]:
    """Edits turning ``original`` into ``deteriorated``, from a word-level diff, all typed ``other``; a
    deletion takes a neighbouring word along so that every edit leaves text an assessor can highlight."""
    a, b, differing = _piece_diff(original, deteriorated)
    edits = []
    for i1, i2, j1, j2 in differing:
        if j1 == j2:  # pure deletion: include the preceding (else following) unchanged piece
            if i1 > 0 and j1 > 0:
                i1, j1 = i1 - 1, j1 - 1
            else:
                i2, j2 = i2 + 1, j2 + 1
        os_ = a[i1][0] if i1 < len(a) else len(original)
        oe = a[i2 - 1][1] if i2 > i1 else os_
        ds = b[j1][0] if j1 < len(b) else len(deteriorated)
        de = b[j2 - 1][1] if j2 > j1 else ds
        edits.append(Edit("other", ds, de, original[os_:oe], deteriorated[ds:de], os_, oe))
    return _joined(edits, original, deteriorated, touching=True)


def _joined(edits: Sequence[Edit], original: str, fixed: str, *, touching: bool) -> tuple[Edit, ...]:
    """Edits in order, those that overlap (or, with ``touching``, meet) joined into one of the first's
    type: a deletion widened onto its neighbour may reach the next edit."""
    merged: list[Edit] = []
    for e in sorted(edits, key=lambda e: (e.start, e.original_start)):
        p = merged[-1] if merged else None
        if p is not None and (
            p.end > e.start or p.original_end > e.original_start or (touching and p.end == e.start)
        ):
            end, original_end = max(p.end, e.end), max(p.original_end, e.original_end)
            merged[-1] = Edit(
                p.type,
                p.start,
                end,
                original[p.original_start : original_end],
                fixed[p.start : end],
                p.original_start,
                original_end,
            )
        else:
            merged.append(e)
    return tuple(merged)


def _changes(a_text: str, b_text: str) -> list[tuple[int, int, int, int]]:
    """The regions where two texts differ, by a word-level diff: ``(a_start, a_end, b_start, b_end)``."""
    a, b, differing = _piece_diff(a_text, b_text)
    out = []
    for i1, i2, j1, j2 in differing:
        a_lo = a[i1][0] if i1 < len(a) else len(a_text)
        b_lo = b[j1][0] if j1 < len(b) else len(b_text)
        out.append((a_lo, a[i2 - 1][1] if i2 > i1 else a_lo, b_lo, b[j2 - 1][1] if j2 > j1 else b_lo))
    return out


@dataclass(frozen=True)
class _Region:
    """A stretch of the generated text the reviewer changed, widened over every generated edit it
    touches: inside it the edits are derived afresh, outside it the generated edits stand."""

    start: int
    end: int
    changes: list[tuple[int, int, int, int]]
    edits: list[Edit]


def _regions(changes: Sequence[tuple[int, int, int, int]], generated: Sequence[Edit]) -> list[_Region]:
    """Changed stretches, joined where they meet, each grown over the generated edits it overlaps or
    meets (an insertion right after an edit counts), until no edit straddles a region's edge."""
    spans = [[c[0], c[1], [c], set[int]()] for c in changes]
    grown = True
    while grown:
        grown = False
        joined: list[list] = []
        for r in sorted(spans, key=lambda r: (r[0], r[1])):
            if joined and r[0] <= joined[-1][1]:
                last = joined[-1]
                last[1] = max(last[1], r[1])
                last[2] += r[2]
                last[3] |= r[3]
                grown = True
            else:
                joined.append(r)
        spans = joined
        for r in spans:
            for k, e in enumerate(generated):
                if k not in r[3] and e.start <= r[1] and r[0] <= e.end:
                    r[3].add(k)
                    r[0], r[1] = min(r[0], e.start), max(r[1], e.end)
                    grown = True
    return [_Region(lo, hi, ch, [generated[k] for k in sorted(ks)]) for lo, hi, ch, ks in spans]


def _type_of(edit: Edit, generated: Sequence[Edit]) -> str:
    """The type of the generated edit of its region this edit overlaps most, else of the nearest one (in
    the original's offsets): a region holds only edits the reviewer's change touched, and the diff may
    align an insertion a piece away from where the generator put it. "other" in a region without one."""
    best: tuple[int, int] | None = None
    kind = "other"
    for g in generated:
        lo, hi = max(g.original_start, edit.original_start), min(g.original_end, edit.original_end)
        rank = (hi - lo, -abs(g.original_start - edit.original_start))
        if best is None or rank > best:
            best, kind = rank, g.type
    return kind


def rederive_edits(answer: DeterioratedAnswer, fixed: str) -> tuple[Edit, ...]:
    """The edits of a reviewer's ``fixed`` text: every generated edit outside what the reviewer changed
    is kept as it was (its offsets shifted); each changed stretch, widened over the generated edits it
    touches, is diffed against the original, and an edit found there takes the type of the generated
    edit it overlaps, meets or is inserted at ("other" when the stretch touched none). So a fix equal to
    the generated text gives back exactly the generated edits, and a one-word correction leaves the
    other edits' types alone.
    """
    original, generated = answer.original, answer.deteriorated
    edits = sorted(answer.edits, key=lambda e: e.start)
    regions = _regions(_changes(generated, fixed), edits)
    absorbed = {(e.start, e.end) for r in regions for e in r.edits}
    blocks: list[Edit | _Region] = sorted(
        [*regions, *(e for e in edits if (e.start, e.end) not in absorbed)], key=lambda b: b.start
    )
    # Each block's span in the original and in the fixed text, from the running offsets between the
    # generated text and the other two (outside the blocks all three texts agree).
    spans: list[tuple[int, int, int, int]] = []
    to_original = to_fixed = 0
    for b in blocks:
        o_lo, f_lo = b.start - to_original, b.start + to_fixed
        if isinstance(b, _Region):
            to_original += sum(len(e.new) - len(e.old) for e in b.edits)
            to_fixed += sum((c[3] - c[2]) - (c[1] - c[0]) for c in b.changes)
        else:
            to_original += len(b.new) - len(b.old)
        spans.append((o_lo, b.end - to_original, f_lo, b.end + to_fixed))
    out: list[Edit] = []
    for k, b in enumerate(blocks):
        o_lo, o_hi, f_lo, f_hi = spans[k]
        if not isinstance(b, _Region):
            out.append(replace(b, start=f_lo, end=f_hi))
            continue
        # One unchanged piece of context each side, taken from the gaps to the neighbouring blocks, so
        # that a deletion at the region's edge can take a neighbour along.
        before = _pieces(original[spans[k - 1][1] if k else 0 : o_lo])
        after = _pieces(original[o_hi : spans[k + 1][0] if k + 1 < len(blocks) else len(original)])
        lo = before[-1][1] - before[-1][0] if before else 0
        hi = after[0][1] - after[0][0] if after else 0
        for e in derive_edits(original[o_lo - lo : o_hi + hi], fixed[f_lo - lo : f_hi + hi]):
            moved = replace(
                e,
                start=e.start + f_lo - lo,
                end=e.end + f_lo - lo,
                original_start=e.original_start + o_lo - lo,
                original_end=e.original_end + o_lo - lo,
            )
            out.append(replace(moved, type=_type_of(moved, b.edits)))
    return _joined(out, original, fixed, touching=False)


def read_review(path: Path) -> list[dict[str, Any]]:
    """Rows of a review file (``.csv`` or ``.jsonl``), each with an int ``article_id`` and a decision."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    rows: list[tuple[int, dict[str, Any]]] = []
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            missing = {"article_id", "decision"} - set(reader.fieldnames or ())
            if missing:
                raise DatasetError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
            rows = [(n + 2, dict(r)) for n, r in enumerate(reader)]
    elif path.suffix in {".jsonl", ".json"}:
        rows = list(iter_jsonl(path))
    else:
        raise DatasetError(f"{path}: a review file is .csv or .jsonl")
    out = []
    for line, row in rows:
        decision = str(row.get("decision") or "").strip().lower()
        if decision and decision not in DECISIONS:
            raise DatasetError(
                f"{path}:{line}: decision must be one of {', '.join(DECISIONS)} (or empty), "
                f"got {row.get('decision')!r}"
            )
        try:
            article_id = int(str(row.get("article_id")).strip())
        except ValueError:
            raise DatasetError(f"{path}:{line}: article_id must be an integer") from None
        out.append(
            {**row, "article_id": article_id, "decision": decision, "_line": line, "_source": str(path)}
        )
    return out


def apply_review(
    answers: Sequence[DeterioratedAnswer],
    rows: Sequence[Mapping[str, Any]],
    *,
    source: str = "review",
    require_all: bool = True,
    rejected: str = "drop",
) -> tuple[list[DeterioratedAnswer], dict[str, int]]:
    """The answers as reviewed: accepted as they are, fixed, or rejected (dropped from the study, or kept
    intact with ``rejected="intact"``). Every deteriorated answer needs a decision unless
    ``require_all`` is off (then pending ones count as accepted)."""
    if rejected not in {"drop", "intact"}:
        raise DatasetError(f"rejected answers are dropped or kept intact, not {rejected!r}")
    by_id: dict[int, Mapping[str, Any]] = {}
    for row in rows:
        if row["article_id"] in by_id:
            where = f"{row.get('_source', source)}:{row.get('_line')}"
            raise DatasetError(f"{where}: article {row['article_id']} is reviewed twice")
        by_id[row["article_id"]] = row
    known = {a.article_id for a in answers}
    stray = sorted(set(by_id) - known)
    if stray:
        raise DatasetError(f"{source}: article(s) {stray[:5]} are not among the deteriorated answers")
    pending = [
        a.article_id for a in answers if a.is_deteriorated and not by_id.get(a.article_id, {}).get("decision")
    ]
    if pending and require_all:
        raise DatasetError(
            f"{source}: {len(pending)} deteriorated answer(s) have no decision yet, e.g. article "
            f"{pending[0]} (or pass --allow-unreviewed)"
        )
    counts = {"accept": 0, "fix": 0, "reject": 0, "pending": len(pending)}
    out: list[DeterioratedAnswer] = []
    for ans in answers:
        row = by_id.get(ans.article_id)
        decision = (row or {}).get("decision") or ""
        if not ans.is_deteriorated:
            if decision in {"fix", "reject"}:
                raise DatasetError(
                    f"{source}:{row.get('_line')}: article {ans.article_id} was left intact; "
                    f"only accept applies"
                )
            out.append(ans)
            continue
        if decision == "reject":
            counts["reject"] += 1
            if rejected == "intact":
                out.append(replace(ans, deteriorated=ans.original, edits=()))
            continue
        if decision == "fix":
            out.append(_fixed(ans, row, source))  # type: ignore[arg-type]
            counts["fix"] += 1
            continue
        counts["accept"] += decision == "accept"
        out.append(ans)
    return out, counts


def _fixed(ans: DeterioratedAnswer, row: Mapping[str, Any], source: str) -> DeterioratedAnswer:
    where = f"{row.get('_source', source)}:{row.get('_line')}"
    text = row.get("deteriorated")
    if not isinstance(text, str) or not text.strip():
        raise DatasetError(f"{where}: a fix needs the corrected text in 'deteriorated'")
    text = text.replace("\r\n", "\n")
    if text == ans.original:
        raise DatasetError(f"{where}: the fixed text equals the original; reject the answer instead")
    given = row.get("edits")
    if isinstance(given, list):
        try:
            edits = tuple(edit_from_dict(e) for e in given)
        except ValueError as exc:
            raise DatasetError(f"{where}: {exc}") from None
    else:
        edits = rederive_edits(ans, text)
    fixed = replace(ans, deteriorated=text, edits=edits)
    problems = check_answer(fixed)
    if problems:
        raise DatasetError(f"{where}: " + "; ".join(problems))
    return fixed


def write_review_template(path: Path, answers: Sequence[DeterioratedAnswer]) -> int:
    """A CSV with one row per deteriorated answer and an empty decision, for a reviewer to fill in."""
    rows = [a for a in answers if a.is_deteriorated]
    with atomic_write(Path(path)) as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        for a in rows:
            writer.writerow(
                {
                    "article_id": a.article_id,
                    "decision": "",
                    "question": a.question,
                    "original": a.original,
                    "deteriorated": a.deteriorated,
                    "edits": "; ".join(f"{e.type}: {e.old!r} → {e.new!r}" for e in a.edits),
                    "note": "",
                }
            )
    return len(rows)
