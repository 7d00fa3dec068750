"""One judgment, one model: what a judgments.jsonl row is (docs/humaneval-formats.md §4).

The study server and the simulated assessors write their rows through :class:`Judgment`
(``app/submission.py`` first holds a browser's request to what the page can produce: stricter checks, with
messages for the page), and the analysis reads every row, from the server, a script or a Label Studio
export, through the same model and :func:`judgment_problem` (``analysis/screening.py``), so what the
server writes is what the analysis accepts (tested).
A problem is one sentence naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from wikihowqa.humaneval.errorspans import error_spans_problem
from wikihowqa.humaneval.tasks import CHOICES, FORMAT_VERSION, READ_FORMAT_VERSIONS, SCALES, SPAN_LABELS

#: What the page logs: a sentence's passages opened, a passage scrolled into view; in an ``errors`` task
#: also an error span added, changed (type, severity, note, antecedent) or removed (version 2).
EVENT_KINDS: tuple[str, ...] = ("sentence_open", "passage_view", "span_add", "span_change", "span_remove")


def _problem(message: str) -> PydanticCustomError:
    return PydanticCustomError("judgment", message)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Event(BaseModel):
    """One entry of the interaction log; ``sentence`` (and ``side`` in an A/B task) say where."""

    model_config = ConfigDict(extra="allow")

    t_ms: Any = None
    kind: str
    sentence: Any = None
    side: Any = None
    passage_id: Any = None


class Judgment(BaseModel):
    """A judgments.jsonl row. Field order is the row's (the server dumps it with ``exclude_unset``), one
    part's fields present: ``relevance``/``highlights``, ``familiarity``/``usefulness``/``spans``,
    ``choice`` or ``error_spans``. Unknown fields are kept (a future writer's additions are not this
    reader's business)."""

    model_config = ConfigDict(extra="allow")

    format_version: Any = FORMAT_VERSION
    judgment_id: Any = None
    study_id: Any = None
    task_id: Any = None
    assessor_id: Any = Field(default=None, validate_default=True)
    started_at: Any = None
    submitted_at: Any = None
    duration_ms: Any = None
    client_duration_ms: Any = None
    attention: Any = None
    relevance: Any = None
    highlights: Any = None
    familiarity: Any = None
    usefulness: Any = None
    spans: Any = None
    choice: Any = None
    error_spans: Any = None
    events: Any = None
    active_ms: Any = None

    @field_validator("format_version", mode="before")
    @classmethod
    def _version(cls, value: Any) -> Any:
        if value not in READ_FORMAT_VERSIONS:
            raise _problem(f"unsupported format_version {value!r}")
        return value

    @field_validator("assessor_id", mode="before")
    @classmethod
    def _assessor(cls, value: Any) -> Any:
        if not isinstance(value, str) or not value:
            raise _problem("missing assessor_id")
        return value

    @field_validator("duration_ms", mode="before")
    @classmethod
    def _duration(cls, value: Any) -> Any:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0):
            raise _problem("duration_ms must be a non-negative number or null")
        return value

    @field_validator("events", mode="before")
    @classmethod
    def _events(cls, value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, list):
            raise _problem("events must be a list or null")
        for k, e in enumerate(value):
            if not isinstance(e, Mapping) or e.get("kind") not in EVENT_KINDS:
                raise _problem(f"events[{k}].kind must be one of {', '.join(EVENT_KINDS)}")
        return [Event.model_validate(dict(e)) for e in value]

    def row(self) -> dict[str, Any]:
        """The judgments.jsonl row: the fields that were given, in the model's order."""
        return self.model_dump(exclude_unset=True, exclude_none=False)


def span_problem(spans: Any, text: str, what: str, *, labelled: bool) -> str | None:
    """Why ``spans`` are not spans of ``text`` (integer offsets inside it, a known label if labelled)."""
    if not isinstance(spans, list):
        return f"{what} must be a list"
    for k, s in enumerate(spans):
        if not isinstance(s, Mapping) or not _whole(s.get("start")) or not _whole(s.get("end")):
            return f"{what}[{k}] needs integer start and end"
        if not 0 <= s["start"] < s["end"] <= len(text):
            return f"{what}[{k}] {s['start']}:{s['end']} is outside the text (length {len(text)}) or empty"
        if labelled and s.get("label") not in SPAN_LABELS:
            return f"{what}[{k}] label must be one of {', '.join(SPAN_LABELS)}"
    return None


def scale_problem(value: Any, name: str, scales: Mapping[str, Mapping[str, Any]] = SCALES) -> str | None:
    scale = scales.get(name, SCALES[name])
    if not _whole(value) or not scale["min"] <= value <= scale["max"]:
        return f"{name} must be an integer from {scale['min']} to {scale['max']}, got {value!r:.40}"
    return None


def choice_problem(value: Any) -> str | None:
    if not isinstance(value, str) or value not in CHOICES:
        return f"choice must be one of {', '.join(CHOICES)}, got {value!r:.20}"
    return None


def model_problem(row: Mapping[str, Any]) -> tuple[Judgment | None, str | None]:
    """The row as a :class:`Judgment`, or why it is not one (the first problem, in field order)."""
    try:
        return Judgment.model_validate(dict(row)), None
    except ValidationError as exc:
        return None, str(exc.errors()[0]["msg"])


def judgment_problem(row: Mapping[str, Any], task: Mapping[str, Any] | None) -> str | None:
    """Why a judgment row breaks the format for its task (None when it is well formed)."""
    judgment, problem = model_problem(row)
    if judgment is None:
        if problem and problem.startswith("unsupported format_version"):
            return problem
        if task is None:
            return f"unknown task {row.get('task_id')!r}"
        return problem
    if task is None:
        return f"unknown task {row.get('task_id')!r}"
    kind = task["type"]
    if kind == "relevance":
        return scale_problem(judgment.relevance, "relevance") or span_problem(
            row.get("highlights", []), task["document"]["text"], "highlights", labelled=False
        )
    if kind == "answer":
        return (
            scale_problem(judgment.familiarity, "familiarity")
            or scale_problem(judgment.usefulness, "usefulness")
            or span_problem(row.get("spans", []), task["answer"]["text"], "spans", labelled=True)
        )
    if kind == "errors":
        return error_spans_problem(row.get("error_spans", []), task)
    return choice_problem(judgment.choice)


__all__ = [
    "EVENT_KINDS",
    "Event",
    "Judgment",
    "choice_problem",
    "judgment_problem",
    "model_problem",
    "scale_problem",
    "span_problem",
]
