"""The evaluation report: a leaderboard with confidence intervals, paired tests, per-question scores, a chart.

Files (written as one set: staged in a sibling folder, then swapped in): ``evaluation.json``
(everything), ``evaluation.md`` (the leaderboard as the paper's Table 3 reports it: ROUGE F1 x 100,
BERTScore F1, plus grounding), ``per_question.csv`` and ``per_question.jsonl`` (every score of every
answer; the JSONL adds the answer and its grounding), and ``evaluation.png`` (bars with 95% intervals).
"""

from __future__ import annotations

import csv
import io
import itertools
import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikihowqa import __version__
from wikihowqa.core.files import atomic_folder, atomic_write, write_json
from wikihowqa.dataset.writers import write_jsonl
from wikihowqa.evaluate import judge_report, significance
from wikihowqa.evaluate.pipeline import (
    BERT_COLUMNS,
    GROUNDING_COLUMNS,
    JUDGE_COLUMNS,
    LEADERBOARD,
    ROUGE_COLUMNS,
    Evaluation,
    SystemResult,
)
from wikihowqa.evaluate.terminal import NamedRows

FILES = ("evaluation.json", "evaluation.md", "per_question.csv", "per_question.jsonl", "evaluation.png")
_DECIMALS = {"BERTScore": 3, "Grounding": 3, "Judge: consistency": 2, "Judge: usefulness": 2}


# --------------------------------------------------------------------------- the report as typed records


@dataclass(frozen=True)
class Interval:
    """A mean and its confidence interval, over the answers that have the score (``None``: none has)."""

    mean: float | None
    low: float | None
    high: float | None
    scored: int | None = None  # how many answers had the score, when fewer than all (the judge's)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mean": self.mean, "low": self.low, "high": self.high}
        if self.scored is not None:
            out["scored"] = self.scored
        return out


@dataclass(frozen=True)
class LeaderboardRow:
    system: str
    source: str
    missing_predictions: int
    predictions_outside_split: int
    metrics: dict[str, Interval]  # leaderboard label -> interval, in the leaderboard's order

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "source": self.source,
            "missing_predictions": self.missing_predictions,
            "predictions_outside_split": self.predictions_outside_split,
            "metrics": {label: m.to_dict() for label, m in self.metrics.items()},
        }


@dataclass(frozen=True)
class Comparison:
    """A paired test of system ``a`` against ``b`` on one metric: Δ = A − B with its bootstrap CI."""

    metric: str
    a: str
    b: str
    delta: float
    low: float
    high: float
    p_bootstrap: float
    p_permutation: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ReportSettings:
    confidence: float
    resamples: int
    seed: int
    interval: str
    tests: str
    lower_bounds: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class EvaluationReport:
    """Everything the report says; ``to_dict`` is ``evaluation.json``."""

    dataset: str
    split: str
    questions: int
    created: str
    tool: dict[str, str]
    settings: ReportSettings
    metrics: dict[str, Any]  # how each metric was computed (``Evaluation.metadata``)
    scales: dict[str, float]  # leaderboard label -> factor the means are multiplied by
    leaderboard: list[LeaderboardRow]  # best first (by R-L)
    gold_grounding: dict[str, Interval] | None  # grounding and judge of the gold answers, for reference
    comparisons: list[Comparison]
    judge: judge_report.JudgeSummary | None = None  # the judge's cost, spread and pairwise results

    @property
    def bertscore_note(self) -> str | None:
        """Why BERTScore is not the model asked for (e.g. the bundled MiniLM offline), if it is not."""
        return (self.metrics.get("bertscore") or {}).get("note")

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "split": self.split,
            "questions": self.questions,
            "created": self.created,
            "tool": dict(self.tool),
            "settings": self.settings.to_dict(),
            "metrics": self.metrics,
            "scales": dict(self.scales),
            "leaderboard": [row.to_dict() for row in self.leaderboard],
            "gold_grounding": None
            if self.gold_grounding is None
            else {label: m.to_dict() for label, m in self.gold_grounding.items()},
            "comparisons": [c.to_dict() for c in self.comparisons],
            "judge": None if self.judge is None else self.judge.to_dict(),
        }


# --------------------------------------------------------------------------- building it


