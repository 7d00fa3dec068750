"""Label Studio: export a study's tasks in its JSON import format, and read its exports back as judgments.

One project per part: ``labelstudio/<part>.json`` (tasks, with the marked passage spans as pre-annotated
``labels`` predictions) and ``labelstudio/<part>.xml`` (the labeling configuration to paste in the
project settings). Label Studio shows all of an answer's passages at once (it has no click-to-open), and
records neither sentence clicks nor passage views, so those fields of its judgments are null.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import write_json
from wikihowqa.humaneval.labelstudio_errors import (
    error_spans_from_results,
    errors_config,
    errors_data,
    flatten_passages,
)

MODEL_VERSION = "wikihowqa-passage-marker"
FORMAT_VERSION = 2  # = tasks.FORMAT_VERSION (tasks imports this module)


def _labels(marks: Iterable[tuple[int, int]], text: str, to_name: str, prefix: str) -> list[dict[str, Any]]:
    return [
        {
            "id": f"{prefix}{k}",
            "from_name": f"marked_{to_name}",
            "to_name": to_name,
            "type": "labels",
            "value": {"start": s, "end": e, "text": text[s:e], "labels": ["Most relevant"]},
        }
        for k, (s, e) in enumerate(marks)
    ]


def _options(task: Mapping[str, Any]) -> list[dict[str, str]]:
    check = task.get("attention_check")
    return [{"value": o} for o in check["options"]] if check else []


def labelstudio_task(task: Mapping[str, Any]) -> dict[str, Any]:
    """A study task as a Label Studio task (``data`` plus ``predictions`` holding the marked spans)."""
    data: dict[str, Any] = {
        "task_id": task["task_id"],
        "question": task["question"],
        "category_options": _options(task),
    }
    results: list[dict[str, Any]] = []
    if task["type"] == "relevance":
        data.update(
            answer=task["answer"]["text"],
            document=task["document"]["text"],
            document_title=task["document"]["title"],
            document_url=task["document"]["url"],
        )
    elif task["type"] == "answer":
        data["answer"] = task["answer"]["text"]
        if task.get("passages") is not None:
            text, marks = flatten_passages(task["answer"]["text"], task["passages"])
            data["passages"] = text
            results = _labels(marks, text, "passages", "m")
    elif task["type"] == "errors":
        fields, marks, text = errors_data(task)
        data.update(fields)
        results = _labels(marks, text, "passages", "m")
    else:
        for side in "AB":
            answer = task["answers"][side]["text"]
            text, marks = flatten_passages(answer, task["passages"][side])
            data[f"answer_{side.lower()}"] = answer
            data[f"passages_{side.lower()}"] = text
            results += _labels(marks, text, f"passages_{side.lower()}", side.lower())
    row: dict[str, Any] = {"data": data}
    if results:
        row["predictions"] = [{"model_version": MODEL_VERSION, "result": results}]
    return row


def _scale(name: str, to_name: str, scale: Mapping[str, Any]) -> str:
    choices = "".join(
        f'<Choice value={quoteattr(label)} alias="{scale["min"] + k}"/>'
        for k, label in enumerate(scale["labels"])
    )
    return (
        f'<Header value="{name.capitalize()}"/>'
        f'<Choices name="{name}" toName="{to_name}" choice="single-radio" '
        f'required="true" showInline="true">{choices}</Choices>'
    )


_ATTENTION = (
    '<Header value="Which category does this question belong to?"/>'
    '<Choices name="category" toName="question" choice="single-radio" required="true" '
    'value="$category_options"/>'
)


def labeling_config(
    part: str,
    scales: Mapping[str, Mapping[str, Any]],
    taxonomy: Mapping[str, Any] | None = None,
    offered: Sequence[str] = (),
) -> str:
    """The Label Studio labeling configuration (XML) of one part (errors parts: the offered types)."""
    head = '<View><Header value="$question"/><Text name="question" value="$question"/>' + _ATTENTION
    if part in {"errors_a", "errors_b"}:
        body = errors_config(part == "errors_b", taxonomy, offered)
    elif part == "relevance":
        body = (
            '<Header value="Answer"/><Text name="answer" value="$answer"/>'
            '<Header value="Supporting document: $document_title"/>'
            '<Labels name="highlights" toName="document">'
            '<Label value="Relevant" background="#ffd54f"/></Labels>'
            '<Text name="document" value="$document"/>' + _scale("relevance", "document", scales["relevance"])
        )
    elif part in {"trial_a", "trial_b"}:
        body = _scale("familiarity", "question", scales["familiarity"])
        body += (
            '<Header value="Answer: highlight useful or misleading spans"/>'
            '<Labels name="spans" toName="answer"><Label value="useful" background="#81c784"/>'
            '<Label value="misleading" background="#e57373"/></Labels><Text name="answer" value="$answer"/>'
        )
        if part == "trial_b":
            body += (
                '<Header value="Relevant passages for each answer sentence"/>'
                '<Labels name="marked_passages" toName="passages"><Label value="Most relevant" '
                'background="#fff59d"/></Labels><Text name="passages" value="$passages"/>'
            )
        body += _scale("usefulness", "answer", scales["usefulness"])
    else:
        body = ""
        for side in "ab":
            body += (
                f'<Header value="Answer {side.upper()}"/><Text name="answer_{side}" value="$answer_{side}"/>'
                f'<Labels name="marked_passages_{side}" toName="passages_{side}">'
                '<Label value="Most relevant" '
                f'background="#fff59d"/></Labels><Text name="passages_{side}" value="$passages_{side}"/>'
            )
        body += (
            '<Header value="Which answer is more useful?"/><Choices name="choice" toName="question" '
            'choice="single-radio" required="true"><Choice value="A"/><Choice value="B"/>'
            '<Choice value="tie" alias="tie"/></Choices>'
        )
    return head + body + "</View>\n"


def write_labelstudio(study: Any, folder: Path) -> dict[str, int]:
    """``<part>.json`` and ``<part>.xml`` for every part with tasks."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for part in study.manifest["parts"]:
        tasks = [labelstudio_task(t) for t in study.tasks if t["part"] == part]
        if not tasks:
            continue
        write_json(folder / f"{part}.json", tasks)
        first = next(t for t in study.tasks if t["part"] == part)
        offered = [t["name"] for t in first.get("error_types", [])]
        config = labeling_config(
            part, study.manifest["scales"], study.manifest.get("error_taxonomy"), offered
        )
        (folder / f"{part}.xml").write_text(config, encoding="utf-8")
        counts[part] = len(tasks)
    return counts


