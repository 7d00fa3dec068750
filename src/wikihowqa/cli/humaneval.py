"""``wikihowqa deteriorate``, ``tasks``, ``simulate-judgments`` and ``analyze``: the human evaluation."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import (
    ENCODER_DEFAULT,
    Overwrite,
    deprecated_argument,
    inside,
    inside_all,
    model_option,
    out_option,
    positional,
    seed_option,
)
from wikihowqa.cli._outputs import writes


@app.command("deteriorate")
@writes("out_file", "dataset", default=lambda a: Path(a["dataset"]) / "deteriorated.jsonl")
def deteriorate_command(
    dataset: Path = typer.Argument(..., help="Dataset folder with qa.jsonl (or qa.parquet)."),
    out_file: Annotated[
        Path | None,
        out_option("the deteriorated answers (review.csv goes beside them)", "DATASET/deteriorated.jsonl"),
    ] = None,
    split: str = typer.Option(None, "--split", help="Only answers of this split (default: all)."),
    per_category: int = typer.Option(5, "--per-category", help="QA pairs picked per category (paper: 5)."),
    deteriorated: int = typer.Option(
        4, "--deteriorated-per-category", help="Of those, how many to deteriorate (paper: 4)."
    ),
    edits: float = typer.Option(
        4.5, "--edits-per-answer", help="Mean edits per deteriorated answer (paper: 4.5)."
    ),
    types: str = typer.Option("", "--types", help="Comma-separated deterioration types (default: all)."),
    seed: Annotated[int, seed_option("the answers picked and their edits")] = 0,
    overwrite: Overwrite = False,
) -> None:
    """Pick answers per category and introduce factual errors, recording every edit's offsets.

    Also writes review.csv next to the output (unless one exists): fill in accept, fix or reject per
    answer and pass it to `wikihowqa tasks --review`.
    """
    # heavy: the study library (scipy, lemminflect, numpy) loads for the command that runs, not at start-up
    from wikihowqa.humaneval.deteriorate import DeteriorationSettings
    from wikihowqa.humaneval.steps import DETERIORATED_FILE, deteriorate_dataset, edit_types

    if out_file is None:
        console.print(
            f"[yellow]note:[/] deteriorate writes DATASET/{DETERIORATED_FILE} when --out is not given "
            f"(before this release: ./{DETERIORATED_FILE} in the working directory, which `--out "
            f"{DETERIORATED_FILE}` still gives; this note goes in the next release)",
            highlight=False,
            soft_wrap=True,
        )
    settings = DeteriorationSettings(per_category, deteriorated, edits, edit_types(types), seed)
    with console.status("deteriorating answers…"):
        done = deteriorate_dataset(dataset, settings, out=out_file, split=split, overwrite=overwrite)
    note = f" ({done.review} exists: left as it is)" if done.review_kept else ""
    bad = done.deteriorated
    out.print(
        f"{len(done.answers)} answers, {len(bad)} deteriorated with {done.edits} edits "
        f"({done.edits / max(len(bad), 1):.2f} per answer) → {done.path}; review template {done.review}{note}"
    )


@app.command("tasks")
@writes(
    "out_dir",
    *("dataset", "deteriorated", "review", "predictions"),
    default=lambda a: Path(a["dataset"]) / "study",
)
def tasks_command(
    dataset: Path = typer.Argument(..., help="Dataset folder (answers, documents)."),
    old_out: Annotated[Path | None, deprecated_argument("STUDY", "--out")] = None,
    out_dir: Annotated[Path | None, out_option("the study folder", "DATASET/study")] = None,
    deteriorated: Path = typer.Option(
        None,
        "--deteriorated",
        help="deteriorated.jsonl; a relative path not found here is looked up in DATASET, where "
        "`wikihowqa deteriorate` writes it (default: deteriorate now, seeded).",
    ),
    review: Path = typer.Option(
        None,
        "--review",
        help="Review file (.csv or .jsonl) with accept/fix/reject per answer; a relative path not found here "
        "is looked up in DATASET (deteriorate writes DATASET/review.csv).",
    ),
    allow_unreviewed: bool = typer.Option(
        False, "--allow-unreviewed", help="Treat answers without a decision as accepted."
    ),
    rejected: str = typer.Option(
        "drop", "--rejected", help="Rejected answers: drop them, or keep them 'intact'."
    ),
    predictions: list[Path] = typer.Option(
        [],
        "--predictions",
        help="Predictions file of a system for A/B tasks (relative: here, else in DATASET); repeatable.",
    ),
    error_predictions: list[Path] = typer.Option(
        [],
        "--error-predictions",
        help="Predictions file of a system whose answers get error-span tasks (adds the errors_a and "
        "errors_b parts, with deteriorated answers mixed in as controls); repeatable. Default: none.",
    ),
    taxonomy: Path = typer.Option(
        None,
        "--taxonomy",
        help="Error taxonomy settings file (YAML, TOML or JSON). Default: the built-in one.",
    ),
    error_questions: int = typer.Option(
        20, "--error-questions", help="Questions per system in the error-span parts."
    ),
    error_controls: int = typer.Option(
        10, "--error-controls", help="Deteriorated answers mixed into the error-span parts."
    ),
    assessors: int = typer.Option(3, "--assessors", help="Assessors per task (paper: 3)."),
    items_per_assessor: int = typer.Option(
        10, "--items-per-assessor", help="Tasks per assessor in the plan."
    ),
    ranker: str = typer.Option("bm25", "--ranker", help="Passage ranker: bm25 or dense (all-MiniLM-L6-v2)."),
    model: Annotated[str | None, model_option("Sentence encoder of --ranker dense", ENCODER_DEFAULT)] = None,
    max_chars: int = typer.Option(
        5000, "--max-chars", help="Passage budget in characters (kept strictly under)."
    ),
    budget_scope: str = typer.Option(
        "answer",
        "--budget-scope",
        help="Apply the character budget to the whole 'answer' (default) or to each 'sentence'.",
    ),
    relevance_questions: int = typer.Option(
        31, "--relevance-questions", help="Questions in the relevance part."
    ),
    preference_questions: int = typer.Option(
        100, "--preference-questions", help="Questions in the A/B part."
    ),
    seed: Annotated[int, seed_option("the deterioration (without --deteriorated), samples and plan")] = 0,
    overwrite: Overwrite = False,
) -> None:
    """Build the study: relevance, trial A, trial B and A/B preference tasks, the answer key, the
    assignment plan, and Label Studio import files."""
    # heavy: the study library (scipy, lemminflect, numpy) loads for the command that runs, not at start-up
    from wikihowqa.humaneval.rank import make_ranker
    from wikihowqa.humaneval.steps import build_study_folder
    from wikihowqa.humaneval.tasks import ERROR_PARTS, PARTS, StudySettings
    from wikihowqa.humaneval.taxonomy import read_taxonomy

    study_dir = positional(out_dir, old_out, "--out", "STUDY") or dataset / "study"
    deteriorated = inside(dataset, deteriorated) if deteriorated is not None else None
    review = inside(dataset, review) if review is not None else None
    predictions = inside_all(dataset, predictions)
    settings = StudySettings(
        assessors,
        items_per_assessor,
        max_chars,
        budget_scope,
        None,
        relevance_questions,
        1,
        preference_questions,
        parts=(*PARTS, *ERROR_PARTS) if error_predictions else PARTS,
        seed=seed,
        error_questions=error_questions,
        error_controls=error_controls,
    )
    with console.status("ranking passages and building tasks…"):
        built = build_study_folder(
            dataset,
            study_dir,
            make_ranker(ranker, model),
            settings,
            deteriorated=deteriorated,
            review=review,
            allow_unreviewed=allow_unreviewed,
            rejected=rejected,
            predictions=predictions,
            error_predictions=error_predictions,
            taxonomy=read_taxonomy(taxonomy),
            overwrite=overwrite,
        )
    manifest = built.study.manifest
    parts = ", ".join(f"{p} {v['tasks']} ({v['assessors']} assessors)" for p, v in manifest["parts"].items())
    reviewed = f"; review: {built.review_counts}" if built.review_counts else ""
    out.print(f"study {manifest['study_id']} → {study_dir}: {parts}{reviewed}")


@app.command("simulate-judgments")
@writes("out_file", "study_dir", default=lambda a: Path(a["study_dir"]) / "judgments.jsonl")
def simulate_command(
    study_dir: Path = typer.Argument(..., help="Study folder."),
    out_file: Annotated[Path | None, out_option("the judgments file", "STUDY/judgments.jsonl")] = None,
    inattentive: float = typer.Option(0.05, "--inattentive", help="Share of inattentive judgments."),
    error_recall_a: float = typer.Option(
        0.5, "--error-recall-a", help="Errors parts: share of known error spans marked without passages."
    ),
    error_recall_b: float = typer.Option(
        0.7, "--error-recall-b", help="Errors parts: share of known error spans marked with passages."
    ),
    type_accuracy: float = typer.Option(
        0.7, "--type-accuracy", help="Errors parts: share of marked spans given a right type (else another)."
    ),
    reference: Path = typer.Option(
        None,
        "--reference",
        help="JSONL of spans annotated by hand in systems' answers (the known errors of real answers; "
        "default: none, so real answers get no span).",
    ),
    seed: Annotated[int, seed_option("the synthetic assessors")] = 0,
    overwrite: Overwrite = False,
) -> None:
    """Judgments of synthetic assessors with planted detection rates (for tests and demos only)."""
    # heavy: the study library (scipy, lemminflect, numpy) loads for the command that runs, not at start-up
    from wikihowqa.humaneval.simulate import SimulationSettings
    from wikihowqa.humaneval.simulate_errors import ErrorSimulation, read_reference
    from wikihowqa.humaneval.steps import simulate_to

    errors = ErrorSimulation(
        recall={"errors_a": error_recall_a, "errors_b": error_recall_b}, type_accuracy=type_accuracy
    )
    settings = SimulationSettings(
        inattentive=inattentive, seed=seed, errors=errors, reference=read_reference(reference)
    )
    target, n = simulate_to(study_dir, settings, out=out_file, overwrite=overwrite)
    out.print(f"{n} simulated judgments → {target}")


def _analysis_place(args: dict) -> Path:
    """Where analyze writes by default: the judgments file's folder (several files: the study folder)."""
    judgments = [Path(p) for p in args["judgments"]]
    return judgments[0].parent if len(judgments) == 1 or args["study"] is None else Path(args["study"])