def _metrics(evaluation: Evaluation) -> list[tuple[str, str, float]]:
    present = set(evaluation.systems[0].scores) if evaluation.systems else set()
    return [m for m in LEADERBOARD if m[1] in present]


def _interval(values: list[float], scale: float, evaluation: Evaluation) -> Interval:
    """Mean and CI over the answers that have the score (the judge's unparseable replies have none)."""
    s = evaluation.settings
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return Interval(None, None, None)
    ci = significance.bootstrap_ci(finite, confidence=s.confidence, n_resamples=s.resamples, seed=s.seed)
    scored = len(finite) if len(finite) < len(values) else None
    return Interval(ci.mean * scale, ci.low * scale, ci.high * scale, scored)


def build_report(evaluation: Evaluation) -> EvaluationReport:
    """Everything the report says, as typed records."""
    s = evaluation.settings
    metrics = _metrics(evaluation)
    leaderboard = [
        LeaderboardRow(
            system=result.system,
            source=result.source,
            missing_predictions=result.missing,
            predictions_outside_split=result.outside_split,
            metrics={
                label: _interval(result.scores[col], scale, evaluation) for label, col, scale in metrics
            },
        )
        for result in evaluation.systems
    ]
    key = "R-L" if any(m[0] == "R-L" for m in metrics) else metrics[0][0]
    leaderboard.sort(key=lambda row: -row.metrics[key].mean)  # type: ignore[operator]
    comparisons = []
    for a, b in itertools.combinations(evaluation.systems, 2):
        for label, column, scale in metrics:
            both = [
                (x, y)
                for x, y in zip(a.scores[column], b.scores[column], strict=True)
                if math.isfinite(x) and math.isfinite(y)
            ]
            if not both:
                continue
            c = significance.compare(
                [x for x, _ in both],
                [y for _, y in both],
                confidence=s.confidence,
                n_resamples=s.resamples,
                seed=s.seed,
            )
            comparisons.append(
                Comparison(
                    metric=label,
                    a=a.system,
                    b=b.system,
                    delta=c.delta * scale,
                    low=c.low * scale,
                    high=c.high * scale,
                    p_bootstrap=c.p_bootstrap,
                    p_permutation=c.p_permutation,
                )
            )
    gold = None
    if evaluation.gold_grounding is not None:
        gold = {
            label: _interval(evaluation.gold_grounding.scores[col], scale, evaluation)
            for label, col, scale in metrics
            if col in (*GROUNDING_COLUMNS, *JUDGE_COLUMNS)
        }
    return EvaluationReport(
        dataset=evaluation.dataset,
        split=evaluation.split,
        questions=len(evaluation.examples),
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        tool={"name": "wikihowqa", "version": str(__version__)},
        settings=ReportSettings(
            confidence=s.confidence,
            resamples=s.resamples,
            seed=s.seed,
            interval="percentile bootstrap over questions",
            tests="paired bootstrap and paired permutation (sign-flip) over questions, two-sided",
            lower_bounds=s.lower_bounds,
        ),
        metrics=evaluation.metadata,
        scales={label: scale for label, _, scale in metrics},
        leaderboard=leaderboard,
        gold_grounding=gold,
        comparisons=comparisons,
        judge=judge_report.build(evaluation),
    )


# --------------------------------------------------------------------------- Markdown


def _cell(entry: Interval, label: str) -> str:
    d = _DECIMALS.get(label, 1)
    if entry.mean is None or entry.low is None or entry.high is None:
        return "–"
    return f"{entry.mean:.{d}f} [{entry.low:.{d}f}, {entry.high:.{d}f}]"


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def leaderboard_table(report: EvaluationReport, where: Path | str) -> NamedRows:
    """The leaderboard's means for a terminal (``where``: the folder with the full report): system names
    whole at any width; columns that do not fit beside them go into a second table (see ``terminal``)."""
    labels = list(report.scales)
    return NamedRows(
        title=f"{report.questions} {report.split} questions (means; CIs in {where}/evaluation.md)",
        name_header="system",
        names=[row.system for row in report.leaderboard],
        columns=[
            (
                label,
                [
                    "–" if (mean := r.metrics[label].mean) is None else f"{mean:.{_DECIMALS.get(label, 1)}f}"
                    for r in report.leaderboard
                ],
            )
            for label in labels
        ],
    )


