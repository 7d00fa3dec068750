"""The study's numbers from its screened judgments: IDR by trial and type, false positives, t-tests,
agreement, preference against gold, time and passage use (definitions: the package's docstring)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from wikihowqa.humaneval.analysis.errorprofile import error_spans_section
from wikihowqa.humaneval.analysis.report import StudyAnalysis
from wikihowqa.humaneval.analysis.screening import clock_check, screen, unknown_tasks
from wikihowqa.humaneval.analysis.statistics import (
    krippendorff_alpha,
    mean_pairwise_kappa,
    overlap_coefficient,
    proportion,
    sign_test,
    student_t,
    summarise,
)
from wikihowqa.humaneval.deteriorate import EDIT_TYPES, REVIEW_TYPES
from wikihowqa.humaneval.tasks import SCALES, Study
from wikihowqa.humaneval.taxonomy import study_taxonomy
from wikihowqa.humaneval.text import overlaps, words_in_spans


def _found(edit: Mapping[str, Any], spans: Iterable[Mapping[str, Any]]) -> bool:
    return any(
        s["label"] == "misleading" and overlaps((s["start"], s["end"]), (edit["start"], edit["end"]))
        for s in spans
    )


def _opened_sentences(j: Mapping[str, Any], side: str | None = None) -> set[int] | None:
    events = j.get("events")
    if events is None:
        return None
    return {
        e["sentence"]
        for e in events
        if e["kind"] == "sentence_open"
        and isinstance(e.get("sentence"), int)
        and (side is None or e.get("side") in (None, side))
    }


def _idr_part(
    judgments: Sequence[Mapping[str, Any]], tasks: Mapping[str, Any], key: Mapping[str, Any]
) -> dict[str, Any]:
    per_judgment: list[float] = []
    per_type: dict[str, list[float]] = defaultdict(list)
    pooled: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_familiarity: dict[str, list[float]] = defaultdict(list)
    opened_found = {"opened": [0, 0], "not_opened": [0, 0]}
    false_pos = [0, 0]
    spurious = [0, 0]  # misleading spans on deteriorated answers that touch no edit, of all misleading spans
    usefulness: dict[str, list[int]] = defaultdict(list)
    for j in judgments:
        k = key[j["task_id"]]
        spans = j.get("spans", [])
        misleading = [s for s in spans if s["label"] == "misleading"]
        usefulness["deteriorated" if k["deteriorated"] else "intact"].append(j["usefulness"])
        if not k["deteriorated"]:
            false_pos[1] += 1
            false_pos[0] += bool(misleading)
            continue
        edits = k["edits"]
        found = [_found(e, spans) for e in edits]
        value = sum(found) / len(edits)
        per_judgment.append(value)
        by_familiarity["high" if j["familiarity"] >= 4 else "low"].append(value)
        for t in {e["type"] for e in edits}:
            mine = [f for e, f in zip(edits, found, strict=True) if e["type"] == t]
            per_type[t].append(sum(mine) / len(mine))
        for e, f in zip(edits, found, strict=True):
            pooled[e["type"]][0] += f
            pooled[e["type"]][1] += 1
        spurious[1] += len(misleading)
        spurious[0] += sum(
            1
            for s in misleading
            if not any(overlaps((s["start"], s["end"]), (e["start"], e["end"])) for e in edits)
        )
        opened = _opened_sentences(j) if tasks[j["task_id"]].get("passages") is not None else None
        if opened is not None:
            sentences = tasks[j["task_id"]]["answer"]["sentences"]
            for e, f in zip(edits, found, strict=True):
                hit = {
                    i
                    for i, s in enumerate(sentences)
                    if overlaps((s["start"], s["end"]), (e["start"], e["end"]))
                }
                bucket = opened_found["opened" if hit & opened else "not_opened"]
                bucket[0] += f
                bucket[1] += 1
    all_found = sum(v[0] for v in pooled.values())
    all_edits = sum(v[1] for v in pooled.values())
    return {
        "idr": summarise(per_judgment),
        "pooled": proportion(all_found, all_edits),
        "by_type": {
            t: {**summarise(per_type[t]), "pooled": proportion(*pooled[t])}
            for t in [*EDIT_TYPES, *[x for x in REVIEW_TYPES if x not in EDIT_TYPES]]
            if t in pooled
        },
        "by_familiarity": {f: summarise(v) for f, v in sorted(by_familiarity.items())},
        "by_passage_opened": {k: proportion(*v) for k, v in opened_found.items()},
        "false_positives": proportion(*false_pos),
        "spurious_misleading_spans": proportion(*spurious),
        "usefulness": {k: summarise(v) for k, v in sorted(usefulness.items())},
        "familiarity": summarise([j["familiarity"] for j in judgments]),
        "_values": {"idr": per_judgment, "by_type": dict(per_type), "by_familiarity": dict(by_familiarity)},
    }


def _ratings(judgments: Iterable[Mapping[str, Any]], field: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for j in judgments:
        out[j["task_id"]][j["assessor_id"]] = j[field]
    return out


def _agreement(ratings: Mapping[str, Mapping[str, int]], scale: str, min_common: int) -> dict[str, Any]:
    domain = list(range(SCALES[scale]["min"], SCALES[scale]["max"] + 1))
    kappa, pairs = mean_pairwise_kappa(ratings, min_common=min_common)
    wkappa, _ = mean_pairwise_kappa(ratings, min_common=min_common, weights="quadratic")
    return {
        "cohen_kappa": kappa,
        "cohen_kappa_pairs": pairs,
        "cohen_kappa_quadratic": wkappa,
        "krippendorff_alpha_ordinal": krippendorff_alpha(ratings, "ordinal", domain),
        "krippendorff_alpha_nominal": krippendorff_alpha(ratings, "nominal", domain),
    }


def _overlaps(judgments: Sequence[Mapping[str, Any]], field: str, text_of) -> dict[str, Any]:
    by_task: dict[str, list[set[str]]] = defaultdict(list)
    for j in judgments:
        spans = [
            (s["start"], s["end"]) for s in j.get(field, []) if field != "spans" or s["label"] == "misleading"
        ]
        by_task[j["task_id"]].append(words_in_spans(text_of(j["task_id"]), spans))
    values = [
        v
        for sets in by_task.values()
        for a, b in itertools.combinations(sets, 2)
        if (v := overlap_coefficient(a, b)) is not None
    ]
    return summarise(values)


def analyze(study: Study, judgments: Sequence[Mapping[str, Any]], *, min_common: int = 2) -> StudyAnalysis:
    """The whole report (``analysis.json``): built section by section, typed at the end."""
    tasks, key = study.tasks_by_id(), study.key_by_id()
    accepted, rejected = screen(judgments, study)
    by_part: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for j in accepted:
        by_part[tasks[j["task_id"]]["part"]].append(j)
    result: dict[str, Any] = {
        "format": "wikihowqa-analysis",
        "format_version": 1,
        "study_id": study.manifest.get("study_id"),
        "judgments": {
            "total": len(judgments),
            "accepted": len(accepted),
            "rejected": len(rejected),
            "unknown_task": unknown_tasks(judgments, study),
            "rejected_by_reason": _count(r.reason.split(":")[0] for r in rejected),
            "accepted_by_part": {p: len(v) for p, v in sorted(by_part.items())},
            "rejected_by_part": _count(tasks[r.task_id]["part"] for r in rejected if r.task_id in tasks),
            "assessors_by_part": {p: len({j["assessor_id"] for j in v}) for p, v in sorted(by_part.items())},
            "rejections": [r.__dict__ for r in rejected],
        },
    }
    trials = {p: _idr_part(by_part[p], tasks, key) for p in ("trial_a", "trial_b") if by_part.get(p)}
    if trials:
        a, b = trials.get("trial_a"), trials.get("trial_b")
        tests: dict[str, Any] = {}
        if a and b:
            tests["idr"] = student_t(a["_values"]["idr"], b["_values"]["idr"])
            tests["by_type"] = {
                t: student_t(a["_values"]["by_type"].get(t, []), b["_values"]["by_type"].get(t, []))
                for t in EDIT_TYPES
                if t in a["by_type"] or t in b["by_type"]
            }
            tests["by_familiarity"] = {
                f: student_t(
                    a["_values"]["by_familiarity"].get(f, []), b["_values"]["by_familiarity"].get(f, [])
                )
                for f in ("high", "low")
            }
        for v in trials.values():
            v.pop("_values")
        result["trials"] = {**trials, "t_test_b_vs_a": tests}
        result["trials"]["usefulness_agreement"] = {
            p: _agreement(_ratings(by_part[p], "usefulness"), "usefulness", min_common) for p in trials
        }
        result["trials"]["misleading_span_overlap"] = {
            p: _overlaps(by_part[p], "spans", lambda t: tasks[t]["answer"]["text"]) for p in trials
        }
    if by_part.get("relevance"):
        rel = by_part["relevance"]
        ratings = _ratings(rel, "relevance")
        result["relevance"] = {
            "rating": summarise([j["relevance"] for j in rel]),
            "distribution": {str(v): sum(1 for j in rel if j["relevance"] == v) for v in range(0, 5)},
            **_agreement(ratings, "relevance", min_common),
            "highlight_overlap": _overlaps(rel, "highlights", lambda t: tasks[t]["document"]["text"]),
        }
    if by_part.get("preference"):
        result["preference"] = _preference(by_part["preference"], key)
    errors = error_spans_section(by_part, tasks, key, study_taxonomy(study.manifest))
    if errors is not None:
        result["error_spans"] = errors
    result["time_s"] = {
        p: summarise([j["duration_ms"] / 1000 for j in v if j.get("duration_ms") is not None])
        for p, v in sorted(by_part.items())
    }
    result["passages"] = {
        p: _passage_use(by_part[p], tasks) for p in ("trial_b", "preference") if by_part.get(p)
    }
    result["clock_check"] = clock_check(judgments)
    return StudyAnalysis.model_validate(result)


def _count(values: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for v in values:
        out[v] += 1
    return dict(sorted(out.items()))


def _preference(judgments: Sequence[Mapping[str, Any]], key: Mapping[str, Any]) -> dict[str, Any]:
    outcomes: dict[str, dict[str, int]] = defaultdict(lambda: {"model": 0, "gold": 0, "tie": 0})
    for j in judgments:
        k = key[j["task_id"]]
        outcome = "tie" if j["choice"] == "tie" else ("gold" if j["choice"] == k["gold_side"] else "model")
        outcomes[k["system"]][outcome] += 1
    report = {}
    for system, c in sorted(outcomes.items()):
        n = sum(c.values())
        report[system] = {
            "n": n,
            **{o: proportion(c[o], n) for o in ("model", "gold", "tie")},
            "sign_test_p": sign_test(c["model"], c["gold"]),
        }
    return report


def _passage_use(judgments: Sequence[Mapping[str, Any]], tasks: Mapping[str, Any]) -> dict[str, Any]:
    logged = [j for j in judgments if j.get("events") is not None]
    opened_any = 0
    shares: list[float] = []
    views: list[int] = []
    for j in logged:
        task = tasks[j["task_id"]]
        if task["type"] == "answer":
            total = len(task["answer"]["sentences"])
            opened = len(_opened_sentences(j) or ())
        else:
            total = sum(len(task["answers"][s]["sentences"]) for s in "AB")
            opened = sum(len(_opened_sentences(j, s) or ()) for s in "AB")
        opened_any += opened > 0
        shares.append(opened / total if total else 0.0)
        views.append(sum(1 for e in j["events"] if e["kind"] == "passage_view"))
    return {
        "judgments_with_log": len(logged),
        "judgments_without_log": len(judgments) - len(logged),
        "opened_any": proportion(opened_any, len(logged)),
        "sentences_opened_share": summarise(shares),
        "passage_views": summarise(views),
    }