# --------------------------------------------------------------------------- exports back to judgments

#: The export formats read here; Label Studio's CSV, TSV and CONLL2003 lose the spans' labels or offsets.
EXPORT_FORMATS = ("JSON", "JSON_MIN")
SCALE_NAMES = ("relevance", "familiarity", "usefulness")


def export_format(rows: Sequence[Any], source: Any = "Label Studio export") -> str:
    """``JSON`` (tasks holding their ``annotations``) or ``JSON_MIN`` (one flat record per annotation)."""
    first = next((r for r in rows if isinstance(r, Mapping)), None)
    if first is None or len(rows) != sum(isinstance(r, Mapping) for r in rows):
        raise DatasetError(f"{source}: a Label Studio export is a JSON list of objects")
    if "annotations" in first or "data" in first:
        return "JSON"
    if "task_id" in first and ("annotation_id" in first or "annotator" in first):
        return "JSON_MIN"
    raise DatasetError(
        f"{source}: not a Label Studio export of a wikihowqa study; export the project as JSON or "
        "JSON_MIN (Export → JSON), from tasks imported from labelstudio/<part>.json"
    )


def _annotator(value: Any) -> str:
    """The annotator's Label Studio id (JSON gives ``completed_by``, JSON_MIN ``annotator``, older
    versions an object): the same person gets the same assessor id from either format."""
    if isinstance(value, Mapping):
        value = value.get("id", value.get("email"))
    return f"labelstudio-{value}"


def _one(values: Sequence[Any]) -> Any:
    """The answer of a single-choice control: None when missing; the distinct values when they conflict
    (so the analysis rejects the judgment as invalid instead of picking one)."""
    distinct: list[Any] = []
    for v in values:
        if v not in distinct:
            distinct.append(v)
    if not distinct:
        return None
    return distinct[0] if len(distinct) == 1 else distinct