def render_markdown(report: EvaluationReport) -> str:
    labels = list(report.scales)
    pct = round(report.settings.confidence * 100)
    plural = "" if report.questions == 1 else "s"
    lines = [
        f"# Evaluation: {report.questions} {report.split} question{plural}",
        "",
        f"Dataset `{report.dataset}`. Each cell: mean [{pct}% CI], {report.settings.interval}"
        f" ({report.settings.resamples} resamples). ROUGE F1 × 100; BERTScore F1; grounding: mean"
        " support (0–1); supported: % of answer sentences at or above the threshold.",
        "",
        "| System | " + " | ".join(labels) + " |",
        "|---|" + "---:|" * len(labels),
    ]
    for row in report.leaderboard:
        cells = [_cell(row.metrics[label], label) for label in labels]
        lines.append(f"| {row.system} | " + " | ".join(cells) + " |")
    gold = report.gold_grounding
    if gold:
        cells = [_cell(gold[lb], lb) if lb in gold else "–" for lb in labels]
        lines.append("| *gold answer (human), for reference* | " + " | ".join(cells) + " |")
    gaps = [r for r in report.leaderboard if r.missing_predictions or r.predictions_outside_split]
    if gaps:
        lines += ["", "Coverage:"]
        for r in gaps:
            lines.append(
                f"- {r.system}: {r.missing_predictions} questions without a prediction (scored as"
                f" empty answers); {r.predictions_outside_split} predictions for questions outside the"
                " split (ignored)"
            )
    lines += ["", "## Metrics", ""]
    meta = report.metrics
    rouge = meta.get("rouge", {})
    lines.append(
        f"- ROUGE: {rouge.get('implementation', '')}; stemming {'on' if rouge.get('use_stemmer') else 'off'};"
        f" ROUGE-Lsum over sentences split by {rouge.get('rougeLsum_sentences', '')}."
    )
    if "bertscore" in meta:
        b = meta["bertscore"]
        lines.append(
            f"- BERTScore: model {b['model']}, layer {b['num_layers']}, idf {'on' if b['idf'] else 'off'},"
            f" {b['rescale_note']}; bert-score hash `{b['hash']}`."
        )
        if b.get("note"):
            lines.append(f"  - **Note:** {b['note']}.")
    else:
        lines.append("- BERTScore: not computed (turned off).")
    if "grounding" in meta:
        g = meta["grounding"]
        lines.append(
            f"- Grounding: per answer sentence, best passage of the question's documents by {g['support']}"
            f" ({g['embedding_model']}; idf-weighted words: {'yes' if g['idf'] else 'no'}; checks:"
            f" {', '.join(g['checks']) or 'none'}"
            + (
                ", reported per clause but not applied: the cross-encoder's score is the support"
                if g["cross_encoder"]
                else f", each failed one costing {g['penalty']:.0%} of the support"
            )
            + f"); supported at ≥ {g['threshold']:g}."
        )
    else:
        lines.append("- Grounding: not computed (turned off).")
    if "judge" in meta:
        jm = meta["judge"]
        lines.append(
            f"- LLM judge: {jm['model_loaded']} ({jm['backend']} backend), rubric prompt"
            f" `{jm['prompt_sha256']}` scoring consistency with the question's top {jm['max_passages']}"
            f" passages (BM25 against the answer, under {jm['max_passage_chars']} characters) and"
            " usefulness, 1–5; a reply not in the exact format is unparseable and scores nothing (means"
            " are over parsed replies; *Judge parsed* is the share parsed)."
        )
    if report.judge is not None:
        lines += judge_report.markdown(report.judge, pct)
    if report.comparisons:
        lines += [
            "",
            "## Paired significance tests",
            "",
            "Δ = A − B on the same questions, with its bootstrap CI; p-values two-sided."
            + (
                f" With only {report.questions} questions the bootstrap understates uncertainty:"
                " trust the permutation test."
                if report.questions < 30
                else ""
            ),
            "",
            "| Metric | A | B | Δ | " + f"{pct}% CI | p (bootstrap) | p (permutation) |",
            "|---|---|---|---:|---:|---:|---:|",
        ]
        for c in report.comparisons:
            d = _DECIMALS.get(c.metric, 2)
            lines.append(
                f"| {c.metric} | {c.a} | {c.b} | {c.delta:+.{d}f}"
                f" | [{c.low:+.{d}f}, {c.high:+.{d}f}]"
                f" | {_p(c.p_bootstrap)} | {_p(c.p_permutation)} |"
            )
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- per question and chart


