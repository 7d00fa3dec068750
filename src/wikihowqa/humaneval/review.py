"""The manual review the paper did before its study: accept, fix or reject each deteriorated answer.

A review file is CSV (a template opens in any spreadsheet) or JSONL, one row per deteriorated answer:
``article_id``, ``decision`` (``accept`` | ``fix`` | ``reject``), for ``fix`` the corrected
``deteriorated`` text, optionally (JSONL only) its ``edits`` in full, and a free ``note``. For a fix
without edits, the edits are re-derived by a word-level diff against the original, each taking the
type of the generated edit it touches ("other" when it touches none).
"""

from __future__ import annotations

import csv
import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from wikihowqa.errors import DatasetError
from wikihowqa.humaneval.deteriorate import DeterioratedAnswer, Edit, check_answer, edit_from_dict
from wikihowqa.io import atomic_write, iter_jsonl

DECISIONS = ("accept", "fix", "reject")
CSV_FIELDS = ("article_id", "decision", "question", "original", "deteriorated", "edits", "note")
_PIECE = re.compile(r"\w+|\s+|[^\w\s]")


def _pieces(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _PIECE.finditer(text)]


def derive_edits(original: str, deteriorated: str, typed_like: Sequence[Edit] = ()) -> tuple[Edit, ...]:
    """Edits turning ``original`` into ``deteriorated``, from a word-level diff; a deletion takes a
    neighbouring word along so that every edit leaves text an assessor can highlight."""
    a, b = _pieces(original), _pieces(deteriorated)
    wa = [original[s:e] for s, e in a]
    wb = [deteriorated[s:e] for s, e in b]
    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if j1 == j2:  # pure deletion: include the preceding (else following) unchanged piece
            if i1 > 0 and j1 > 0:
                i1, j1 = i1 - 1, j1 - 1
            else:
                i2, j2 = i2 + 1, j2 + 1
        os_ = a[i1][0] if i1 < len(a) else len(original)
        oe = a[i2 - 1][1] if i2 > i1 else os_
        ds = b[j1][0] if j1 < len(b) else len(deteriorated)
        de = b[j2 - 1][1] if j2 > j1 else ds
        kind = next((e.type for e in typed_like if e.original_start <= oe and os_ <= e.original_end), "other")
        edits.append(Edit(kind, ds, de, original[os_:oe], deteriorated[ds:de], os_, oe))
    merged: list[Edit] = []
    for e in edits:  # a deletion widened onto its neighbour may now touch the next edit: join them
        if merged and merged[-1].end >= e.start:
            p = merged[-1]
            merged[-1] = Edit(
                p.type,
                p.start,
                e.end,
                original[p.original_start : e.original_end],
                deteriorated[p.start : e.end],
                p.original_start,
                e.original_end,
            )
        else:
            merged.append(e)
    return tuple(merged)


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
        edits = derive_edits(ans.original, text, ans.edits)
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
