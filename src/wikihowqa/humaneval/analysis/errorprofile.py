"""The ``errors`` parts' numbers (``analysis.json`` → ``error_spans``): which errors systems make, how
often, whether assessors agree on them, and whether they find the planted ones.

Definitions (tested against hand computation, scipy and the ``krippendorff`` package):

* **errors per 100 words** of a system in a part: 100 × marked spans / judged words, pooled over its
  accepted judgments (an answer judged twice counts its words twice); by type and by severity the same
  with the spans of that type or severity. The interval is scipy's percentile bootstrap resampling
  *answers* (each with all its judgments: one answer's judgments are not independent), paired, with the
  ratio of sums as the statistic;
* **major share**: the share of accepted judgments marking at least one ``major`` or ``critical`` span,
  with the same cluster bootstrap;
* **agreement**, over pairs of accepted judgments of one task by two assessors. A word (``text.WORD``) is
  marked by a judgment when one of its spans shares a character with it. Token-level span F1 of a pair is
  2|A∩B| / (|A|+|B|) of their marked words (symmetric), pooled over pairs (sums of both terms); typed F1
  the same with (word, type) pairs; per type, restricted to one type. *Krippendorff's alpha* here is the
  token-level (discretised) variant of unitized alpha: every word of a judged answer is a unit, each
  assessor's value is the type of the first span (by start, then type) covering it or ``none``, and
  nominal alpha is computed over all units with the ``krippendorff`` package (``alpha_binary``: error vs
  none). It is not Krippendorff's continuum u-alpha, which also weighs how far span boundaries lie apart;
* **planted edits** (controls): an edit is found when an error span shares a character with it; its type
  is right when one such span has a type the taxonomy names for the edit's deterioration type
  (``key.edit_error_types``). Recall = found / edits, type accuracy = right / found, Wilson intervals;
* **coverage**: the spans marked on systems' real answers by type, and the share whose type no
  deterioration plants (``Taxonomy.uncovered``): real errors the positive controls do not test.

Judgments whose id starts ``sim-`` are simulated assessors' (``simulate-judgments``); a section built
from them says ``simulated: true``. No real assessors' error-span results exist yet.
"""

from __future__ import annotations

import itertools
import warnings
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from wikihowqa.humaneval.analysis.statistics import proportion
from wikihowqa.humaneval.taxonomy import SEVERITIES, Taxonomy
from wikihowqa.humaneval.text import overlaps, word_spans

ERROR_PARTS = ("errors_a", "errors_b")
MAJOR = ("major", "critical")
#: The row of the planted controls beside the systems in the per-system table.
CONTROLS_ROW = "(planted controls)"
SIMULATED_NOTE = (
    "simulated assessors (simulate-judgments): planted edits and hand-annotated reference spans, not"
    " real assessors; no real assessors' error-span results exist yet"
)


def is_simulated(judgments: Sequence[Mapping[str, Any]]) -> bool:
    """Whether these judgments are simulated assessors' (``simulate-judgments`` ids start ``sim-``)."""
    return bool(judgments) and all(str(j.get("judgment_id", "")).startswith("sim-") for j in judgments)


