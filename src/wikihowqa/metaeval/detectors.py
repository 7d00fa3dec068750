"""Automatic error detectors against the assessors' error spans (``meta_evaluation.json`` → ``detectors``).

* **Sentence level: grounding.** Each answer sentence grounding scored (``per_question.jsonl``'s
  ``grounding.sentences``, found in the answer text in order) is a unit. It is *positive* when an accepted
  judgment of the answer marks a span of a grounding type (the taxonomy's ``group: grounding``: contradicts
  the passages, not in the passages; offered with passages, so ``errors_b``) sharing a character with it.
  Grounding flags a sentence it finds unsupported (``supported: false``, i.e. support below its
  threshold). Reported: precision, recall and F1 of the flags; the curve of those over thresholds on the
  support (flag when support < t); the ROC AUC of ``1 − support`` and the average precision (area under
  the precision-recall curve, as ``sklearn.metrics.average_precision_score``).
* **Answer level: the LLM judge**, where the evaluation ran it: an answer is positive when an accepted
  judgment (either part) marks a ``major`` or ``critical`` span; the judge's score, negated, ranks the
  answers (ROC AUC; a tie counts one half).
* **Controls**: a seeded random score (sentence level: flagging the same share of sentences grounding
  flags) and a length rule (a sentence or answer scored by its word count; flagged above the median).

Intervals: the cluster bootstrap of the other meta-evaluation figures (``stats.bootstrap``; units
resampled: answers, each with all its sentences), percentile, the same seed. Built from simulated
judgments (``sim-`` ids) the section says ``simulated: true``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wikihowqa.dataset.readers import iter_jsonl
from wikihowqa.humaneval.analysis import screen
from wikihowqa.humaneval.analysis.errorprofile import MAJOR, SIMULATED_NOTE, is_simulated
from wikihowqa.humaneval.tasks import Study
from wikihowqa.humaneval.taxonomy import study_taxonomy
from wikihowqa.humaneval.text import overlaps
from wikihowqa.metaeval import stats
from wikihowqa.metaeval.join import _random_score

JUDGE_COLUMNS = {"Judge: consistency": "judge_consistency", "Judge: usefulness": "judge_usefulness"}
CURVE_THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(21))


@dataclass(frozen=True)
class AnswerSentences:
    """One judged answer's grounded sentences: label, grounding's support and flag, word count, text."""

    article_id: int
    labels: np.ndarray  # bool per sentence: holds an assessor-marked grounding error
    support: np.ndarray
    flagged: np.ndarray  # grounding: not supported at its threshold
    words: np.ndarray
    texts: tuple[str, ...]


def read_grounding(report_dir: Path) -> dict[tuple[int, str], list[Mapping[str, Any]]]:
    """(article id, answer text) → grounding's sentences, from ``per_question.jsonl`` (where scored)."""
    out: dict[tuple[int, str], list[Mapping[str, Any]]] = {}
    path = Path(report_dir) / "per_question.jsonl"
    if not path.is_file():
        return out
    for _, row in iter_jsonl(path):
        g = row.get("grounding")
        if isinstance(g, Mapping) and isinstance(g.get("sentences"), list):
            out.setdefault((int(row["article_id"]), str(row["answer"])), g["sentences"])
    return out


def locate(answer: str, sentences: Sequence[str]) -> list[tuple[int, int] | None]:
    """Each sentence's offsets in ``answer``, searched in order (None where it is not found verbatim)."""
    out: list[tuple[int, int] | None] = []
    cursor = 0
    for s in sentences:
        at = answer.find(s, cursor)
        if at < 0:
            out.append(None)
            continue
        out.append((at, at + len(s)))
        cursor = at + len(s)
    return out


def _prf(labels: np.ndarray, flagged: np.ndarray) -> tuple[float, float, float]:
    tp = float(np.sum(labels & flagged))
    p = tp / flagged.sum() if flagged.sum() else math.nan
    r = tp / labels.sum() if labels.sum() else math.nan
    f = 2 * tp / (labels.sum() + flagged.sum()) if labels.sum() + flagged.sum() else math.nan
    return p, r, f


def _auc(labels: np.ndarray, score: np.ndarray) -> float:
    if labels.all() or not labels.any():
        return math.nan
    return float(stats.auc(score[labels][None, :], score[~labels][None, :])[0])


def _average_precision(labels: np.ndarray, score: np.ndarray) -> float:
    """sklearn's average precision: Σ (R_k − R_{k−1}) P_k over the distinct score thresholds."""
    if not labels.any():
        return math.nan
    order = np.argsort(-score, kind="mergesort")
    s, y = score[order], labels[order]
    last = np.r_[np.nonzero(np.diff(s))[0], y.size - 1]  # the last index of each distinct score
    tp = np.cumsum(y)[last]
    precision = tp / (last + 1)
    recall = tp / y.sum()
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def _cluster_stat(units: Sequence[Any], value: Callable[[Sequence[Any]], float], s: Any) -> dict[str, Any]:
    """``value`` of the pooled units, with the percentile bootstrap over units (``stats.bootstrap``)."""

    def statistic(idx: np.ndarray) -> np.ndarray:
        return np.array([value([units[i] for i in row]) for row in idx])

    return stats.bootstrap(
        statistic, len(units), n_resamples=s.resamples, confidence=s.confidence, seed=s.seed
    ).to_dict()