def _scale_value(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value  # a configuration without the scale's aliases: rejected as invalid, named
    return value


def _judgment(
    task_id: str,
    study_id: str,
    annotation_id: Any,
    annotator: Any,
    created_at: Any,
    lead_time: Any,
    choices: Mapping[str, list[Any]],
    regions: Mapping[str, list[Mapping[str, Any]]],
) -> dict[str, Any]:
    """One judgment from an annotation's choices and text regions, whichever format they came in.
    Regions repeated within the annotation (what Label Studio's restored drafts leave) count once."""
    try:
        duration = None if lead_time is None else round(float(lead_time) * 1000)
    except (TypeError, ValueError):
        duration = None
    judgment: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "judgment_id": f"labelstudio-{annotation_id}",
        "study_id": study_id,
        "task_id": task_id,
        "assessor_id": _annotator(annotator),
        "started_at": None,
        "submitted_at": created_at,
        "duration_ms": duration,
        "attention": _one(choices.get("category", [])),
        "events": None,
    }
    for name in SCALE_NAMES:
        if choices.get(name):
            judgment[name] = _scale_value(_one(choices[name]))
    if choices.get("choice"):
        judgment["choice"] = _one(choices["choice"])
    if task_id.startswith("relevance:"):
        judgment["highlights"] = _unique(
            {"start": r.get("start"), "end": r.get("end")} for r in regions.get("highlights", [])
        )
    elif task_id.startswith("trial_"):
        judgment["spans"] = _unique(
            {"start": r.get("start"), "end": r.get("end"), "label": str(label).lower()}
            for r in regions.get("spans", [])
            for label in r.get("labels") or ()
        )
    return judgment


def _unique(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _from_json(export: Sequence[Mapping[str, Any]], study_id: str) -> list[dict[str, Any]]:
    judgments = []
    for task in export:
        data = task.get("data") or {}
        task_id = data.get("task_id")
        if not task_id:
            raise DatasetError(
                "Label Studio export: a task has no data.task_id (not exported from a wikihowqa study)"
            )
        for ann in task.get("annotations") or ():
            if ann.get("was_cancelled"):
                continue
            choices: dict[str, list[Any]] = defaultdict(list)
            regions: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
            for r in ann.get("result") or ():
                value = r.get("value") or {}
                if r.get("type") == "choices":
                    choices[r.get("from_name")] += list(value.get("choices") or ())
                elif r.get("type") == "labels":
                    regions[r.get("from_name")].append(value)
            judgment = _judgment(
                str(task_id),
                study_id,
                ann.get("id"),
                ann.get("completed_by"),
                ann.get("created_at"),
                ann.get("lead_time"),
                choices,
                regions,
            )
            if str(task_id).startswith("errors_"):
                judgment["error_spans"] = error_spans_from_results(ann.get("result") or (), data)
            judgments.append(judgment)
    return judgments


def _choices_min(value: Any) -> list[Any]:
    """A JSON_MIN control value as a list of choices: a string (one choice), ``{"choices": [...]}``, or a
    list of either (the control answered more than once)."""
    if isinstance(value, list):
        return [c for v in value for c in _choices_min(v)]
    if isinstance(value, Mapping):
        return list(value.get("choices") or ())
    return [] if value is None else [value]


def _regions_min(value: Any) -> list[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        value = [value]
    return [r for r in value or () if isinstance(r, Mapping)] if isinstance(value, list) else []


def _from_json_min(export: Sequence[Mapping[str, Any]], study_id: str) -> list[dict[str, Any]]:
    judgments = []
    for row in export:
        task_id = row.get("task_id")
        if not task_id:
            raise DatasetError(
                "Label Studio export: a record has no task_id (not exported from a wikihowqa study)"
            )
        if str(task_id).startswith("errors_"):
            raise DatasetError(
                f"Label Studio export: task {task_id} is an error-span task, and JSON_MIN drops their "
                "severities, notes and antecedents; export that project as JSON"
            )
        choices = {
            name: _choices_min(row.get(name)) for name in ("category", "choice", *SCALE_NAMES) if name in row
        }
        regions = {name: _regions_min(row.get(name)) for name in ("spans", "highlights") if name in row}
        judgments.append(
            _judgment(
                str(task_id),
                study_id,
                row.get("annotation_id"),
                row.get("annotator"),
                row.get("created_at"),
                row.get("lead_time"),
                choices,
                regions,
            )
        )
    return judgments


def judgments_from_export(
    export: Sequence[Mapping[str, Any]], study_id: str, *, source: Any = "Label Studio export"
) -> list[dict[str, Any]]:
    """Judgments (format version 1) from a Label Studio export (JSON or JSON_MIN) of
    :func:`write_labelstudio` tasks."""
    if not export:
        return []
    if export_format(export, source) == "JSON":
        return _from_json(export, study_id)
    return _from_json_min(export, study_id)


def read_export(path: Path) -> list[dict[str, Any]]:
    try:
        rows = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not valid UTF-8 ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:
        raise DatasetError(f"{path}: unreadable JSON ({str(exc)[:100]})") from None
    if not isinstance(rows, list):
        raise DatasetError(f"{path}: a Label Studio export is a JSON list of tasks")
    return rows
