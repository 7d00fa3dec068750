"""``wikihowqa evaluate``: score prediction files against a dataset split and write the report."""

from __future__ import annotations

from pathlib import Path

import typer

from wikihowqa.cli._app import app, console, out
from wikihowqa.evaluate import GROUNDING_THRESHOLD


@app.command("evaluate")
def evaluate_command(
    dataset: Path = typer.Argument(
        ..., help="Dataset folder with the gold answers (qa.jsonl, documents.jsonl)."
    ),
    predictions: list[Path] = typer.Argument(
        None, help="Predictions files (JSONL, one line per question: article_id, system, answer, ...)."
    ),
    split: str = typer.Option(
        "test", "--split", help="Split whose questions are scored: train, validation, test."
    ),
    out_dir: Path = typer.Option(None, "--out", help="Report folder (default: DATASET/report)."),
    bertscore_model: str = typer.Option(
        "auto",
        "--bertscore-model",
        help="BERTScore backbone: auto (roberta-large if available, else the bundled MiniLM), minilm,"
        " or any bert-score model name or local path.",
    ),
    bertscore_layers: int = typer.Option(
        None, "--bertscore-layers", help="Layer to use (default: bert-score's)."
    ),
    bertscore_idf: bool = typer.Option(
        False, "--bertscore-idf", help="Weight tokens by idf over the references."
    ),
    bertscore_rescale: bool = typer.Option(
        False,
        "--bertscore-rescale",
        help="Rescale with bert-score's baseline (an error if it has none for the model).",
    ),
    bertscore_baseline: Path = typer.Option(
        None, "--bertscore-baseline", help="Custom rescaling baseline file."
    ),
    no_bertscore: bool = typer.Option(False, "--no-bertscore", help="Skip BERTScore."),
    grounding: bool = typer.Option(
        True, "--grounding/--no-grounding", help="Score answers against the documents."
    ),
    grounding_threshold: float = typer.Option(
        None,
        "--grounding-threshold",
        help=f"Support at which a sentence counts as supported (default {GROUNDING_THRESHOLD:g}).",
    ),
    cross_encoder: str = typer.Option(
        None,
        "--grounding-cross-encoder",
        help="Cross-encoder or NLI model (name or path) to re-score support.",
    ),
    lower_bounds: bool = typer.Option(
        False,
        "--lower-bounds",
        help="Also score two lower bounds: copied top passages, a random train answer.",
    ),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap and permutation resamples."),
    seed: int = typer.Option(0, "--seed", help="Seed of resampling and of the random-answer lower bound."),
    workers: int = typer.Option(None, "--workers", help="Processes for ROUGE (default: all CPUs)."),
    torch_threads: int = typer.Option(
        None, "--torch-threads", help="Threads for the neural models (1 is fastest on a busy machine)."
    ),
) -> None:
    """Score systems with ROUGE, BERTScore and grounding, with 95% CIs and paired tests; write the report.

    Scores are cached in the report folder, so an interrupted run resumes and a rerun with another
    predictions file only scores what is new.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from wikihowqa.errors import SettingsError
    from wikihowqa.evaluate.bertscore import BertScoreConfig
    from wikihowqa.evaluate.grounding import GroundingConfig
    from wikihowqa.evaluate.pipeline import EvaluationSettings, evaluate
    from wikihowqa.evaluate.report import leaderboard_table, write_report

    if not predictions and not lower_bounds:
        raise SettingsError("give at least one predictions file (or --lower-bounds)")
    if resamples < 100:
        raise SettingsError(f"--resamples {resamples}: use at least 100")
    settings = EvaluationSettings(
        split=split,
        bertscore=None
        if no_bertscore
        else BertScoreConfig(
            model=bertscore_model,
            num_layers=bertscore_layers,
            idf=bertscore_idf,
            rescale=bertscore_rescale,
            baseline_path=str(bertscore_baseline) if bertscore_baseline else None,
        ),
        grounding=GroundingConfig(
            cross_encoder=cross_encoder,
            **({} if grounding_threshold is None else {"threshold": grounding_threshold}),
        )
        if grounding
        else None,
        lower_bounds=lower_bounds,
        resamples=resamples,
        seed=seed,
        workers=workers,
        torch_threads=torch_threads,
    )
    target = out_dir or dataset / "report"
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
    ) as bar:
        tasks: dict[str, int] = {}

        def progress(name: str, advance: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.advance(tasks[name], advance)

        evaluation = evaluate(dataset, predictions or [], settings, cache_dir=target, progress=progress)
    report = write_report(evaluation, target)

    table = leaderboard_table(report, target)
    out.print(table)
    note = (report["metrics"].get("bertscore") or {}).get("note")
    if note:
        console.print(f"[yellow]BERTScore:[/] {note}", highlight=False)