def _rows(evaluation: Evaluation) -> list[dict[str, Any]]:
    columns = [c for c in (*ROUGE_COLUMNS, *BERT_COLUMNS, *GROUNDING_COLUMNS)]
    rows = []
    for result in evaluation.systems:
        for k, example in enumerate(evaluation.examples):
            row: dict[str, Any] = {"article_id": example.article_id, "system": result.system}
            row.update({c: result.scores[c][k] for c in columns if c in result.scores})
            rows.append(row)
    return rows


def _jsonl_rows(evaluation: Evaluation) -> Iterator[dict[str, Any]]:
    """One row per answer, made as it is written (a row's grounding details decoded for it alone)."""
    results: list[SystemResult] = [*evaluation.systems]
    if evaluation.gold_grounding is not None:
        results.append(evaluation.gold_grounding)
    for result in results:
        for k, example in enumerate(evaluation.examples):
            yield (
                {
                    "article_id": example.article_id,
                    "system": result.system,
                    "question": example.question,
                    "answer": result.answers[k],
                    "scores": {c: (v[k] if math.isfinite(v[k]) else None) for c, v in result.scores.items()},
                    "grounding": result.grounding_details[k] if result.grounding_details else None,
                    **({"judge": result.judge_details[k]} if result.judge_details else {}),
                }
            )


def render_chart(report: EvaluationReport, path: Path) -> None:
    import matplotlib  # heavy: matplotlib and its backend load only to draw the chart

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    labels = list(report.scales)
    # BERTScore and grounding are 0–1; shown × 100 so every bar shares one axis
    factor = {lb: (100.0 if report.scales[lb] == 1.0 else 1.0) for lb in labels}
    systems = report.leaderboard
    width = 0.8 / max(len(systems), 1)
    fig, ax = plt.subplots(figsize=(max(7.0, 1.3 * len(labels) + 0.4 * len(systems)), 4.2), dpi=120)
    x = np.arange(len(labels))
    for i, row in enumerate(systems):

        def column(field: str, row: LeaderboardRow = row) -> np.ndarray:
            values = [getattr(row.metrics[lb], field) for lb in labels]
            return np.array(
                [np.nan if v is None else v * factor[lb] for v, lb in zip(values, labels, strict=True)]
            )

        means, lows, highs = column("mean"), column("low"), column("high")
        ax.bar(
            x + (i - (len(systems) - 1) / 2) * width,
            means,
            width,
            label=row.system,
            yerr=np.vstack([means - lows, highs - means]),
            capsize=2,
        )
    ax.set_xticks(x, [lb + ("\n×100" if factor[lb] == 100.0 else "") for lb in labels])
    ax.set_ylabel("score")
    pct = round(report.settings.confidence * 100)
    ax.set_title(f"{report.questions} {report.split} questions; bars: mean, whiskers: {pct}% CI")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png")
    plt.close(fig)


def write_report(evaluation: Evaluation, out_dir: Path) -> EvaluationReport:
    """Write every report file into ``out_dir`` as one set; returns the report.

    The files are staged in a sibling folder and swapped in together, so a failure (a full disk) leaves
    the previous report whole; other files of ``out_dir`` (the score cache) are kept.
    """
    out_dir = Path(out_dir)
    report = build_report(evaluation)
    with atomic_folder(out_dir, keep_others=True) as staging:
        write_json(staging / "evaluation.json", report.to_dict())
        with atomic_write(staging / "evaluation.md") as fh:
            fh.write(render_markdown(report))
        rows = _rows(evaluation)
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else ["article_id", "system"])
        writer.writeheader()
        writer.writerows(rows)
        with atomic_write(staging / "per_question.csv") as fh:
            fh.write(buffer.getvalue())
        write_jsonl(staging / "per_question.jsonl", _jsonl_rows(evaluation))
        render_chart(report, staging / "evaluation.png")
    return report
