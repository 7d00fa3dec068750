"""``wikihowqa evaluate``: score prediction files against a dataset split and write the report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import (
    Device,
    ExecutorKind,
    RayAddress,
    Workers,
    device_option,
    inside_all,
    out_option,
    running_on,
    seed_option,
)
from wikihowqa.cli._outputs import writes
from wikihowqa.core.errors import SettingsError
from wikihowqa.evaluate.defaults import GROUNDING_THRESHOLD

#: The split suffixes ``wikihowqa answer`` puts before .jsonl (the test split's files have none).
_SPLIT_SUFFIXES = (".train", ".validation", ".all")


def split_predictions(dataset: Path, split: str) -> list[Path]:
    """The predictions files ``wikihowqa answer`` wrote into DATASET/predictions/ for ``split``."""
    files = sorted((dataset / "predictions").glob("*.jsonl"))
    if split == "test":
        return [f for f in files if not f.stem.endswith(_SPLIT_SUFFIXES)]
    return [f for f in files if f.stem.endswith(f".{split}")]


@app.command("evaluate")
@writes(
    "out_dir", "dataset", "predictions", "bertscore_baseline", default=lambda a: Path(a["dataset"]) / "report"
)
def evaluate_command(
    dataset: Path = typer.Argument(
        ..., help="Dataset folder with the gold answers (qa.jsonl, documents.jsonl)."
    ),
    predictions: list[Path] = typer.Argument(
        None,
        help="Predictions files (JSONL, one line per question: article_id, system, answer, ...). A relative "
        "path not found here is looked up in DATASET, where `wikihowqa answer` writes them "
        "(predictions/bm25+lead.jsonl). Omitted: every file of DATASET/predictions/ for --split.",
        show_default=False,
    ),
    split: str = typer.Option(
        "test",
        "--split",
        help="Split whose questions are scored: train, validation, test, or all (e.g. a study's answers).",
    ),
    out_dir: Annotated[Path | None, out_option("the report folder", "DATASET/report")] = None,
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
    bertscore: bool = typer.Option(
        True, "--bertscore/--no-bertscore", help="Score answers with BERTScore against the gold answers."
    ),
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
    judge: str = typer.Option(
        None,
        "--judge",
        help="Also score with an LLM judge: this model rates each answer's consistency with the question's"
        " passages and its usefulness (1-5). With --judge-backend local: 'smollm2' (offline, bundled) or"
        " a transformers model name or path.",
    ),
    judge_backend: str = typer.Option(
        "openai",
        "--judge-backend",
        help="openai (any OpenAI-compatible API: $OPENAI_BASE_URL, $OPENAI_API_KEY; responses cached in"
        " DATASET/cache/judge-responses.sqlite, shared by every report folder) or local (transformers).",
    ),
    judge_base_url: str = typer.Option(
        None, "--judge-base-url", help="API base URL of the judge (default: $OPENAI_BASE_URL)."
    ),
    judge_passages: int = typer.Option(
        6, "--judge-passages", help="Most passages shown to the judge (BM25 against the answer)."
    ),
    judge_chars: int = typer.Option(
        3000, "--judge-chars", help="Character budget of the passages in the judge's prompt."
    ),
    judge_rpm: float = typer.Option(
        60.0, "--judge-rpm", help="Requests per minute to the judge's API (0: no pacing)."
    ),
    judge_pairwise: tuple[str, str] | None = typer.Option(
        None,
        "--judge-pairwise",
        metavar="SYSTEM_A SYSTEM_B",
        help="Also ask the judge which of these two systems' answers to each question is better, in both"
        " orders (a pair judged differently in the two is a tie and position-inconsistent); the report"
        " gives win/tie/loss with CIs and the inconsistency rate. Needs --judge.",
    ),
    judge_samples: int = typer.Option(
        1,
        "--judge-samples",
        min=1,
        help="Verdicts asked per answer (K); the report gives each score's spread over them and scores"
        " each answer by their mean. Above 1 needs --judge-temperature above 0 (refused at 0: every draw"
        " would be the same request).",
    ),
    judge_temperature: float = typer.Option(
        0.0, "--judge-temperature", min=0.0, help="Sampling temperature of the judge (API backend)."
    ),
    judge_price: str = typer.Option(
        None,
        "--judge-price",
        metavar="IN,OUT",
        help="USD per million input and output tokens, e.g. 0.15,0.6, for the report's estimated price of"
        " the judge's calls; their tokens are reported either way.",
    ),
    lower_bounds: bool = typer.Option(
        False,
        "--lower-bounds",
        help="Also score two lower bounds: copied top passages, a random train answer.",
    ),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap and permutation resamples."),
    seed: Annotated[int, seed_option("resampling and of the random-answer lower bound")] = 0,
    workers: Workers = None,
    torch_threads: int = typer.Option(
        None, "--torch-threads", help="Threads for the neural models (1 is fastest on a busy machine)."
    ),
    executor: ExecutorKind = "local",
    ray_address: RayAddress = None,
    device: Device = "auto",
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh",
            help="Score everything again: forget the report folder's score cache (default: reuse the scores "
            "an earlier run saved and score only what is new).",
        ),
    ] = False,
) -> None:
    """Score systems with ROUGE, BERTScore, grounding (and an LLM judge), with 95% CIs and paired tests.

    Scores are cached in the report folder, so an interrupted run resumes and a rerun with another
    predictions file only scores what is new; the judge's API responses are cached with the dataset
    (DATASET/cache/judge-responses.sqlite), so a report in another folder asks the judge nothing again.
    """
    # heavy: the metrics (numpy, scipy, the encoder's loader: ~0.4 s) load for this command only
    from wikihowqa.core.progress import Bars
    from wikihowqa.evaluate.bertscore import BertScoreConfig
    from wikihowqa.evaluate.grounding import GroundingConfig
    from wikihowqa.evaluate.judge import JudgeConfig
    from wikihowqa.evaluate.judge_cost import parse_price
    from wikihowqa.evaluate.judge_report import judge_lines
    from wikihowqa.evaluate.pipeline import (
        CACHE_FILE,
        EvaluationSettings,
        check_request,
        coverage_warnings,
        evaluate,
    )
    from wikihowqa.evaluate.report import leaderboard_table, write_report
    from wikihowqa.evaluate.without_documents import scorable

    device = device_option(device)
    settings = EvaluationSettings(
        split=split,
        bertscore=None
        if not bertscore
        else BertScoreConfig(
            model=bertscore_model,
            num_layers=bertscore_layers,
            idf=bertscore_idf,
            rescale=bertscore_rescale,
            baseline_path=str(bertscore_baseline) if bertscore_baseline else None,
            device=device,
        ),
        grounding=GroundingConfig(
            cross_encoder=cross_encoder,
            device=device,
            **({} if grounding_threshold is None else {"threshold": grounding_threshold}),
        )
        if grounding
        else None,
        judge=JudgeConfig(
            model=judge,
            backend=judge_backend,
            base_url=judge_base_url,
            max_passages=judge_passages,
            max_passage_chars=judge_chars,
            requests_per_minute=judge_rpm or None,
            temperature=judge_temperature,
            samples=judge_samples,
            price=parse_price(judge_price) if judge_price else None,
        )
        if judge
        else None,
        judge_pairwise=judge_pairwise,
        lower_bounds=lower_bounds,
        resamples=resamples,
        seed=seed,
        workers=workers,
        torch_threads=torch_threads,
    )
    predictions = inside_all(dataset, predictions or []) or split_predictions(dataset, split)
    if not predictions and not lower_bounds:
        raise SettingsError(
            f"no predictions files given, and {dataset / 'predictions'} has none for the {split} split "
            "(`wikihowqa answer` writes them there)"
        )
    check_request(predictions, settings)
    settings, skipped = scorable(dataset, settings)
    if skipped:
        console.print(f"[yellow]note:[/] {escape(skipped)}", highlight=False, soft_wrap=True)
    target = out_dir or dataset / "report"
    if fresh:
        (target / CACHE_FILE).unlink(missing_ok=True)
    with (
        running_on(executor, ray_address, workers) as runner,
        Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
        ) as bar,
    ):
        evaluation = evaluate(
            dataset, predictions, settings, cache_dir=target, progress=Bars(bar), executor=runner
        )
    report = write_report(evaluation, target)

    out.print(leaderboard_table(report, target))
    for line in judge_lines(report.judge) if report.judge else []:
        out.print(escape(line), highlight=False, soft_wrap=True)
    note = report.bertscore_note
    if note:
        console.print(f"[yellow]BERTScore:[/] {note}", highlight=False)
    for warning in coverage_warnings(evaluation):
        console.print(f"[bold yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
