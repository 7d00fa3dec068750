"""The statistics of the paper's human evaluation, computed from a study's key and its judgments.

Definitions (section 5; docs/humaneval-formats.md):
* an edit is *found* when a span labelled ``misleading`` overlaps it (shares a character);
* IDR of a judgment = found edits / edits of its answer; a trial's IDR is the mean over its accepted
  judgments of deteriorated answers (the paper's "average percentage of identified deteriorations"); by
  type, the same restricted to edits of one type; Student's t-test (equal variances) compares trials;
* a false positive is a judgment of an intact answer with at least one misleading span;
* Cohen's kappa is averaged over pairs of assessors who rated at least ``min_common`` common items;
  Krippendorff's alpha uses every rating; the overlap coefficient of two highlight sets of unique words
  is |H1 ∩ H2| / min(|H1|, |H2|), averaged over pairs of judgments of one task;
* a judgment whose attentiveness answer is wrong is rejected (as in the paper), as is one that breaks
  the format (recorded with its reason), a repeat of a (task, assessor) pair, one by an assessor
  already seen in the other trial, or a trial or A/B task of an article the assessor had already judged
  in another task (its other version of the answer gives away the planted errors or the gold side;
  a relevance task hides nothing, so it may come after);
* a judgment whose page-measured time (``client_duration_ms``) disagrees with the server's
  (``duration_ms``) by more than 10 s and 10 % is flagged, not rejected.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from wikihowqa.errors import DatasetError
from wikihowqa.humaneval.deteriorate import EDIT_TYPES, REVIEW_TYPES
from wikihowqa.humaneval.tasks import CHOICES, EXCLUSIVE_PARTS, FORMAT_VERSION, SCALES, SPAN_LABELS, Study
from wikihowqa.humaneval.text import overlaps, words_in_spans

EVENT_KINDS = ("sentence_open", "passage_view")
#: A page's own duration may differ from the server's by network time and retried submits; beyond this
#: much (both at once: 10 s and 10 % of the server's measure) the page's clock, or the page, is suspect.
CLOCK_TOLERANCE_MS = 10_000
CLOCK_TOLERANCE_SHARE = 0.10


# --------------------------------------------------------------------------- statistics (pure)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of a proportion (scipy's implementation)."""
    if n == 0:
        return None
    from scipy.stats import binomtest

    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def sign_test(wins: int, losses: int) -> float | None:
    """Two-sided exact sign test of wins against losses, ties left out."""
    if wins + losses == 0:
        return None
    from scipy.stats import binomtest

    return float(binomtest(wins, wins + losses, 0.5).pvalue)


def student_t(a: Sequence[float], b: Sequence[float]) -> dict[str, float] | None:
    """Student's two-sample t-test with pooled variance (the paper's test)."""
    if len(a) < 2 or len(b) < 2:
        return None
    import warnings

    from scipy.stats import ttest_ind

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant samples: reported as no test below
        res = ttest_ind(b, a, equal_var=True)
    if not np.isfinite(res.statistic):
        return None
    return {"t": float(res.statistic), "p": float(res.pvalue), "df": len(a) + len(b) - 2}


def overlap_coefficient(a: set[str], b: set[str]) -> float | None:
    if not a or not b:
        return None
    return len(a & b) / min(len(a), len(b))


def cohen_kappa(r1: Sequence[int], r2: Sequence[int], weights: str | None = None) -> float:
    """Cohen's kappa exactly as ``sklearn.metrics.cohen_kappa_score`` defines it (weights on label
    indices; tested equal to it). Written out because sklearn's input validation dominates on the short
    rating vectors of assessor pairs, and a crowd study has thousands of pairs: 0.32 ms against 7.6 ms a
    pair, 23x (benchmarks/humaneval_kappa.py, 2,000 pairs, same run)."""
    labels, inverse = np.unique(np.concatenate([np.asarray(r1), np.asarray(r2)]), return_inverse=True)
    k = len(labels)
    a, b = inverse[: len(r1)], inverse[len(r1) :]
    confusion = np.zeros((k, k))
    np.add.at(confusion, (a, b), 1)
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / confusion.sum()
    if weights is None:
        w = 1.0 - np.eye(k)
    else:
        grid = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(float)
        w = grid if weights == "linear" else grid**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(1 - (w * confusion).sum() / (w * expected).sum())


