"""Label Studio for the ``errors`` parts: the task data, the labeling configuration, and the export read
back as ``error_spans`` (docs/humaneval-formats.md §5).

An error is a ``labels`` region of the answer labelled with its type; its severity (``Choices``) and
note (``TextArea``) are per-region controls; its antecedent is a region labelled ``Antecedent`` (in the
answer, or in the flattened passages of trial B) that the error region is related to (a Label Studio
relation drawn from the error to it). The flattened passages carry ``passage_spans`` (where each passage
lies in that text), so an antecedent in them is turned back into a passage id and passage offsets. Only
the ``JSON`` export keeps per-region controls and relations, so an errors project is read from it only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import quoteattr

from wikihowqa.humaneval.taxonomy import SEVERITIES

ANTECEDENT = "Antecedent"


def flatten_passages(
    answer: str, per_sentence: Sequence[Mapping[str, Any]]
) -> tuple[str, list[tuple[int, int]]]:
    """One text with each answer sentence followed by its passages; the marked spans in its offsets
    (shared with ``labelstudio``, which imports it from here)."""
    parts: list[str] = []
    marks: list[tuple[int, int]] = []
    cursor = 0

    def put(piece: str) -> int:
        nonlocal cursor
        parts.append(piece)
        start = cursor
        cursor += len(piece)
        return start

    for entry in per_sentence:
        put(f"[Sentence {entry['sentence'] + 1}] {answer[entry['start'] : entry['end']]}\n")
        if not entry["groups"]:
            put("(no passage found)\n")
        for group in entry["groups"]:
            put(f"— {group['title'] or 'Untitled document'} ({group['url']})\n")
            for p in group["passages"]:
                base = put(p["text"])
                marks.append((base + p["highlight"]["start"], base + p["highlight"]["end"]))
                put("\n\n")
        put("\n")
    return "".join(parts), marks


def flatten_with_positions(
    answer: str, per_sentence: Sequence[Mapping[str, Any]]
) -> tuple[str, list[tuple[int, int]], list[list[Any]]]:
    """:func:`flatten_passages`' text and marks, and ``[start, end, passage_id]`` of every
    passage in it."""

    text, marks = flatten_passages(answer, per_sentence)
    positions: list[list[Any]] = []
    cursor = 0
    for entry in per_sentence:
        for group in entry["groups"]:
            for p in group["passages"]:
                start = text.index(p["text"], cursor)
                positions.append([start, start + len(p["text"]), p["passage_id"]])
                cursor = start + len(p["text"])
    return text, marks, positions


def errors_data(task: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[int, int]], str]:
    """The ``data`` fields of an errors task (besides id, question and options), the marks, the text."""
    data: dict[str, Any] = {"answer": task["answer"]["text"]}
    if task.get("passages") is None:
        return data, [], ""
    text, marks, positions = flatten_with_positions(task["answer"]["text"], task["passages"])
    data.update(passages=text, passage_spans=positions)
    return data, marks, text


def errors_config(passages: bool, taxonomy: Mapping[str, Any] | None, offered: Sequence[str]) -> str:
    """The labeling configuration body of an errors part: the type labels (with their definitions as
    hints), severity and note per region, antecedent labels, and the relation."""
    types = {t["name"]: t for t in (taxonomy or {}).get("types", [])}
    labels = "".join(
        f"<Label value={quoteattr(n)} hint={quoteattr(types.get(n, {}).get('definition', ''))} "
        'background="#e57373"/>'
        for n in offered
    )
    body = (
        '<Header value="Mark every error: select it, pick its type, severity and (optional) note; for a '
        'repetition or contradiction also mark its Antecedent and draw a relation from the error to it"/>'
        f'<Labels name="error_spans" toName="answer">{labels}'
        f'<Label value="{ANTECEDENT}" background="#90caf9"/></Labels>'
        '<Text name="answer" value="$answer"/>'
        '<Relations><Relation value="antecedent"/></Relations>'
        '<View visibleWhen="region-selected" whenTagName="error_spans">'
        '<Choices name="severity" toName="answer" perRegion="true" choice="single-radio" required="true">'
        + "".join(f'<Choice value="{s}"/>' for s in SEVERITIES)
        + '</Choices><TextArea name="note" toName="answer" perRegion="true" maxSubmissions="1" '
        'placeholder="Optional note (one line)"/></View>'
    )
    if passages:
        body += (
            '<Header value="Passages for each answer sentence"/>'
            '<Labels name="marked_passages" toName="passages"><Label value="Most relevant" '
            f'background="#fff59d"/><Label value="{ANTECEDENT}" background="#90caf9"/></Labels>'
            '<Text name="passages" value="$passages"/>'
        )
    return body


def _region_value(r: Mapping[str, Any]) -> Mapping[str, Any]:
    return r.get("value") or {}


def error_spans_from_results(
    results: Sequence[Mapping[str, Any]], data: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """An annotation's results as ``error_spans`` (not yet checked: the analysis holds them to the
    format and names what is wrong). Regions listed twice count once."""
    regions: dict[str, dict[str, Any]] = {}
    severity: dict[str, list[str]] = {}
    notes: dict[str, list[str]] = {}
    relations: list[tuple[str, str]] = []
    for r in results:
        rid = str(r.get("id"))
        value = _region_value(r)
        kind = r.get("type")
        if kind == "labels" and r.get("from_name") in {"error_spans", "marked_passages"}:
            regions[rid] = {"from": r.get("from_name"), **value}
        elif kind == "choices" and r.get("from_name") == "severity":
            severity.setdefault(rid, []).extend(value.get("choices") or ())
        elif kind == "textarea" and r.get("from_name") == "note":
            notes.setdefault(rid, []).extend(value.get("text") or ())
        elif kind == "relation":
            relations.append((str(r.get("from_id")), str(r.get("to_id"))))
    out: list[dict[str, Any]] = []
    for rid, region in regions.items():
        labels = list(region.get("labels") or ())
        if region["from"] != "error_spans" or not labels or labels == [ANTECEDENT]:
            continue
        ante = next((_antecedent(regions[b], data) for a, b in relations if a == rid and b in regions), None)
        chosen = list(dict.fromkeys(severity.get(rid, [])))
        text = " ".join(t.strip() for t in notes.get(rid, []) if t.strip())
        for label in labels:
            if label == ANTECEDENT:
                continue
            span = {
                "start": region.get("start"),
                "end": region.get("end"),
                "type": label,
                "severity": chosen[0] if len(chosen) == 1 else (chosen or None),
                "note": text or None,
                "antecedent": ante,
            }
            if span not in out:
                out.append(span)
    return sorted(out, key=lambda s: (str(s["start"]), str(s["end"]), s["type"]))


def _antecedent(region: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    start, end = region.get("start"), region.get("end")
    if region["from"] == "error_spans":
        return {"source": "answer", "start": start, "end": end}
    for p_start, p_end, pid in data.get("passage_spans") or ():
        if isinstance(start, int) and isinstance(end, int) and p_start <= start and end <= p_end:
            return {"source": "passage", "passage_id": pid, "start": start - p_start, "end": end - p_start}
    return {"source": "passage", "passage_id": None, "start": start, "end": end}  # named invalid later


__all__ = ["ANTECEDENT", "error_spans_from_results", "errors_config", "errors_data", "flatten_with_positions"]
