"""Simulated assessors of the ``errors`` parts: planted span recall and type confusion.

On a control (a deteriorated answer) each planted edit is marked with probability ``recall`` (per
part), with a right type (one its edit type names, ``Taxonomy.names_for_edit``) with probability
``type_accuracy``, else another offered type (the confusion). On a system's real answer what a simulated
assessor marks comes only from ``reference``: spans a person annotated by reading those answers (a fixture
committed with the tests), each kept with probability ``recall`` — never from the automatic detectors
being measured, which would make any agreement with them circular. A real answer without reference
spans gets none. Every figure made from these judgments is simulated and must say so.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.humaneval.errorspans import error_spans_problem, normalised
from wikihowqa.humaneval.taxonomy import SEVERITIES, Taxonomy


@dataclass(frozen=True)
class ErrorSimulation:
    recall: Mapping[str, float] = field(default_factory=lambda: {"errors_a": 0.5, "errors_b": 0.7})
    type_accuracy: float = 0.7
    severity_weights: tuple[float, float, float] = (0.5, 0.4, 0.1)

    def __post_init__(self) -> None:
        if any(not 0 <= p <= 1 for p in (*self.recall.values(), self.type_accuracy)):
            raise SettingsError("error-span simulation probabilities must lie in [0, 1]")


def read_reference(path: Path | str | None) -> dict[tuple[str, int], dict[str, Any]]:
    """Hand-annotated spans of systems' answers: JSONL rows ``{system, article_id, answer, spans}``, the
    answer as annotated (a row whose answer differs from the task's is not used)."""
    if path is None:
        return {}
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                row = json.loads(line)
                out[(str(row["system"]), int(row["article_id"]))] = row
            except (ValueError, KeyError, TypeError) as exc:
                raise DatasetError(f"{path}:{n}: not a reference-span row ({exc})") from None
    return out


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _antecedent(
    task: Mapping[str, Any], rule: Mapping[str, Any], span: tuple[int, int], rng: random.Random
) -> Any:
    """A plausible antecedent where the type asks for one: another sentence, or a passage's marked part."""
    if rule["antecedent"] == "none":
        return None
    if "passage" in rule["antecedent_in"]:
        for entry in task.get("passages") or []:
            for group in entry["groups"]:
                for p in group["passages"]:
                    h = p["highlight"]
                    return {
                        "source": "passage",
                        "passage_id": p["passage_id"],
                        "start": h["start"],
                        "end": h["end"],
                    }
    if "answer" in rule["antecedent_in"]:
        others = [s for s in task["answer"]["sentences"] if s["end"] <= span[0] or s["start"] >= span[1]]
        if others:
            s = rng.choice(others)
            start, end = _trimmed(task["answer"]["text"], s["start"], s["end"])
            if start < end:
                return {"source": "answer", "start": start, "end": end}
    return None


def simulate_error_spans(
    task: Mapping[str, Any],
    secret: Mapping[str, Any],
    taxonomy: Taxonomy,
    settings: ErrorSimulation,
    rng: random.Random,
    reference: Mapping[tuple[str, int], Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """One simulated assessor's ``error_spans`` for an errors task (valid for the task, normalised)."""
    text = task["answer"]["text"]
    rules = {t["name"]: t for t in task["error_types"]}
    recall = settings.recall.get(task["part"], 0.0)
    passages = task.get("passages") is not None
    wanted: list[tuple[int, int, list[str], Mapping[str, Any] | None]] = []  # start, end, right, reference
    if secret.get("deteriorated"):
        for e in secret["edits"]:
            right = [n for n in taxonomy.names_for_edit(e["type"], passages) if n in rules]
            start, end = _trimmed(text, e["start"], e["end"])
            if start < end:
                wanted.append((start, end, right, None))
    else:
        row = (reference or {}).get((str(secret.get("system")), int(task["article_id"])))
        if row is not None and row.get("answer") == text:
            for s in row["spans"]:
                if s["type"] in rules:
                    wanted.append((s["start"], s["end"], [s["type"]], s))
    spans = []
    for start, end, right, ref in wanted:
        if rng.random() >= recall:
            continue
        wrong = [n for n in rules if n not in right]
        if right and (rng.random() < settings.type_accuracy or not wrong):
            kind = rng.choice(right)
        else:
            kind = rng.choice(wrong)
        ante = _antecedent(task, rules[kind], (start, end), rng)
        if ref is not None and kind == ref["type"]:  # the annotator's own antecedent, where it fits
            ours = {k: ref[k] for k in ("start", "end", "type", "severity")} | {
                "antecedent": ref.get("antecedent")
            }
            if error_spans_problem([ours], task) is None:
                ante = ref.get("antecedent")
        if rules[kind]["antecedent"] == "required" and ante is None:
            continue
        spans.append(
            {
                "start": start,
                "end": end,
                "type": kind,
                "severity": (ref or {}).get("severity")
                or rng.choices(SEVERITIES, settings.severity_weights)[0],
                "note": (ref or {}).get("note") if ref is not None and kind == ref["type"] else None,
                "antecedent": ante,
            }
        )
    unique = {(s["start"], s["end"], s["type"]): s for s in spans}
    return normalised(list(unique.values()), task)


def reference_rows(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, int], Mapping[str, Any]]:
    return {(str(r["system"]), int(r["article_id"])): r for r in rows}


__all__ = ["ErrorSimulation", "read_reference", "reference_rows", "simulate_error_spans"]