def mean_pairwise_kappa(
    ratings: Mapping[Any, Mapping[str, int]], *, min_common: int = 2, weights: str | None = None
) -> tuple[float | None, int]:
    """Mean Cohen's kappa over assessor pairs sharing ``min_common`` or more items; pairs whose kappa is
    undefined (both constant on the same value) are left out. Returns (mean, pairs used)."""
    by_assessor: dict[str, dict[Any, int]] = defaultdict(dict)
    for item, row in ratings.items():
        for assessor, value in row.items():
            by_assessor[assessor][item] = value
    kappas = []
    for x, y in itertools.combinations(sorted(by_assessor), 2):
        common = set(by_assessor[x]) & set(by_assessor[y])
        if len(common) < min_common:
            continue
        ordered = sorted(common, key=str)
        r1 = [by_assessor[x][i] for i in ordered]
        r2 = [by_assessor[y][i] for i in ordered]
        if len(set(r1) | set(r2)) < 2:
            continue  # perfect agreement on a single value: kappa is 0/0
        k = cohen_kappa(r1, r2, weights)
        if np.isfinite(k):
            kappas.append(k)
    return (float(np.mean(kappas)) if kappas else None), len(kappas)


def krippendorff_alpha(
    ratings: Mapping[Any, Mapping[str, int]], level: str, domain: Sequence[int] | None = None
) -> float | None:
    """Krippendorff's alpha (the ``krippendorff`` package) over an assessors × items matrix with gaps."""
    import krippendorff

    assessors = sorted({a for row in ratings.values() for a in row})
    items = [i for i, row in ratings.items() if len(row) >= 2]
    if len(items) < 1 or len(assessors) < 2:
        return None
    matrix = np.full((len(assessors), len(items)), np.nan)
    index = {a: k for k, a in enumerate(assessors)}
    for j, item in enumerate(items):
        for a, value in ratings[item].items():
            matrix[index[a], j] = value
    values = set(np.unique(matrix[~np.isnan(matrix)]).tolist())
    if len(values) < 2:
        return None
    try:
        alpha = krippendorff.alpha(
            reliability_data=matrix,
            level_of_measurement=level,
            value_domain=list(domain) if domain is not None and level != "interval" else None,
        )
    except (ValueError, ZeroDivisionError):
        return None
    return float(alpha) if np.isfinite(alpha) else None


def summarise(values: Sequence[float]) -> dict[str, Any]:
    """n, mean, sd, median and quartiles of a sample ("describe" is the dataset-statistics stage)."""
    if not values:
        return {"n": 0, "mean": None}
    arr = np.asarray(values, dtype=float)
    return {
        "n": len(values),
        "mean": float(arr.mean()),
        "sd": float(arr.std(ddof=1)) if len(arr) > 1 else None,
        "median": float(np.median(arr)),
        "p25": float(np.percentile(arr, 25)),
        "p75": float(np.percentile(arr, 75)),
    }


def proportion(k: int, n: int) -> dict[str, Any]:
    ci = wilson_interval(k, n)
    return {"count": k, "n": n, "share": k / n if n else None, "ci95": list(ci) if ci else None}


# --------------------------------------------------------------------------- validation


@dataclass(frozen=True)
class Rejection:
    judgment_id: str
    task_id: str | None
    assessor_id: str | None
    reason: str