def _pool(answers: Sequence[AnswerSentences], field: str) -> np.ndarray:
    return np.concatenate([getattr(a, field) for a in answers]) if answers else np.array([])


def _sentence_detector(
    answers: Sequence[AnswerSentences],
    score: Callable[[AnswerSentences], np.ndarray],
    flag: Callable[[AnswerSentences], np.ndarray],
    s: Any,
    curve: bool = False,
) -> dict[str, Any]:
    # each answer's (labels, score, flags) once; a resample pools the chosen answers' arrays
    units = [(a.labels.astype(bool), np.asarray(score(a), float), np.asarray(flag(a), bool)) for a in answers]

    def pooled(chosen: Sequence[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
        return tuple(np.concatenate(parts) for parts in zip(*chosen, strict=True))

    def at(k: int) -> Callable[[Sequence[tuple[np.ndarray, ...]]], float]:
        return lambda chosen: _prf(*pooled(chosen)[::2])[k]

    out: dict[str, Any] = {
        "precision": _cluster_stat(units, at(0), s),
        "recall": _cluster_stat(units, at(1), s),
        "f1": _cluster_stat(units, at(2), s),
        "roc_auc": _cluster_stat(units, lambda c: _auc(*pooled(c)[:2]), s),
        "average_precision": _cluster_stat(units, lambda c: _average_precision(*pooled(c)[:2]), s),
    }
    if curve:
        labels = pooled(units)[0]
        support = _pool(answers, "support")
        out["curve"] = [
            dict(
                zip(("threshold", "precision", "recall", "f1"), (t, *_prf(labels, support < t)), strict=True)
            )
            for t in CURVE_THRESHOLDS
        ]
    return out


def sentence_level(answers: Sequence[AnswerSentences], s: Any, seed: int = 0) -> dict[str, Any]:
    """Grounding's flags against the assessors' grounding-error sentences, with the two controls."""
    flagged_share = float(_pool(answers, "flagged").mean()) if answers else 0.0
    median = float(np.median(_pool(answers, "words"))) if answers else 0.0

    def random_score(a: AnswerSentences) -> np.ndarray:
        return np.array([_random_score(f"{seed}:sentence", a.article_id, t) for t in a.texts])

    return {
        "answers": len(answers),
        "sentences": int(sum(a.labels.size for a in answers)),
        "positives": int(sum(a.labels.sum() for a in answers)),
        "grounding_flagged": int(sum(a.flagged.sum() for a in answers)),
        "detectors": {
            "Grounding": _sentence_detector(
                answers, lambda a: 1 - a.support, lambda a: a.flagged, s, curve=True
            ),
            "control: random": {
                **_sentence_detector(answers, random_score, lambda a: random_score(a) < flagged_share, s),
                "flags": f"a seeded uniform score below {flagged_share:.3f}, grounding's flagged share",
            },
            "control: longer sentence": {
                **_sentence_detector(answers, lambda a: a.words.astype(float), lambda a: a.words > median, s),
                "flags": f"sentences longer than the median ({median:g} words)",
            },
        },
    }


def answer_level(
    answers: Sequence[tuple[int, str, bool]],
    scores: Mapping[tuple[int, str], Mapping[str, float]],
    s: Any,
    seed: int = 0,
) -> dict[str, Any] | None:
    """The judge's scores (negated) against 'the answer has a major error', with the controls; None
    where the evaluation has no judge column."""
    present = {
        label: col
        for label, col in JUDGE_COLUMNS.items()
        if any(col in scores.get(k[:2], {}) for k in answers)
    }
    if not present:
        return None

    def negated(col: str) -> Callable[[int, str], float]:
        return lambda a, t: -scores.get((a, t), {}).get(col, math.nan)

    rankers: dict[str, Callable[[int, str], float]] = {label: negated(col) for label, col in present.items()}
    rankers["control: random"] = lambda a, t: _random_score(f"{seed}:answer", a, t)
    rankers["control: longer answer"] = lambda a, t: float(len(t.split()))
    out: dict[str, Any] = {"answers": len(answers), "positives": sum(y for *_, y in answers), "detectors": {}}
    for label, rank in rankers.items():
        units = [(y, rank(a, t)) for a, t, y in answers if np.isfinite(rank(a, t))]

        def value(chosen: Sequence[tuple[bool, float]]) -> float:
            y = np.array([c[0] for c in chosen], dtype=bool)
            return _auc(y, np.array([c[1] for c in chosen]))

        out["detectors"][label] = {"roc_auc": _cluster_stat(units, value, s), "scored": len(units)}
    return out


def detectors(
    study: Study,
    judgments: Sequence[Mapping[str, Any]],
    grounding: Mapping[tuple[int, str], Sequence[Mapping[str, Any]]],
    scores: Mapping[tuple[int, str], Mapping[str, float]],
    settings: Any,
) -> dict[str, Any] | None:
    """The ``detectors`` section; None when the study has no accepted errors judgments."""
    tasks = study.tasks_by_id()
    accepted, _ = screen(judgments, study)
    errors = [j for j in accepted if tasks[j["task_id"]]["type"] == "errors"]
    if not errors:
        return None
    grounding_types = {t.name for t in study_taxonomy(study.manifest).types if t.group == "grounding"}
    by_task: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for j in errors:
        by_task[j["task_id"]].append(j)
    sentences: list[AnswerSentences] = []
    unaligned = ungrounded = 0
    major: dict[tuple[int, str], bool] = {}
    for task_id, js in sorted(by_task.items()):
        task = tasks[task_id]
        article, text = int(task["article_id"]), task["answer"]["text"]
        spans = [s for j in js for s in j.get("error_spans") or []]
        major[(article, text)] = major.get((article, text), False) or any(
            s["severity"] in MAJOR for s in spans
        )
        offered = {t["name"] for t in task.get("error_types", [])}
        if not grounding_types & offered:
            continue
        rows = grounding.get((article, text))
        if rows is None:
            ungrounded += 1
            continue
        where = locate(text, [str(r["sentence"]) for r in rows])
        kept = [(r, w) for r, w in zip(rows, where, strict=True) if w is not None]
        unaligned += len(rows) - len(kept)
        marked = [(s["start"], s["end"]) for s in spans if s["type"] in grounding_types]
        sentences.append(
            AnswerSentences(
                article,
                np.array([any(overlaps(w, m) for m in marked) for _, w in kept], dtype=bool),
                np.array([float(r["support"]) for r, _ in kept]),
                np.array([not r["supported"] for r, _ in kept], dtype=bool),
                np.array([len(str(r["sentence"]).split()) for r, _ in kept]),
                tuple(str(r["sentence"]) for r, _ in kept),
            )
        )
    simulated = is_simulated(errors)
    return {
        "simulated": simulated,
        **({"note": SIMULATED_NOTE} if simulated else {}),
        "grounding_types": sorted(grounding_types),
        "sentence_level": {
            **sentence_level(sentences, settings, settings.seed),
            "unaligned_sentences": unaligned,
            "answers_without_grounding": ungrounded,
        }
        if sentences
        else None,
        "answer_level": answer_level(
            [(a, t, y) for (a, t), y in sorted(major.items())], scores, settings, settings.seed
        ),
    }


def _cell(e: Mapping[str, Any] | None) -> str:
    if not e or e.get("value") is None:
        return "–"
    if e.get("low") is None:
        return f"{e['value']:.2f}"
    return f"{e['value']:.2f} [{e['low']:.2f}, {e['high']:.2f}]"


def detectors_markdown(section: Mapping[str, Any]) -> list[str]:
    """The report's ``## Error detectors`` section (tables of the sentence and answer level)."""
    sim = section.get("simulated")
    lines = [
        "## Error detectors against the assessors' error spans" + (" (simulated assessors)" if sim else ""),
        "",
    ]
    if sim:
        lines += [f"Every figure here is simulated: {section['note']}.", ""]
    level = section.get("sentence_level")
    if level:
        lines += [
            f"Sentence level: {level['sentences']} grounded sentences of {level['answers']} answers,"
            f" {level['positives']} holding an assessor-marked grounding error"
            f" ({', '.join(section['grounding_types'])}); grounding flags {level['grounding_flagged']}."
            " Intervals: cluster bootstrap over answers.",
            "",
            "| detector | precision | recall | F1 | ROC AUC | average precision |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for name, d in level["detectors"].items():
            cells = [_cell(d[k]) for k in ("precision", "recall", "f1", "roc_auc", "average_precision")]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    else:
        lines += ["Sentence level: no answer with grounding details and a grounding type offered.", ""]
    answer = section.get("answer_level")
    if answer:
        lines += [
            f"Answer level: {answer['answers']} answers, {answer['positives']} with a major or critical"
            " error; ROC AUC of the (negated) score.",
            "",
            "| detector | ROC AUC | answers scored |",
            "|---|---:|---:|",
            *(f"| {n} | {_cell(d['roc_auc'])} | {d['scored']} |" for n, d in answer["detectors"].items()),
            "",
        ]
    else:
        lines += ["Answer level: the evaluation ran no LLM judge.", ""]
    return lines


__all__ = [
    "AnswerSentences",
    "answer_level",
    "detectors",
    "detectors_markdown",
    "locate",
    "read_grounding",
    "sentence_level",
]