@app.command("analyze")
@writes("out_dir", "judgments", "study", default=_analysis_place)
def analyze_command(
    judgments: list[Path] = typer.Argument(
        ...,
        help="judgments.jsonl file(s) and/or Label Studio exports (.json, format JSON or JSON_MIN; one per "
        "project, so give every part's export at once).",
    ),
    study: Path = typer.Option(
        None, "--study", help="Study folder (default: the first judgments file's folder, or its parent)."
    ),
    out_dir: Annotated[
        Path | None,
        out_option(
            "analysis.json, analysis.md and the figures",
            "the judgments file's folder; with several files, the study folder",
        ),
    ] = None,
    min_common: int = typer.Option(2, "--min-common", help="Items two assessors must share for a kappa."),
    overwrite: Overwrite = False,
) -> None:
    """IDR by type and trial, false positives, t-tests, agreement, preference shares, time, passage use.

    Several files are analysed as one study: judgments are merged in submission order and screened
    together (an annotator in both trials, or judging two tasks of one article, is caught across files).
    """
    # heavy: the study library (scipy, lemminflect, numpy) loads for the command that runs, not at start-up
    from wikihowqa.humaneval.analysis import markdown_report
    from wikihowqa.humaneval.steps import analyze_files

    result, written = analyze_files(
        judgments, study=study, out=out_dir, min_common=min_common, overwrite=overwrite
    )
    out.print(markdown_report(result))
    out.print(f"wrote {', '.join(str(p) for p in written)}")
    unknown = result.judgments.unknown_task
    if unknown:
        console.print(
            f"[yellow]warning:[/] {unknown} of {result.judgments.total} judgments name a task the study"
            f" {escape(repr(result.study_id))} does not have; they were rejected"
            " (another study's judgments?)",
            highlight=False,
        )
