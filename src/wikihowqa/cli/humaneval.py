"""``wikihowqa deteriorate``, ``tasks``, ``simulate-judgments`` and ``analyze``: the human evaluation."""

from __future__ import annotations

from pathlib import Path

import typer

from wikihowqa.cli._app import app, console, out


@app.command("deteriorate")
def deteriorate_command(
    dataset: Path = typer.Argument(..., help="Dataset folder with qa.jsonl (or qa.parquet)."),
    out_file: Path = typer.Option(Path("deteriorated.jsonl"), "--out", help="deteriorated.jsonl to write."),
    split: str = typer.Option(None, "--split", help="Only answers of this split (default: all)."),
    per_category: int = typer.Option(5, "--per-category", help="QA pairs picked per category (paper: 5)."),
    deteriorated: int = typer.Option(
        4, "--deteriorated-per-category", help="Of those, how many to deteriorate (paper: 4)."
    ),
    edits: float = typer.Option(
        4.5, "--edits-per-answer", help="Mean edits per deteriorated answer (paper: 4.5)."
    ),
    types: str = typer.Option("", "--types", help="Comma-separated deterioration types (default: all)."),
    seed: int = typer.Option(
        0, "--seed", help="Random seed; the same seed gives the same answers and edits."
    ),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing output file."),
) -> None:
    """Pick answers per category and introduce factual errors, recording every edit's offsets.

    Also writes review.csv next to the output (unless one exists): fill in accept, fix or reject per
    answer and pass it to `wikihowqa tasks --review`.
    """
    from wikihowqa.errors import DatasetError
    from wikihowqa.humaneval.deteriorate import (
        EDIT_TYPES,
        DeteriorationSettings,
        deteriorate_examples,
        write_deteriorated,
    )
    from wikihowqa.humaneval.review import write_review_template
    from wikihowqa.io import DatasetFolder

    if out_file.exists() and not overwrite:
        raise DatasetError(f"{out_file}: exists (use --overwrite to replace it)")
    chosen = tuple(t.strip() for t in types.split(",") if t.strip()) or EDIT_TYPES
    settings = DeteriorationSettings(per_category, deteriorated, edits, chosen, seed)
    with console.status("deteriorating answers…"):
        answers = deteriorate_examples(DatasetFolder(dataset).examples(split), settings)
    write_deteriorated(out_file, answers)
    review = out_file.with_name("review.csv")
    note = ""
    if review.exists():
        note = f" ({review} exists: left as it is)"
    else:
        write_review_template(review, answers)
    bad = [a for a in answers if a.is_deteriorated]
    n_edits = sum(len(a.edits) for a in bad)
    out.print(
        f"{len(answers)} answers, {len(bad)} deteriorated with {n_edits} edits "
        f"({n_edits / max(len(bad), 1):.2f} per answer) → {out_file}; review template {review}{note}"
    )


