"""Check what a browser submits against its task and turn it into a judgment line.

The contract is docs/humaneval-formats.md §4. The checks here are stricter than the analysis' (which
must also read Label Studio exports): spans must not overlap, events must point at sentences and
passages that exist, and nothing is accepted that the page could not have produced. The row is built
through the one judgment model (``humaneval.judgment``) and its checks, so whatever passes is exactly
what ``wikihowqa analyze`` accepts as well-formed (tested). Every rejection is one sentence that
names the field, so the page can show it and a script author can fix the request.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from wikihowqa.humaneval.errorspans import error_spans_problem, normalised
from wikihowqa.humaneval.judgment import EVENT_KINDS, Judgment, choice_problem, scale_problem, span_problem
from wikihowqa.humaneval.tasks import FORMAT_VERSION, READ_FORMAT_VERSIONS, SCALES

#: What an errors page logs about its spans (besides opening sentences and viewing passages).
SPAN_EVENTS = ("span_add", "span_change", "span_remove")

JUDGMENT_ID = re.compile(r"^[A-Za-z0-9:_.-]{8,100}$")
MAX_SPANS = 500
MAX_EVENTS = 5000
MAX_DURATION_MS = 7 * 24 * 3600 * 1000


class SubmissionError(ValueError):
    """A submission the server refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