def _span_problem(spans: Any, text: str, what: str, *, labelled: bool) -> str | None:
    if not isinstance(spans, list):
        return f"{what} must be a list"
    for k, s in enumerate(spans):
        if (
            not isinstance(s, Mapping)
            or not isinstance(s.get("start"), int)
            or not isinstance(s.get("end"), int)
        ):
            return f"{what}[{k}] needs integer start and end"
        if not 0 <= s["start"] < s["end"] <= len(text):
            return f"{what}[{k}] {s['start']}:{s['end']} is outside the text (length {len(text)}) or empty"
        if labelled and s.get("label") not in SPAN_LABELS:
            return f"{what}[{k}] label must be one of {', '.join(SPAN_LABELS)}"
    return None


def _scale_problem(j: Mapping[str, Any], name: str) -> str | None:
    scale = SCALES[name]
    value = j.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not scale["min"] <= value <= scale["max"]:
        return f"{name} must be an integer from {scale['min']} to {scale['max']}, got {value!r}"
    return None


def judgment_problem(j: Mapping[str, Any], task: Mapping[str, Any] | None) -> str | None:
    """Why a judgment breaks the format (None when it is well formed)."""
    if j.get("format_version", FORMAT_VERSION) != FORMAT_VERSION:
        return f"unsupported format_version {j.get('format_version')!r}"
    if task is None:
        return f"unknown task {j.get('task_id')!r}"
    if not isinstance(j.get("assessor_id"), str) or not j["assessor_id"]:
        return "missing assessor_id"
    duration = j.get("duration_ms")
    if duration is not None and (
        isinstance(duration, bool) or not isinstance(duration, int | float) or duration < 0
    ):
        return "duration_ms must be a non-negative number or null"
    events = j.get("events")
    if events is not None:
        if not isinstance(events, list):
            return "events must be a list or null"
        for k, e in enumerate(events):
            if not isinstance(e, Mapping) or e.get("kind") not in EVENT_KINDS:
                return f"events[{k}].kind must be one of {', '.join(EVENT_KINDS)}"
    kind = task["type"]
    if kind == "relevance":
        return _scale_problem(j, "relevance") or _span_problem(
            j.get("highlights", []), task["document"]["text"], "highlights", labelled=False
        )
    if kind == "answer":
        return (
            _scale_problem(j, "familiarity")
            or _scale_problem(j, "usefulness")
            or _span_problem(j.get("spans", []), task["answer"]["text"], "spans", labelled=True)
        )
    if j.get("choice") not in CHOICES:
        return f"choice must be one of {', '.join(CHOICES)}, got {j.get('choice')!r}"
    return None


def screen(
    judgments: Sequence[Mapping[str, Any]], study: Study
) -> tuple[list[Mapping[str, Any]], list[Rejection]]:
    """Accepted judgments and the rejected ones with their reasons, in file order."""
    tasks, key = study.tasks_by_id(), study.key_by_id()
    accepted: list[Mapping[str, Any]] = []
    rejected: list[Rejection] = []
    seen: set[tuple[str, str]] = set()
    # Every part an assessor has judged in: with one part per assessor (the first seen), a trial A and
    # trial B pair after a relevance judgment went through (merged Label Studio exports reuse ids).
    parts_of_assessor: dict[str, set[str]] = defaultdict(set)
    exclusive = {p: set(group) - {p} for group in EXCLUSIVE_PARTS for p in group}
    # The first task of each article an assessor judged: a later trial or A/B task of that article is
    # judged knowing another version of its answer (the gold one, or a deteriorated one).
    articles_of_assessor: dict[str, dict[int, Mapping[str, Any]]] = defaultdict(dict)
    for n, j in enumerate(judgments):
        jid = str(j.get("judgment_id") or f"#{n + 1}")
        task = tasks.get(j.get("task_id"))  # type: ignore[arg-type]
        problem = judgment_problem(j, task)
        if problem:
            rejected.append(Rejection(jid, j.get("task_id"), j.get("assessor_id"), f"invalid: {problem}"))
            continue
        assert task is not None
        pair = (task["task_id"], j["assessor_id"])
        if pair in seen:
            rejected.append(
                Rejection(jid, pair[0], pair[1], "duplicate: the assessor judged this task before")
            )
            continue
        seen.add(pair)
        part = task["part"]
        clash = sorted(parts_of_assessor[j["assessor_id"]] & exclusive.get(part, set()))
        if clash:
            rejected.append(
                Rejection(jid, pair[0], pair[1], f"exclusive: the assessor already judged {clash[0]}")
            )
            continue
        parts_of_assessor[j["assessor_id"]].add(part)
        earlier = articles_of_assessor[j["assessor_id"]].setdefault(task["article_id"], task)
        if earlier is not task and task["type"] != "relevance":  # a relevance task hides nothing
            rejected.append(
                Rejection(
                    jid,
                    pair[0],
                    pair[1],
                    f"contaminated: the assessor judged article {task['article_id']} before "
                    f"({earlier['task_id']}), which gives away this task's key",
                )
            )
            continue
        truth = key[task["task_id"]].get("attention_answer")
        if truth is not None and j.get("attention") != truth:
            rejected.append(Rejection(jid, pair[0], pair[1], "inattentive: wrong category"))
            continue
        accepted.append(j)
    return accepted, rejected