def ratio_estimate(
    numerators: Sequence[float],
    denominators: Sequence[float],
    *,
    scale: float = 1.0,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """``scale`` × Σ numerators / Σ denominators over clusters, with scipy's paired percentile bootstrap
    over the clusters (``None`` bounds where fewer than 2 clusters or every resample is the same)."""
    num, den = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    if not num.size or den.sum() == 0:
        return {"value": None, "low": None, "high": None, "n": int(num.size)}
    value = float(scale * num.sum() / den.sum())
    low = high = None
    if num.size >= 2 and resamples > 0:
        from scipy.stats import bootstrap  # type: ignore[import-untyped]

        def ratio(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):
                return scale * a.sum(axis=axis) / b.sum(axis=axis)  # type: ignore[no-any-return]

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a degenerate sample (all equal) warns and gives NaN
            ci = bootstrap(
                (num, den),
                ratio,
                paired=True,
                vectorized=True,
                n_resamples=resamples,
                confidence_level=confidence,
                method="percentile",
                random_state=np.random.default_rng(seed),
            ).confidence_interval
        if np.isfinite(ci.low) and np.isfinite(ci.high):
            low, high = float(ci.low), float(ci.high)
    return {"value": value, "low": low, "high": high, "n": int(num.size)}


def marked_words(text: str, spans: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """Per word of ``text``: the type of the first span (by start, then type) covering it, else None."""
    ordered = sorted(spans, key=lambda s: (s["start"], s["end"], s["type"]))
    out: list[str | None] = []
    for w in word_spans(text):
        hit = next((s["type"] for s in ordered if overlaps(w, (s["start"], s["end"]))), None)
        out.append(hit)
    return out


def _typed_words(text: str, spans: Sequence[Mapping[str, Any]]) -> set[tuple[int, str]]:
    words = word_spans(text)
    return {(i, s["type"]) for s in spans for i, w in enumerate(words) if overlaps(w, (s["start"], s["end"]))}


def _f1(pairs: Sequence[tuple[set[Any], set[Any]]]) -> float | None:
    both = sum(len(a & b) for a, b in pairs)
    total = sum(len(a) + len(b) for a, b in pairs)
    return 2 * both / total if total else None


def _alpha(units: Sequence[Mapping[str, Any]], assessors: Sequence[str]) -> float | None:
    values = sorted({v for u in units for v in u.values()})
    if len(units) < 2 or len(values) < 2:
        return None
    import krippendorff  # heavy: imports scipy

    code = {v: i for i, v in enumerate(values)}
    data = np.full((len(assessors), len(units)), np.nan)
    row = {a: i for i, a in enumerate(assessors)}
    for k, u in enumerate(units):
        for a, v in u.items():
            data[row[a], k] = code[v]
    if sum(np.isfinite(data[:, k]).sum() >= 2 for k in range(len(units))) == 0:
        return None
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def agreement(
    judgments: Sequence[Mapping[str, Any]], tasks: Mapping[str, Any], types: Sequence[str]
) -> dict[str, Any]:
    """Span agreement between assessors on the same answers (module docstring)."""
    by_task: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for j in judgments:
        by_task[j["task_id"]].append(j)
    untyped: list[tuple[set[Any], set[Any]]] = []
    typed: list[tuple[set[Any], set[Any]]] = []
    units: list[dict[str, str]] = []
    assessors = sorted({j["assessor_id"] for j in judgments})
    for task_id, js in sorted(by_task.items()):
        text = tasks[task_id]["answer"]["text"]
        words = {j["assessor_id"]: marked_words(text, j.get("error_spans") or []) for j in js}
        spans = {j["assessor_id"]: _typed_words(text, j.get("error_spans") or []) for j in js}
        for a, b in itertools.combinations(sorted(words), 2):
            typed.append((spans[a], spans[b]))
            untyped.append(({i for i, _ in spans[a]}, {i for i, _ in spans[b]}))
        if len(words) >= 2:
            for k in range(len(word_spans(text))):
                units.append({a: (w[k] or "none") for a, w in words.items()})
    per_type = {}
    for t in types:
        chosen = [({x for x in a if x[1] == t}, {x for x in b if x[1] == t}) for a, b in typed]
        marked = sum(len(a) + len(b) for a, b in chosen)
        if marked:
            per_type[t] = {"f1": _f1(chosen), "marked_words": marked}
    binary = [{a: ("error" if v != "none" else "none") for a, v in u.items()} for u in units]
    return {
        "pairs": len(untyped),
        "span_f1": _f1(untyped),
        "typed_span_f1": _f1(typed),
        "krippendorff_alpha": _alpha(units, assessors),
        "alpha_binary": _alpha(binary, assessors),
        "alpha_variant": "token-level nominal alpha (every word a unit; value: its span type or none)",
        "units": len(units),
        "per_type": per_type,
    }


def planted(judgments: Sequence[Mapping[str, Any]], key: Mapping[str, Any]) -> dict[str, Any]:
    """Recall and type accuracy on the controls' planted edits, pooled and by deterioration type."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # edits, found, right type
    for j in judgments:
        k = key[j["task_id"]]
        spans = j.get("error_spans") or []
        for e, right in zip(k["edits"], k.get("edit_error_types") or [[]] * len(k["edits"]), strict=True):
            hits = [s for s in spans if overlaps((s["start"], s["end"]), (e["start"], e["end"]))]
            for name in (e["type"], "all"):
                counts[name][0] += 1
                counts[name][1] += bool(hits)
                counts[name][2] += any(s["type"] in right for s in hits)
    return {
        name: {"edits": c[0], "recall": proportion(c[1], c[0]), "type_accuracy": proportion(c[2], c[1])}
        for name, c in sorted(counts.items(), key=lambda kv: (kv[0] != "all", kv[0]))
    }


def coverage(judgments: Sequence[Mapping[str, Any]], taxonomy: Taxonomy) -> dict[str, Any]:
    """Real answers' spans by type against the deterioration types that name each type."""
    count: dict[str, int] = defaultdict(int)
    for j in judgments:
        for s in j.get("error_spans") or []:
            count[s["type"]] += 1
    total = sum(count.values())
    by_type: dict[str, dict[str, Any]] = {}
    for t in taxonomy.types:
        if count.get(t.name):
            by_type[t.name] = {
                "spans": count[t.name],
                "share": count[t.name] / total,
                "planted_by": list(t.planted),
                "covered": bool(t.planted),
            }
    uncovered = sum(v["spans"] for v in by_type.values() if not v["covered"])
    return {
        "spans": total,
        "by_type": by_type,
        "uncovered": proportion(uncovered, total),
        "uncovered_types": [t for t, v in by_type.items() if not v["covered"]],
        "never_planted": list(taxonomy.uncovered()),
    }


def profile(
    judgments: Sequence[Mapping[str, Any]],
    tasks: Mapping[str, Any],
    types: Sequence[str],
    *,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """Errors per 100 words (all, by type, by severity) and the major share of one group's judgments,
    each with its cluster bootstrap over answers."""
    by_task: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for j in judgments:
        by_task[j["task_id"]].append(j)
    ids = sorted(by_task)
    words = [len(word_spans(tasks[t]["answer"]["text"])) * len(by_task[t]) for t in ids]

    def spans_where(keep: Any) -> list[int]:
        return [sum(1 for j in by_task[t] for s in j.get("error_spans") or [] if keep(s)) for t in ids]

    kw: dict[str, Any] = {"resamples": resamples, "confidence": confidence, "seed": seed}
    major = [
        sum(any(s["severity"] in MAJOR for s in j.get("error_spans") or []) for j in by_task[t]) for t in ids
    ]
    return {
        "answers": len(ids),
        "judgments": len(judgments),
        "words": sum(words),
        "spans": sum(spans_where(lambda s: True)),
        "errors_per_100_words": ratio_estimate(spans_where(lambda s: True), words, scale=100, **kw),
        "by_type": {
            t: ratio_estimate(spans_where(lambda s, t=t: s["type"] == t), words, scale=100, **kw)
            for t in types
            if any(s["type"] == t for j in judgments for s in j.get("error_spans") or [])
        },
        "by_severity": {
            v: ratio_estimate(spans_where(lambda s, v=v: s["severity"] == v), words, scale=100, **kw)
            for v in SEVERITIES
        },
        "major_share": ratio_estimate(major, [len(by_task[t]) for t in ids], **kw),
    }


def error_spans_section(
    by_part: Mapping[str, Sequence[Mapping[str, Any]]],
    tasks: Mapping[str, Any],
    key: Mapping[str, Any],
    taxonomy: Taxonomy,
    *,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any] | None:
    """``analysis.json``'s ``error_spans``: per part, the per-system profile, agreement, planted-edit
    recall and type accuracy, and coverage; None when no errors part has accepted judgments."""
    parts = [p for p in ERROR_PARTS if by_part.get(p)]
    if not parts:
        return None
    every = [j for p in parts for j in by_part[p]]
    simulated = is_simulated(every)
    out: dict[str, Any] = {
        "simulated": simulated,
        **({"note": SIMULATED_NOTE} if simulated else {}),
        "taxonomy": taxonomy.name,
        "bootstrap": {
            "resamples": resamples,
            "confidence": confidence,
            "seed": seed,
            "interval": "percentile bootstrap over answers (scipy.stats.bootstrap, paired, ratio of sums)",
        },
        "parts": {},
    }
    names = list(taxonomy.names)
    for p in parts:
        judged = by_part[p]
        groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for j in judged:
            k = key[j["task_id"]]
            groups[CONTROLS_ROW if k.get("source") == "control" else str(k.get("system"))].append(j)
        real = [j for j in judged if key[j["task_id"]].get("source") != "control"]
        controls = [j for j in judged if key[j["task_id"]].get("source") == "control"]
        out["parts"][p] = {
            "systems": {
                g: profile(v, tasks, names, resamples=resamples, confidence=confidence, seed=seed)
                for g, v in sorted(groups.items())
            },
            "agreement": agreement(judged, tasks, names),
            "planted": planted(controls, key) if controls else None,
            "coverage": coverage(real, taxonomy),
        }
    return out


__all__ = [
    "CONTROLS_ROW",
    "ERROR_PARTS",
    "MAJOR",
    "agreement",
    "coverage",
    "error_spans_section",
    "is_simulated",
    "marked_words",
    "planted",
    "profile",
    "ratio_estimate",
]
