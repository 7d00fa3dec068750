"""How well each automatic metric agrees with the assessors: the numbers of ``meta_evaluation.json``.

Three views, each with percentile-bootstrap intervals:

* **answer level** (per trial): Kendall's tau-b and Spearman's rho between the metric's score of each
  judged answer and (a) its mean usefulness over accepted judgments, (b) minus the mean number of its
  edits the assessors found — so for both, positive means "agrees with the assessors". Units resampled:
  answers.
* **pairs** (the paper's IDR setting): each deteriorated answer against its own original; pairwise
  accuracy (original scored higher, ties one half) and the AUC of telling originals from deteriorated
  answers by the score, pooled over questions. Units resampled: pairs. As a human reference, the AUC of
  the assessors' mean usefulness for intact against deteriorated answers in each trial.
* **A/B preferences**: per A/B task, the share of the assessors' non-tie choices that the metric makes
  too (it prefers the side with the higher score; a tie counts one half), averaged over tasks; and at
  system level, Kendall's tau between the systems' preference scores (wins + ties / 2 against gold) and
  their mean metric scores. Units resampled: tasks, and questions for the system level.

Floor and ceiling (Xu et al., ACL 2023: on expert preference pairs ROUGE agreed 58 % of the time, "the
longer answer wins" 68 %, experts with each other 80 %): the controls include the two length rules — the
answer's word count and its negative — and ``floor`` says, per statistic, which rule is the better one
and whether each metric's interval lies above it; ``ceiling`` is the assessors' agreement with each other,
leave one assessor out: each judgment against the mean of the other judgments of the same answer (answer
level, resampling answers), and each non-tie A/B choice against the majority of the other assessors'
non-tie choices on that task (a split majority counts one half), averaged over tasks — the same statistic
the metrics get. Ties are counted as Xu et al. count them on their binary pairs: a pair the assessors
judged a tie has no preferred side and is left out; a metric's (or rule's) tie counts one half.

A reference-based metric (ROUGE, BERTScore) scores every answer against the dataset's answer — which is
the original of every trial answer and the gold side of every A/B task. Its trial and pair numbers
measure the distance from the original, which the deterioration itself defines, and its A/B choice is
always gold; those cells are computed but flagged, and only its system-level row is a fair test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wikihowqa.core.errors import SettingsError
from wikihowqa.metaeval import stats
from wikihowqa.metaeval.join import LENGTH_RULES, JoinedStudy, MetricSpec, ShownAnswer

PARTS = ("trial_a", "trial_b")


@dataclass(frozen=True)
class MetaSettings:
    resamples: int = 1000
    confidence: float = 0.95
    seed: int = 0
    controls: bool = True

    def __post_init__(self) -> None:
        # Fewer resamples give intervals too rough to compare metrics by; a level outside [0.5, 1) is no CI.
        if self.resamples < 100:
            raise SettingsError(f"--resamples {self.resamples}: use at least 100")
        if not 0.5 <= self.confidence < 1:
            raise SettingsError(f"--confidence {self.confidence}: give a level in [0.5, 1)")


Getter = Callable[[int, str], float]  # (article id, answer text) → the metric's score


def _finite(*arrays: np.ndarray) -> np.ndarray:
    mask = np.ones(len(arrays[0]), dtype=bool)
    for a in arrays:
        mask &= np.isfinite(a)
    return mask


def _over_draws(
    joined: JoinedStudy,
    metric: MetricSpec,
    statistic: Callable[[Getter, int], stats.Estimate],
    s: MetaSettings,
) -> dict[str, Any]:
    """The statistic with its bootstrap interval; for a random control, the mean over its draws with the
    central ``confidence`` range of the draws as the interval (the distribution a random metric has)."""

    def getter(draw: int) -> Getter:
        return lambda article, text: joined.score(metric, article, text, draw)

    if metric.draws <= 1:
        return statistic(getter(0), s.resamples).to_dict()
    estimates = [statistic(getter(d), 0) for d in range(metric.draws)]
    values = np.array([e.value for e in estimates if e.value is not None])
    n = estimates[0].n if estimates else 0
    if not values.size:
        return stats.Estimate(None, None, None, n).to_dict()
    alpha = (1 - s.confidence) / 2
    low, high = np.percentile(values, [100 * alpha, 100 * (1 - alpha)])
    return {
        **stats.Estimate(float(values.mean()), float(low), float(high), n).to_dict(),
        "draws": int(values.size),
    }


def _answer_level(
    joined: JoinedStudy, answers: Sequence[ShownAnswer], metric: MetricSpec, s: MetaSettings
) -> dict[str, Any]:
    targets = {
        "usefulness": np.array([np.mean(a.usefulness) for a in answers], dtype=float),
        "fewer_errors_found": np.array([-np.mean(a.errors_found) for a in answers], dtype=float),
    }

    def statistic(human: np.ndarray, method: str) -> Callable[[Getter, int], stats.Estimate]:
        def run(score_of: Getter, resamples: int) -> stats.Estimate:
            score = np.array([score_of(a.article_id, a.text) for a in answers], dtype=float)
            keep = _finite(score, human)
            return stats.correlation(
                score[keep], human[keep], method, n_resamples=resamples, confidence=s.confidence, seed=s.seed
            )

        return run

    return {
        name: {
            method: _over_draws(joined, metric, statistic(human, method), s)
            for method in ("kendall", "spearman")
        }
        for name, human in targets.items()
    }


def _pairs(joined: JoinedStudy, metric: MetricSpec, s: MetaSettings) -> dict[str, Any]:
    seen: dict[int, ShownAnswer] = {}
    for a in joined.answers:
        if a.deteriorated:
            seen.setdefault(a.article_id, a)
    pairs = list(seen.values())

    def arrays(score_of: Getter) -> tuple[np.ndarray, np.ndarray]:
        better = np.array([score_of(a.article_id, a.original) for a in pairs], dtype=float)
        worse = np.array([score_of(a.article_id, a.text) for a in pairs], dtype=float)
        keep = _finite(better, worse)
        return better[keep], worse[keep]

    def accuracy(score_of: Getter, resamples: int) -> stats.Estimate:
        return stats.pair_statistics(
            *arrays(score_of), n_resamples=resamples, confidence=s.confidence, seed=s.seed
        )[0]

    def area(score_of: Getter, resamples: int) -> stats.Estimate:
        return stats.pair_statistics(
            *arrays(score_of), n_resamples=resamples, confidence=s.confidence, seed=s.seed
        )[1]

    better, worse = arrays(lambda article, text: joined.score(metric, article, text, 0))
    return {
        "accuracy": _over_draws(joined, metric, accuracy, s),
        "auc": _over_draws(joined, metric, area, s),
        "ties": float(np.mean(better == worse)) if better.size else 0.0,
    }


def _human_reference(answers: Sequence[ShownAnswer], s: MetaSettings) -> dict[str, Any]:
    """The assessors' own separation of intact from deteriorated answers by usefulness (per trial)."""
    intact = np.array([np.mean(a.usefulness) for a in answers if not a.deteriorated], dtype=float)
    worse = np.array([np.mean(a.usefulness) for a in answers if a.deteriorated], dtype=float)
    if not intact.size or not worse.size:
        return {"usefulness_auc": stats.Estimate(None, None, None, 0).to_dict()}
    # resample each group on its own (they are different questions)
    rng = np.random.default_rng(s.seed)
    values = [float(stats.auc(intact[None, :], worse[None, :])[0])]
    for _ in range(s.resamples):
        i = intact[rng.integers(0, intact.size, intact.size)]
        w = worse[rng.integers(0, worse.size, worse.size)]
        values.append(float(stats.auc(i[None, :], w[None, :])[0]))
    alpha = (1 - s.confidence) / 2
    low, high = np.percentile(values[1:], [100 * alpha, 100 * (1 - alpha)])
    return {
        "usefulness_auc": stats.Estimate(
            values[0], float(low), float(high), int(intact.size + worse.size)
        ).to_dict(),
        "intact_answers": int(intact.size),
        "deteriorated_answers": int(worse.size),
    }