@app.command("tasks")
def tasks_command(
    dataset: Path = typer.Argument(..., help="Dataset folder (answers, documents)."),
    study_dir: Path = typer.Argument(..., help="Study folder to create."),
    deteriorated: Path = typer.Option(
        None, "--deteriorated", help="deteriorated.jsonl (default: deteriorate now, seeded)."
    ),
    review: Path = typer.Option(
        None, "--review", help="Review file (.csv or .jsonl) with accept/fix/reject per answer."
    ),
    allow_unreviewed: bool = typer.Option(
        False, "--allow-unreviewed", help="Treat answers without a decision as accepted."
    ),
    rejected: str = typer.Option(
        "drop", "--rejected", help="Rejected answers: drop them, or keep them 'intact'."
    ),
    predictions: list[Path] = typer.Option(
        [], "--predictions", help="Predictions file of a system for A/B tasks; repeatable."
    ),
    assessors: int = typer.Option(3, "--assessors", help="Assessors per task (paper: 3)."),
    items_per_assessor: int = typer.Option(
        10, "--items-per-assessor", help="Tasks per assessor in the plan."
    ),
    ranker: str = typer.Option("bm25", "--ranker", help="Passage ranker: bm25 or dense (all-MiniLM-L6-v2)."),
    model: str = typer.Option(None, "--model", help="sentence-transformers model for --ranker dense."),
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
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing study folder."),
) -> None:
    """Build the study: relevance, trial A, trial B and A/B preference tasks, the answer key, the
    assignment plan, and Label Studio import files."""
    from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples, read_deteriorated
    from wikihowqa.humaneval.rank import make_ranker
    from wikihowqa.humaneval.review import apply_review, read_review
    from wikihowqa.humaneval.tasks import StudySettings, build_study, write_study
    from wikihowqa.io import DatasetFolder, read_predictions

    folder = DatasetFolder(dataset)
    examples = folder.examples()
    settings = StudySettings(
        assessors,
        items_per_assessor,
        max_chars,
        budget_scope,
        None,
        relevance_questions,
        1,
        preference_questions,
        seed=seed,
    )
    answers = (
        read_deteriorated(deteriorated)
        if deteriorated
        else deteriorate_examples(examples, DeteriorationSettings(seed=seed))
    )
    counts = None
    if review:
        answers, counts = apply_review(
            answers,
            read_review(review),
            source=str(review),
            require_all=not allow_unreviewed,
            rejected=rejected,
        )
    preds = [p for path in predictions for p in read_predictions(path)]
    with console.status("ranking passages and building tasks…"):
        study = build_study(
            answers,
            examples,
            folder.documents_by_article(),
            preds,
            make_ranker(ranker, model),
            settings,
            sources={
                "dataset": str(dataset),
                "deteriorated": str(deteriorated or ""),
                "review": str(review or ""),
                "predictions": [str(p) for p in predictions],
            },
        )
        write_study(
            study,
            study_dir,
            overwrite=overwrite,
            extra_files={"deteriorated.jsonl": [a.to_dict() for a in answers]},
        )
    parts = ", ".join(
        f"{p} {v['tasks']} ({v['assessors']} assessors)" for p, v in study.manifest["parts"].items()
    )
    reviewed = f"; review: {counts}" if counts else ""
    out.print(f"study {study.manifest['study_id']} → {study_dir}: {parts}{reviewed}")


@app.command("simulate-judgments")
def simulate_command(
    study_dir: Path = typer.Argument(..., help="Study folder."),
    out_file: Path = typer.Option(None, "--out", help="Judgments file (default: STUDY/judgments.jsonl)."),
    inattentive: float = typer.Option(0.05, "--inattentive", help="Share of inattentive judgments."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing judgments file."),
) -> None:
    """Judgments of synthetic assessors with planted detection rates (for tests and demos only)."""
    from wikihowqa.errors import DatasetError
    from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
    from wikihowqa.humaneval.tasks import read_study
    from wikihowqa.io import write_jsonl

    target = out_file or study_dir / "judgments.jsonl"
    if target.exists() and not overwrite:
        raise DatasetError(f"{target}: exists (use --overwrite to replace it)")
    judgments = simulate_judgments(
        read_study(study_dir), SimulationSettings(inattentive=inattentive, seed=seed)
    )
    write_jsonl(target, judgments)
    out.print(f"{len(judgments)} simulated judgments → {target}")


@app.command("analyze")
def analyze_command(
    judgments: list[Path] = typer.Argument(
        ...,
        help="judgments.jsonl file(s) and/or Label Studio exports (.json, format JSON or JSON_MIN; one per "
        "project, so give every part's export at once).",
    ),
    study: Path = typer.Option(
        None, "--study", help="Study folder (default: the first judgments file's folder, or its parent)."
    ),
    out_dir: Path = typer.Option(
        None,
        "--out",
        help="Folder for analysis.json, analysis.md and figures (default: the judgments file's folder; "
        "with several files, the study folder).",
    ),
    min_common: int = typer.Option(2, "--min-common", help="Items two assessors must share for a kappa."),
) -> None:
    """IDR by type and trial, false positives, t-tests, agreement, preference shares, time, passage use.

    Several files are analysed as one study: judgments are merged in submission order and screened
    together (an annotator in both trials, or judging two tasks of one article, is caught across files).
    """
    from wikihowqa.humaneval.analysis import (
        analyse,
        find_study,
        markdown_report,
        read_judgment_files,
        write_analysis,
    )
    from wikihowqa.humaneval.tasks import read_study

    folder = find_study(judgments[0], study)
    loaded = read_study(folder)
    rows = read_judgment_files(judgments, loaded.manifest["study_id"])
    result = analyse(loaded, rows, min_common=min_common)
    target = out_dir or (judgments[0].parent if len(judgments) == 1 else folder)
    written = write_analysis(result, target)
    out.print(markdown_report(result))
    out.print(f"wrote {', '.join(str(p) for p in written)}")
