"""The ``errors`` part's judgment: typed error spans in an answer (docs/humaneval-formats.md §4).

A row of an ``errors`` task holds ``error_spans``: each a span of ``answer.text`` with a type from the
task's ``error_types`` (the study taxonomy's types offered with or without passages), a severity, an
optional one-line note and, where the type asks for one, an antecedent: a span elsewhere in the answer
or in one of the task's passages. The server, the simulator, the Label Studio import and the analysis
all hold rows to :func:`error_spans_problem`, so what one writes the others read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from wikihowqa.humaneval.taxonomy import SEVERITIES, Taxonomy

NOTE_CHARS = 200


class Antecedent(BaseModel):
    """What a redundancy or contradiction refers back to: ``source`` ``answer`` (offsets into
    ``answer.text``) or ``passage`` (offsets into that passage's ``text``)."""

    model_config = ConfigDict(extra="allow")

    source: Literal["answer", "passage"]
    passage_id: str | None = None
    start: int
    end: int
    text: str | None = None


class ErrorSpan(BaseModel):
    """One marked error: ``answer.text[start:end]``, its type, severity, note and antecedent."""

    model_config = ConfigDict(extra="allow")

    start: int
    end: int
    text: str | None = None
    type: str
    severity: Literal["minor", "major", "critical"]
    note: str | None = None
    antecedent: Antecedent | None = None


def task_error_types(taxonomy: Taxonomy, passages: bool) -> list[dict[str, Any]]:
    """What an ``errors`` task lists under ``error_types``: the offered types' names and antecedent
    rules (labels, definitions and examples are in ``study.json``; nothing here is answer key)."""
    return [
        {"name": t.name, "antecedent": t.antecedent, "antecedent_in": list(t.antecedent_sources(passages))}
        for t in taxonomy.offered(passages)
    ]


def task_passages(task: Mapping[str, Any]) -> dict[str, str]:
    """The passages an ``errors`` task shows, by id (none in trial A)."""
    out: dict[str, str] = {}
    for entry in task.get("passages") or []:
        for group in entry.get("groups", []):
            for p in group.get("passages", []):
                out[str(p["passage_id"])] = str(p["text"])
    return out


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _offsets(item: Mapping[str, Any], text: str, what: str) -> str | None:
    if not _whole(item.get("start")) or not _whole(item.get("end")):
        return f"{what} needs integer start and end"
    if not 0 <= item["start"] < item["end"] <= len(text):
        return f"{what} {item['start']}:{item['end']} is outside the text (length {len(text)}) or empty"
    if item.get("text") is not None and item["text"] != text[item["start"] : item["end"]]:
        return f"{what} text does not match its offsets"
    return None


def _antecedent_problem(
    ante: Any,
    rule: Mapping[str, Any],
    span: Mapping[str, Any],
    answer: str,
    passages: Mapping[str, str],
    what: str,
) -> str | None:
    if ante is None:
        return (
            f"{what} needs an antecedent (type {span['type']})" if rule["antecedent"] == "required" else None
        )
    if rule["antecedent"] == "none":
        return f"{what} has an antecedent, which type {span['type']} does not take"
    if not isinstance(ante, Mapping) or ante.get("source") not in rule["antecedent_in"]:
        where = " or ".join(rule["antecedent_in"]) or "nowhere"
        return f"{what}.antecedent.source must be {where} for type {span['type']}"
    if ante["source"] == "answer":
        problem = _offsets(ante, answer, f"{what}.antecedent")
        if problem is None and ante["start"] < span["end"] and span["start"] < ante["end"]:
            return f"{what}.antecedent overlaps the span itself"
        return problem
    pid = ante.get("passage_id")
    if not isinstance(pid, str) or pid not in passages:
        return f"{what}.antecedent.passage_id {pid!r:.60} is not a passage of this task"
    return _offsets(ante, passages[pid], f"{what}.antecedent")


def error_spans_problem(spans: Any, task: Mapping[str, Any]) -> str | None:
    """Why ``spans`` are not the ``error_spans`` of this ``errors`` task (None when they are)."""
    if not isinstance(spans, list):
        return "error_spans must be a list"
    answer = task["answer"]["text"]
    rules = {str(r["name"]): r for r in task.get("error_types", [])}
    passages = task_passages(task)
    seen: set[tuple[int, int, str]] = set()
    for k, s in enumerate(spans):
        what = f"error_spans[{k}]"
        if not isinstance(s, Mapping):
            return f"{what} must be an object"
        problem = _offsets(s, answer, what)
        if problem:
            return problem
        rule = rules.get(s.get("type"))  # type: ignore[arg-type]
        if rule is None:
            return f"{what}.type must be one of {', '.join(rules)}, got {s.get('type')!r:.40}"
        if s.get("severity") not in SEVERITIES:
            return f"{what}.severity must be one of {', '.join(SEVERITIES)}"
        note = s.get("note")
        if note is not None and (not isinstance(note, str) or "\n" in note or len(note) > NOTE_CHARS):
            return f"{what}.note must be one line of at most {NOTE_CHARS} characters"
        problem = _antecedent_problem(s.get("antecedent"), rule, s, answer, passages, what)
        if problem:
            return problem
        ident = (s["start"], s["end"], s["type"])
        if ident in seen:
            return f"{what} repeats a span of the same type"
        seen.add(ident)
    return None


def normalised(spans: Sequence[Mapping[str, Any]], task: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Valid spans as the server stores them: sorted, each with its ``text`` (and its antecedent's),
    ``note`` null when empty."""
    answer = task["answer"]["text"]
    passages = task_passages(task)
    out = []
    for s in sorted(spans, key=lambda s: (s["start"], s["end"], s["type"])):
        ante = s.get("antecedent")
        if ante is not None:
            source = answer if ante["source"] == "answer" else passages[ante["passage_id"]]
            ante = {
                "source": ante["source"],
                **({"passage_id": ante["passage_id"]} if ante["source"] == "passage" else {}),
                "start": ante["start"],
                "end": ante["end"],
                "text": source[ante["start"] : ante["end"]],
            }
        out.append(
            {
                "start": s["start"],
                "end": s["end"],
                "text": answer[s["start"] : s["end"]],
                "type": s["type"],
                "severity": s["severity"],
                "note": (s.get("note") or "").strip() or None,
                "antecedent": ante,
            }
        )
    return out


def iter_error_spans(row: Mapping[str, Any]) -> Iterator[ErrorSpan]:
    """The typed spans of a (valid) judgment row."""
    for s in row.get("error_spans") or []:
        yield ErrorSpan.model_validate(s)


__all__ = [
    "NOTE_CHARS",
    "Antecedent",
    "ErrorSpan",
    "error_spans_problem",
    "iter_error_spans",
    "normalised",
    "task_error_types",
    "task_passages",
]