# --------------------------------------------------------------------------- the analysis


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


def analyse(study: Study, judgments: Sequence[Mapping[str, Any]], *, min_common: int = 2) -> dict[str, Any]:
    """The whole report as a JSON-ready dict (``analysis.json``)."""
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
    result["time_s"] = {
        p: summarise([j["duration_ms"] / 1000 for j in v if j.get("duration_ms") is not None])
        for p, v in sorted(by_part.items())
    }
    result["passages"] = {
        p: _passage_use(by_part[p], tasks) for p in ("trial_b", "preference") if by_part.get(p)
    }
    result["clock_check"] = clock_check(judgments)
    return result


def clock_disagrees(server_ms: float, client_ms: float) -> bool:
    """Whether a page's duration is off the server's by more than the tolerance (both bounds)."""
    gap = abs(client_ms - server_ms)
    return gap > CLOCK_TOLERANCE_MS and gap > CLOCK_TOLERANCE_SHARE * server_ms


def clock_check(judgments: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Judgments whose page-measured ``client_duration_ms`` disagrees with the server's ``duration_ms``
    (written by ``wikihowqa serve``; other sources have no ``client_duration_ms`` and are not checked)."""
    checked, flagged = 0, []
    for j in judgments:
        server, client = j.get("duration_ms"), j.get("client_duration_ms")
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (server, client)):
            continue
        checked += 1
        if clock_disagrees(server, client):
            flagged.append(
                {
                    "judgment_id": j.get("judgment_id"),
                    "assessor_id": j.get("assessor_id"),
                    "task_id": j.get("task_id"),
                    "duration_ms": server,
                    "client_duration_ms": client,
                }
            )
    return {
        "checked": checked,
        "disagreeing": proportion(len(flagged), checked),
        "tolerance": {"ms": CLOCK_TOLERANCE_MS, "share": CLOCK_TOLERANCE_SHARE},
        "flagged": flagged,
    }


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


# --------------------------------------------------------------------------- files


def read_judgments(path: Path) -> list[dict[str, Any]]:
    from wikihowqa.io import iter_jsonl

    path = Path(path)
    if path.is_file() and path.stat().st_size == 0:
        return []
    return [row for _, row in iter_jsonl(path)]


def _moment(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def merge_judgments(sources: Sequence[Sequence[Mapping[str, Any]]]) -> list[Mapping[str, Any]]:
    """Judgments of several files as one list. The screening keeps the first of two judgments that
    conflict (a repeat, the other trial, a second task of an article), so merged files are put in
    submission order when every judgment says when it was submitted; else they stay in the order given."""
    rows = [j for source in sources for j in source]
    if len(sources) < 2:
        return rows
    moments = [_moment(j.get("submitted_at")) for j in rows]
    if any(m is None for m in moments):
        return rows
    order = sorted(range(len(rows)), key=lambda k: moments[k])  # type: ignore[arg-type,return-value]
    return [rows[k] for k in order]


def read_judgment_files(paths: Sequence[Path], study_id: str) -> list[Mapping[str, Any]]:
    """``judgments.jsonl`` files and Label Studio exports (``.json``: JSON or JSON_MIN; one project per
    part, so a whole study is several files), merged by :func:`merge_judgments`."""
    from wikihowqa.humaneval.labelstudio import judgments_from_export, read_export

    sources = [
        judgments_from_export(read_export(path), study_id, source=path)
        if Path(path).suffix == ".json"
        else read_judgments(path)
        for path in paths
    ]
    return merge_judgments(sources)


def find_study(judgments_path: Path, study: Path | None) -> Path:
    """The study folder: given, or the judgments file's folder (or its parent) holding study.json."""
    if study is not None:
        return Path(study)
    for candidate in (Path(judgments_path).parent, Path(judgments_path).parent.parent):
        if (candidate / "study.json").is_file():
            return candidate
    raise DatasetError(f"{judgments_path}: no study.json next to it; name the study folder with --study")


def fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def idr_rows(trials: Mapping[str, Any], parts: Sequence[str]) -> list[tuple[str, list[str], Any]]:
    """IDR rows of a report: all edits, then each edit type present, as (name, cells per part, t-test)."""
    tests = trials.get("t_test_b_vs_a") or {}
    rows: list[tuple[str, list[str], Any]] = [
        (
            "all edits",
            [f"{fmt(trials[p]['idr']['mean'])} (n={trials[p]['idr']['n']})" for p in parts],
            tests.get("idr"),
        )
    ]
    for t in REVIEW_TYPES:
        if any(t in trials[p]["by_type"] for p in parts):
            cells = [fmt(trials[p]["by_type"].get(t, {}).get("mean")) for p in parts]
            rows.append((t, cells, (tests.get("by_type") or {}).get(t)))
    return rows


def markdown_report(result: Mapping[str, Any]) -> str:
    """The analysis as Markdown: the paper's numbers first, then agreement, time and passage use."""
    j = result["judgments"]
    lines = [
        f"# Human evaluation: {result.get('study_id')}",
        "",
        f"Judgments: {j['total']} ({j['accepted']} accepted, {j['rejected']} rejected: "
        + (", ".join(f"{k} {v}" for k, v in j["rejected_by_reason"].items()) or "none")
        + ").",
        "",
    ]
    trials = result.get("trials")
    if trials:
        parts = [p for p in ("trial_a", "trial_b") if p in trials]
        lines += [
            "## Inconsistency detection rate (IDR)",
            "",
            "| | " + " | ".join(parts) + " | t (B vs A) | p |",
            "|---" * (len(parts) + 3) + "|",
        ]
        tests = trials.get("t_test_b_vs_a", {})

        def row(name: str, cells: list[Any], test: Mapping[str, Any] | None) -> None:
            lines.append(
                f"| {name} | " + " | ".join(cells) + f" | {fmt(test and test['t'])} | "
                f"{fmt(test and test['p'], 4)} |"
            )

        for name, cells, test in idr_rows(trials, parts):
            row(name, cells, test)
        for f in ("high", "low"):
            cells = [fmt(trials[p]["by_familiarity"].get(f, {}).get("mean")) for p in parts]
            row(f"familiarity {f}", cells, tests.get("by_familiarity", {}).get(f))
        lines += ["", "| | " + " | ".join(parts) + " |", "|---" * (len(parts) + 1) + "|"]
        for label, getter in [
            (
                "false positives (intact answers marked misleading)",
                lambda p: f"{trials[p]['false_positives']['count']}/{trials[p]['false_positives']['n']}",
            ),
            (
                "misleading spans touching no edit",
                lambda p: fmt(trials[p]["spurious_misleading_spans"]["share"]),
            ),
            (
                "usefulness, deteriorated",
                lambda p: fmt(trials[p]["usefulness"].get("deteriorated", {}).get("mean")),
            ),
            ("usefulness, intact", lambda p: fmt(trials[p]["usefulness"].get("intact", {}).get("mean"))),
            ("familiarity", lambda p: fmt(trials[p]["familiarity"]["mean"])),
            (
                "IDR where the edit's sentence was opened",
                lambda p: fmt(trials[p]["by_passage_opened"]["opened"]["share"]),
            ),
            (
                "IDR where it was not opened",
                lambda p: fmt(trials[p]["by_passage_opened"]["not_opened"]["share"]),
            ),
        ]:
            lines.append(f"| {label} | " + " | ".join(getter(p) for p in parts) + " |")
        lines.append("")
    rel = result.get("relevance")
    if rel:
        lines += [
            "## Document relevance",
            "",
            f"Mean relevance {fmt(rel['rating']['mean'])} (0–4, n={rel['rating']['n']}); Cohen's kappa "
            f"{fmt(rel['cohen_kappa'])} (mean over {rel['cohen_kappa_pairs']} assessor pairs); "
            "Krippendorff's "
            f"alpha {fmt(rel['krippendorff_alpha_ordinal'])} (ordinal); highlight overlap coefficient "
            f"{fmt(rel['highlight_overlap']['mean'])} (n={rel['highlight_overlap']['n']} pairs).",
            "",
        ]
    pref = result.get("preference")
    if pref:
        lines += [
            "## A/B preference against gold",
            "",
            "| system | n | model | tie | gold | sign test p |",
            "|---|---|---|---|---|---|",
        ]
        for system, r in pref.items():
            cells = [
                f"{fmt(r[o]['share'])} [{fmt(r[o]['ci95'][0])}, {fmt(r[o]['ci95'][1])}]"
                if r[o]["ci95"]
                else "–"
                for o in ("model", "tie", "gold")
            ]
            lines.append(f"| {system} | {r['n']} | " + " | ".join(cells) + f" | {fmt(r['sign_test_p'], 4)} |")
        lines.append("")
    lines += ["## Time and passage use", "", "| part | judgments | median s | mean s |", "|---|---|---|---|"]
    for p, t in result["time_s"].items():
        lines.append(f"| {p} | {t['n']} | {fmt(t.get('median'), 1)} | {fmt(t.get('mean'), 1)} |")
    clock = result.get("clock_check") or {}
    if clock.get("flagged"):
        shown = ", ".join(str(f["judgment_id"]) for f in clock["flagged"][:10])
        more = f" and {len(clock['flagged']) - 10} more" if len(clock["flagged"]) > 10 else ""
        lines += [
            "",
            f"Clock check: in {len(clock['flagged'])} of {clock['checked']} judgments the page's own "
            "duration disagrees with the server's by more than "
            f"{clock['tolerance']['ms'] // 1000} s and {clock['tolerance']['share']:.0%} (times above are "
            f"the server's): {shown}{more}.",
        ]
    for p, u in result.get("passages", {}).items():
        lines.append("")
        lines.append(
            f"{p}: {fmt(u['opened_any']['share'])} of logged judgments opened at least one sentence's "
            f"passages; mean share of sentences opened {fmt(u['sentences_opened_share']['mean'])}; "
            f"mean passage views {fmt(u['passage_views']['mean'])} "
            f"({u['judgments_without_log']} without log)."
        )
    return "\n".join(lines) + "\n"


def _clean(obj: Any) -> Any:
    if isinstance(obj, float):
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if isinstance(obj, Mapping):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    return obj


def write_analysis(result: Mapping[str, Any], out: Path) -> list[Path]:
    """``analysis.json``, ``analysis.md`` and the figures into ``out``."""
    from wikihowqa.humaneval.figures import write_figures
    from wikihowqa.io import atomic_write, write_json

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "analysis.json", _clean(result))
    with atomic_write(out / "analysis.md") as fh:
        fh.write(markdown_report(result))
    return [out / "analysis.json", out / "analysis.md", *write_figures(result, out)]


__all__ = [
    "analyse",
    "clock_check",
    "markdown_report",
    "merge_judgments",
    "read_judgment_files",
    "read_judgments",
    "screen",
    "write_analysis",
]
