"""``wikihowqa study-predictions`` and ``meta-evaluate``: which automatic metric agrees with the assessors."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import (
    Overwrite,
    deprecated_argument,
    out_option,
    positional,
    seed_option,
)
from wikihowqa.errors import SettingsError


@app.command("study-predictions")
def study_predictions_command(
    study_dir: Path = typer.Argument(..., help="Study folder (study.json, tasks.jsonl, key.jsonl)."),
    old_out: Annotated[Path | None, deprecated_argument("OUT", "--out")] = None,
    out_dir: Annotated[
        Path | None, out_option("the folder of one predictions file per system", "STUDY/predictions")
    ] = None,
    overwrite: Overwrite = False,
) -> None:
    """Write every answer a study showed as predictions files, to score them with `wikihowqa evaluate`.

    Systems: the original answers (the dataset's own, also every deteriorated answer's original), the
    deteriorated versions, and each A/B system's answers under its own name.
    """
    from wikihowqa.metaeval import write_study_predictions  # heavy: numpy, scipy (start-up time)

    out_dir = positional(out_dir, old_out, "--out", "OUT") or study_dir / "predictions"
    earlier = sorted(out_dir.glob("*.jsonl")) if out_dir.is_dir() else []
    if earlier and not overwrite:
        raise SettingsError(
            f"{out_dir} already holds predictions files ({earlier[0].name}, ...): add --overwrite to "
            "replace them"
        )
    for stale in earlier:  # an earlier study's systems must not be scored with this one's
        stale.unlink()
    paths = write_study_predictions(study_dir, out_dir)
    for path in paths:
        out.print(f"{path}", highlight=False)
    console.print(
        "next: wikihowqa evaluate DATASET "
        + " ".join(str(p) for p in paths)
        + f" --split all --out REPORT && wikihowqa meta-evaluate {study_dir} REPORT",
        highlight=False,
        markup=False,
    )


@app.command("meta-evaluate")
def meta_evaluate_command(
    study_dir: Path = typer.Argument(..., help="Study folder with its judgments (judgments.jsonl)."),
    report_dir: Path = typer.Argument(
        ...,
        help="Evaluation report folder (per_question.jsonl) that scored the study's answers:"
        " `wikihowqa study-predictions` + `wikihowqa evaluate --split all`.",
    ),
    out_dir: Annotated[Path | None, out_option("meta_evaluation.md, .json and .png", "REPORT")] = None,
    judgments: Path = typer.Option(
        None, "--judgments", help="Judgments file (default: the study's judgments.jsonl)."
    ),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples of every interval."),
    confidence: float = typer.Option(0.95, "--confidence", help="Confidence level of the intervals."),
    seed: Annotated[int, seed_option("the bootstrap and of the random control")] = 0,
    controls: bool = typer.Option(
        True,
        "--controls/--no-controls",
        help="Add two reference rows: minus the key's edit count (a metric that knows the planted errors)"
        " and a random score (mean and range of 200 draws).",
    ),
) -> None:
    """Agreement of every automatic metric with the assessors: Kendall's tau and Spearman's rho against
    usefulness and errors found, original-above-deteriorated accuracy and AUC, A/B agreement and
    system-level tau, each with bootstrap CIs → meta_evaluation.md, .json and .png.
    """
    # heavy: numpy, scipy (start-up time)
    from wikihowqa.metaeval import meta_evaluate_folders
    from wikihowqa.metaeval.agreement import MetaSettings
    from wikihowqa.metaeval.report import agreement_table, write_report

    settings = MetaSettings(resamples=resamples, confidence=confidence, seed=seed, controls=controls)
    with console.status("meta-evaluating…"):
        result = meta_evaluate_folders(study_dir, report_dir, settings, judgments=judgments)
    target = out_dir or report_dir
    write_report(result, target)
    out.print(agreement_table(result, target))
    counts = result["judgments"]
    if counts["unknown_task"]:
        console.print(
            f"[yellow]warning:[/] {counts['unknown_task']} of {counts['total']} judgments name a task the"
            f" study {escape(repr(result['study_id']))} does not have; they were rejected"
            " (another study's judgments?)",
            highlight=False,
        )
    if result["unscored_answers"]:
        console.print(
            f"[yellow]warning:[/] {len(result['unscored_answers'])} study answers have no scores in"
            f" {report_dir} and were left out (see meta_evaluation.json, unscored_answers)",
            highlight=False,
        )