def _int(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SubmissionError(f"{name} must be an integer from {low} to {high}, got {value!r:.40}")
    if not low <= value <= high:
        raise SubmissionError(f"{name} must be an integer from {low} to {high}, got {value}")
    return value


def _scale(body: Mapping[str, Any], name: str, scales: Mapping[str, Mapping[str, Any]]) -> int:
    scale = scales.get(name, SCALES[name])
    if name not in body or body[name] is None:
        raise SubmissionError(f"{name} is missing: choose a value from {scale['min']} to {scale['max']}")
    problem = scale_problem(body[name], name, scales)
    if problem:
        raise SubmissionError(problem)
    return int(body[name])


def _spans(value: Any, text: str, name: str, *, labelled: bool) -> list[dict[str, Any]]:
    """Spans as code-point offsets into ``text``, sorted, non-overlapping; labelled ones get their text."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise SubmissionError(f"{name} must be a list")
    if len(value) > MAX_SPANS:
        raise SubmissionError(f"{name}: at most {MAX_SPANS} spans, got {len(value)}")
    problem = span_problem(value, text, name, labelled=labelled)
    if problem:
        raise SubmissionError(problem)
    spans = []
    for s in value:
        start, end = s["start"], s["end"]
        span: dict[str, Any] = {"start": start, "end": end}
        if labelled:
            span["label"] = s["label"]
            span["text"] = text[start:end]
        spans.append(span)
    spans.sort(key=lambda s: (s["start"], s["end"]))
    for a, b in itertools.pairwise(spans):
        if b["start"] < a["end"]:
            raise SubmissionError(
                f"{name}: spans {a['start']}:{a['end']} and {b['start']}:{b['end']} overlap"
            )
    return spans


def _passage_ids(passages: Sequence[Mapping[str, Any]] | None) -> dict[int, set[str]]:
    return {
        int(entry["sentence"]): {
            p["passage_id"] for g in entry.get("groups", []) for p in g.get("passages", [])
        }
        for entry in passages or []
    }


def _events(value: Any, task: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The interaction log: which sentences were opened and which passages came into view, and when."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise SubmissionError("events must be a list")
    if len(value) > MAX_EVENTS:
        raise SubmissionError(f"events: at most {MAX_EVENTS}, got {len(value)}")
    kind = task["type"]
    if kind in {"answer", "errors"}:
        sides: dict[str | None, tuple[int, dict[int, set[str]]]] = (
            {None: (len(task["answer"]["sentences"]), _passage_ids(task["passages"]))}
            if task.get("passages") is not None
            else {}
        )
    elif kind == "preference":
        sides = {
            s: (len(task["answers"][s]["sentences"]), _passage_ids((task.get("passages") or {}).get(s)))
            for s in ("A", "B")
        }
    else:
        sides = {}
    if kind != "errors" and value and not sides:
        raise SubmissionError("events: this task has no passages to open")
    events = []
    for k, e in enumerate(value):
        if not isinstance(e, Mapping):
            raise SubmissionError(f"events[{k}] must be an object")
        if e.get("kind") not in EVENT_KINDS:
            raise SubmissionError(f"events[{k}].kind must be one of {', '.join(EVENT_KINDS)}")
        t_ms = _int(e.get("t_ms"), f"events[{k}].t_ms", 0, MAX_DURATION_MS)
        if kind == "errors" and e["kind"] in SPAN_EVENTS:
            events.append(_span_event(e, k, t_ms, task))
            continue
        if e["kind"] in SPAN_EVENTS:
            raise SubmissionError(f"events[{k}].kind {e['kind']} belongs to error-span tasks only")
        if not sides:
            raise SubmissionError("events: this task has no passages to open")
        side = e.get("side")
        if not (side is None or isinstance(side, str)) or side not in sides:
            expected = "null" if None in sides else "A or B"
            raise SubmissionError(f"events[{k}].side must be {expected}, got {side!r:.20}")
        n_sentences, passage_ids = sides[side]
        sentence = _int(e.get("sentence"), f"events[{k}].sentence", 0, max(n_sentences - 1, 0))
        event: dict[str, Any] = {"t_ms": t_ms, "kind": e["kind"], "sentence": sentence, "side": side}
        if e["kind"] == "passage_view":
            pid = e.get("passage_id")
            if not isinstance(pid, str) or pid not in passage_ids.get(sentence, ()):
                raise SubmissionError(
                    f"events[{k}].passage_id {pid!r:.60} is not a passage of sentence {sentence}"
                )
            event["passage_id"] = pid
        events.append(event)
    return events


def _span_event(e: Mapping[str, Any], k: int, t_ms: int, task: Mapping[str, Any]) -> dict[str, Any]:
    """An error span added, changed or removed: where, and its type then (``side`` and ``sentence`` null)."""
    n = len(task["answer"]["text"])
    start = _int(e.get("start"), f"events[{k}].start", 0, n)
    end = _int(e.get("end"), f"events[{k}].end", start, n)
    types = [t["name"] for t in task.get("error_types", [])]
    error_type = e.get("error_type")
    if error_type is not None and error_type not in types:
        raise SubmissionError(f"events[{k}].error_type must be one of {', '.join(types)} or null")
    event = {"t_ms": t_ms, "kind": e["kind"], "sentence": None, "side": None, "start": start, "end": end}
    return {**event, "error_type": error_type}


def _error_spans(value: Any, task: Mapping[str, Any]) -> list[dict[str, Any]]:
    if value is None:
        return []
    if isinstance(value, list) and len(value) > MAX_SPANS:
        raise SubmissionError(f"error_spans: at most {MAX_SPANS} spans, got {len(value)}")
    problem = error_spans_problem(value, task)
    if problem:
        raise SubmissionError(problem)
    return normalised(value, task)


def build_judgment(
    task: Mapping[str, Any],
    body: Any,
    *,
    study_id: str,
    assessor_id: str,
    started_at: str | None,
    submitted_at: str,
    elapsed_ms: int | None,
    scales: Mapping[str, Mapping[str, Any]] = SCALES,
) -> dict[str, Any]:
    """The judgments.jsonl row for a submission (fields in the order of the format doc), or a
    :class:`SubmissionError`. ``elapsed_ms`` is the server's own clock since the task was first shown:
    it is the stored ``duration_ms``, and what the page measured is kept apart as
    ``client_duration_ms`` (a page can send anything; the analysis flags large disagreements). Without
    ``elapsed_ms`` the page's measure is all there is."""
    if not isinstance(body, Mapping):
        raise SubmissionError("the body must be a JSON object", 400)
    jid = body.get("judgment_id")
    if not isinstance(jid, str) or not JUDGMENT_ID.match(jid):
        raise SubmissionError("judgment_id must be 8 to 100 characters of [A-Za-z0-9:_.-]")
    if body.get("format_version", FORMAT_VERSION) not in READ_FORMAT_VERSIONS:
        raise SubmissionError(f"format_version must be {FORMAT_VERSION}")
    check = task.get("attention_check")
    attention = body.get("attention")
    if check:
        if attention not in check["options"]:
            raise SubmissionError("attention must be one of the four categories shown")
    elif attention is not None:
        raise SubmissionError("attention must be null: this task has no attentiveness check")
    client = body.get("duration_ms")
    if client is not None:
        client = _int(client, "duration_ms", 0, MAX_DURATION_MS)
    duration = client if elapsed_ms is None else elapsed_ms
    judgment: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "judgment_id": jid,
        "study_id": study_id,
        "task_id": task["task_id"],
        "assessor_id": assessor_id,
        "started_at": started_at,
        "submitted_at": submitted_at,
        "duration_ms": duration,
    }
    if elapsed_ms is not None and client is not None:
        judgment["client_duration_ms"] = client
    judgment["attention"] = attention
    kind = task["type"]
    if kind == "relevance":
        judgment["relevance"] = _scale(body, "relevance", scales)
        judgment["highlights"] = _spans(
            body.get("highlights"), task["document"]["text"], "highlights", labelled=False
        )
    elif kind == "answer":
        judgment["familiarity"] = _scale(body, "familiarity", scales)
        judgment["usefulness"] = _scale(body, "usefulness", scales)
        judgment["spans"] = _spans(body.get("spans"), task["answer"]["text"], "spans", labelled=True)
    elif kind == "preference":
        problem = choice_problem(body.get("choice"))
        if problem:
            raise SubmissionError(problem)
        judgment["choice"] = body["choice"]
    elif kind == "errors":
        judgment["error_spans"] = _error_spans(body.get("error_spans"), task)
    else:  # pragma: no cover - the loader refuses unknown task types
        raise SubmissionError(f"unknown task type {kind!r}")
    judgment["events"] = _events(body.get("events"), task)
    active = body.get("active_ms")
    if active is not None:
        judgment["active_ms"] = _int(active, "active_ms", 0, MAX_DURATION_MS)
    return Judgment.model_validate(judgment).row()


__all__ = ["SubmissionError", "build_judgment"]