def _leave_one_out(groups: Sequence[Sequence[float]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per answer with two or more judgments: (the others' mean, the held-out judgment) for each."""
    out = []
    for g in groups:
        values = np.asarray(g, dtype=float)
        if values.size >= 2:
            out.append(((values.sum() - values) / (values.size - 1), values))
    return out


def _ceiling_correlations(pairs: list[tuple[np.ndarray, np.ndarray]], s: MetaSettings) -> dict[str, Any]:
    """Kendall's tau-b and Spearman's rho of the others' mean with the held-out judgment over all
    judgments, resampling answers (a cluster bootstrap: one answer's judgments are not independent).
    Each answer is a small contingency table of its (others' mean, held-out) values; a resample's table
    is the sum of its answers' tables (``stats.table_correlations``)."""
    total = sum(p[0].size for p in pairs)
    if len(pairs) < 2:
        empty = stats.Estimate(None, None, None, total).to_dict()
        return {"kendall": empty, "spearman": dict(empty)}
    xs, ys = (
        np.unique(np.concatenate([p[0] for p in pairs])),
        np.unique(np.concatenate([p[1] for p in pairs])),
    )
    per_answer = np.zeros((len(pairs), xs.size * ys.size))
    for k, (x, y) in enumerate(pairs):
        np.add.at(per_answer[k], np.searchsorted(xs, x) * ys.size + np.searchsorted(ys, y), 1)
    indices = stats.resample_indices(len(pairs), s.resamples, s.seed)
    counts = np.stack([np.bincount(row, minlength=len(pairs)) for row in indices])
    tau, rho = stats.table_correlations((counts @ per_answer).reshape(-1, xs.size, ys.size))
    out = {}
    for name, values in (("kendall", tau), ("spearman", rho)):
        point, rest = values[0], values[1:]
        defined = rest[np.isfinite(rest)]
        if not np.isfinite(point) or not defined.size:
            out[name] = stats.Estimate(None, None, None, total, int(rest.size - defined.size)).to_dict()
            continue
        alpha = (1 - s.confidence) / 2
        low, high = np.percentile(defined, [100 * alpha, 100 * (1 - alpha)])
        estimate = stats.Estimate(float(point), float(low), float(high), total, int(rest.size - defined.size))
        out[name] = estimate.to_dict()
    return out


def _ceiling(joined: JoinedStudy, by_part: dict[str, list[ShownAnswer]], s: MetaSettings) -> dict[str, Any]:
    """The assessors against each other, leave one assessor out, in the metrics' own statistics."""
    answer_level = {}
    for part, answers in by_part.items():
        targets = {
            "usefulness": _leave_one_out([a.usefulness for a in answers]),
            "fewer_errors_found": _leave_one_out([[-e for e in a.errors_found] for a in answers]),
        }
        answer_level[part] = {name: _ceiling_correlations(pairs, s) for name, pairs in targets.items()}
    per_task = []
    for p in joined.preferences:
        choices = [o for o in p.outcomes if o != "tie"]
        if len(choices) < 2:
            continue
        agreement = []
        for k, held in enumerate(choices):
            others = choices[:k] + choices[k + 1 :]
            share = sum(o == "model" for o in others) / len(others)
            pick = 0.5 if share == 0.5 else (1.0 if share > 0.5 else 0.0)  # 1: the others prefer the model
            agreement.append(pick if held == "model" else 1.0 - pick)
        per_task.append(float(np.mean(agreement)))
    pair_agreement = stats.mean_estimate(
        per_task, n_resamples=s.resamples, confidence=s.confidence, seed=s.seed
    )
    return {
        "method": "leave one assessor out",
        "answer_level": answer_level,
        "pair_agreement": pair_agreement.to_dict(),
    }


def _floor(result: dict[str, Any], metrics: Sequence[MetricSpec]) -> dict[str, Any]:
    """Per statistic: the better length rule and whether each metric's interval lies above its value."""
    rules = [m.label for m in LENGTH_RULES if any(x.label == m.label for x in metrics)]
    judged = [m.label for m in metrics if not m.control]

    def compare(cells: dict[str, Any]) -> dict[str, Any] | None:
        values = {r: (cells.get(r) or {}).get("value") for r in rules}
        known = {r: v for r, v in values.items() if v is not None}
        if not known:
            return None
        rule = max(known, key=lambda r: known[r])
        above = {}
        for label in judged:
            low = (cells.get(label) or {}).get("low")
            above[label] = None if low is None else bool(low > known[rule])
        return {"rule": rule, "value": known[rule], "above": above}

    answer_level = {
        part: {
            target: {
                method: compare({label: by_metric[label][target][method] for label in by_metric})
                for method in ("kendall", "spearman")
            }
            for target in ("usefulness", "fewer_errors_found")
        }
        for part, by_metric in result["answer_level"].items()
        if by_metric
    }
    pairs = result["pairs"]
    return {
        "answer_level": answer_level,
        "pairs": {
            stat: compare({label: pairs[label][stat] for label in pairs}) for stat in ("accuracy", "auc")
        },
        "preference": {
            "pair_agreement": compare(result["preference"]["pair_agreement"]),
            "kendall": compare(result["preference"]["kendall"]),
        },
    }


def _preference_agreement(joined: JoinedStudy, metric: MetricSpec, s: MetaSettings) -> dict[str, Any]:
    def statistic(score_of: Getter, resamples: int) -> stats.Estimate:
        per_task = []
        for p in joined.preferences:
            model, gold = score_of(p.article_id, p.model_text), score_of(p.article_id, p.gold_text)
            choices = [o for o in p.outcomes if o != "tie"]
            if not choices or not np.isfinite(model) or not np.isfinite(gold):
                continue
            pick = 0.5 if model == gold else (1.0 if model > gold else 0.0)  # 1: the metric prefers the model
            per_task.append(np.mean([pick if o == "model" else 1.0 - pick for o in choices]))
        return stats.mean_estimate(per_task, n_resamples=resamples, confidence=s.confidence, seed=s.seed)

    return _over_draws(joined, metric, statistic, s)


def _system_level(joined: JoinedStudy, metrics: Sequence[MetricSpec], s: MetaSettings) -> dict[str, Any]:
    """Systems' preference scores against their mean metric scores; resampling the A/B questions."""
    prefs = joined.preferences
    systems = sorted({p.system for p in prefs})
    articles = sorted({p.article_id for p in prefs})
    if not systems:
        return {"systems": {}, "kendall": {}, "questions": 0}
    a_index = {a: k for k, a in enumerate(articles)}
    s_index = {name: k for k, name in enumerate(systems)}
    wins = np.zeros((len(systems), len(articles)))
    count = np.zeros((len(systems), len(articles)))
    for p in prefs:
        i, j = s_index[p.system], a_index[p.article_id]
        wins[i, j] += sum(1.0 if o == "model" else 0.5 if o == "tie" else 0.0 for o in p.outcomes)
        count[i, j] += len(p.outcomes)

    def per_system(score: np.ndarray, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(preference score, metric mean) per system over the chosen questions (with repeats)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            human = wins[:, columns].sum(axis=1) / count[:, columns].sum(axis=1)
        present = np.isfinite(score[:, columns])
        total = np.where(present, score[:, columns], 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return human, total / present.sum(axis=1)

    def scores_of(score_of: Getter) -> np.ndarray:
        score = np.full((len(systems), len(articles)), np.nan)
        for p in prefs:
            score[s_index[p.system], a_index[p.article_id]] = score_of(p.article_id, p.model_text)
        return score

    def statistic(score_of: Getter, resamples: int) -> stats.Estimate:
        score = scores_of(score_of)
        taus = []
        for columns in stats.resample_indices(len(articles), resamples, s.seed):
            human, means = per_system(score, columns)
            ok = np.isfinite(human) & np.isfinite(means)
            taus.append(
                stats.kendall_tau_b(means[ok][None, :], human[ok][None, :])[0] if ok.sum() >= 2 else np.nan
            )
        point, rest = taus[0], np.array(taus[1:])
        defined = rest[np.isfinite(rest)]
        if not np.isfinite(point):
            return stats.Estimate(None, None, None, len(systems))
        if not defined.size:
            return stats.Estimate(float(point), None, None, len(systems))
        alpha = (1 - s.confidence) / 2
        low, high = np.percentile(defined, [100 * alpha, 100 * (1 - alpha)])
        return stats.Estimate(
            float(point), float(low), float(high), len(systems), int(rest.size - defined.size)
        )

    everything = np.arange(len(articles))
    human, _ = per_system(np.zeros((len(systems), len(articles))), everything)
    table = {
        name: {
            "judgments": int(count[i].sum()),
            "questions": int((count[i] > 0).sum()),
            "preference_score": None if not np.isfinite(human[i]) else float(human[i]),
            "metric_means": {},
        }
        for i, name in enumerate(systems)
    }
    for metric in metrics:
        if metric.draws > 1:
            continue
        _, means = per_system(scores_of(lambda a, t, m=metric: joined.score(m, a, t)), everything)
        for i, name in enumerate(systems):
            table[name]["metric_means"][metric.label] = None if not np.isfinite(means[i]) else float(means[i])
    kendall = {m.label: _over_draws(joined, m, statistic, s) for m in metrics}
    return {"systems": table, "kendall": kendall, "questions": len(articles)}


def meta_evaluate(joined: JoinedStudy, settings: MetaSettings = MetaSettings()) -> dict[str, Any]:
    """Every agreement statistic of every metric, as JSON-ready data."""
    metrics = [m for m in joined.metrics if settings.controls or not m.control]
    parts = [p for p in PARTS if any(a.part == p for a in joined.answers)]
    by_part = {p: [a for a in joined.answers if a.part == p] for p in parts}
    result: dict[str, Any] = {
        "format": "wikihowqa-meta-evaluation",
        "format_version": 1,
        "study_id": joined.study_id,
        "settings": {
            "resamples": settings.resamples,
            "confidence": settings.confidence,
            "seed": settings.seed,
            "interval": "percentile bootstrap",
        },
        "judgments": joined.judgments,
        "answers": {
            p: {
                "answers": len(v),
                "deteriorated": sum(a.deteriorated for a in v),
                "judgments": sum(len(a.usefulness) for a in v),
            }
            for p, v in by_part.items()
        },
        "preference_tasks": len(joined.preferences),
        "unscored_answers": joined.unscored,
        "metrics": [
            {
                "label": m.label,
                "column": m.column,
                "reference_based": m.reference_based,
                "control": m.control,
                "draws": m.draws,
            }
            for m in metrics
        ],
        "answer_level": {
            p: {m.label: _answer_level(joined, v, m, settings) for m in metrics} for p, v in by_part.items()
        },
        "pairs": {m.label: _pairs(joined, m, settings) for m in metrics},
        "human_reference": {p: _human_reference(v, settings) for p, v in by_part.items()},
        "preference": {
            "pair_agreement": {m.label: _preference_agreement(joined, m, settings) for m in metrics},
            **_system_level(joined, metrics, settings),
        },
        "ceiling": _ceiling(joined, by_part, settings),
    }
    result["floor"] = _floor(result, metrics)
    return result
