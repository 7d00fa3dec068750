"""``wikihowqa stats``: the paper's Tables 1–2, categories, fragments and the audit, as a report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import (
    ENCODER_DEFAULT,
    ExecutorKind,
    Overwrite,
    RayAddress,
    Workers,
    model_option,
    out_option,
    running_on,
)
from wikihowqa.cli._outputs import writes
from wikihowqa.core.errors import SettingsError
from wikihowqa.core.progress import Bars


@app.command("stats")
@writes("out_dir", "dataset", default=lambda a: Path(a["dataset"]) / "stats")
def stats_command(
    dataset: Path = typer.Argument(..., help="Dataset folder (QA part and document part)."),
    out_dir: Annotated[Path | None, out_option("the report folder", "DATASET/stats")] = None,
    workers: Workers = None,
    audit: bool = typer.Option(
        True,
        "--audit/--no-audit",
        help="Include the leakage audit from DATASET/audit.json (written by `split` and `audit`) when it is "
        "current; otherwise the report says how to make it.",
    ),
    run_audit: bool = typer.Option(
        False,
        "--run-audit",
        help="Run the leakage audit (the sentence encoder) when audit.json is missing or stale.",
    ),
    model: Annotated[str | None, model_option("Sentence encoder of the audit", ENCODER_DEFAULT)] = None,
    threshold: float = typer.Option(0.9, "--threshold", help="Paraphrase threshold of the audit."),
    overwrite: Overwrite = False,
    executor: ExecutorKind = "local",
    ray_address: RayAddress = None,
) -> None:
    """Describe a dataset: Table 1 per split, categories, novel n-grams (Table 2), coverage, density,
    compression, and the leakage audit; writes stats.md, stats.json, stats_per_question.jsonl, figures/."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from wikihowqa.dataset.folder import DatasetFolder  # heavy: pydantic (the row models)

    # Imported here, not with the module: ~0.8 s that every command (and --help) would pay at start-up
    # (benchmarks/cli_startup.py).
    from wikihowqa.encoders.embed import DEFAULT_MODEL  # heavy: numpy
    from wikihowqa.stats.report import REPORT_MD, describe  # heavy: numpy, spaCy

    folder = DatasetFolder(dataset)
    folder.qa_path, folder.documents_path  # noqa: B018  a missing part is an error before any work
    target = out_dir or folder.path / "stats"
    if (target / REPORT_MD).exists() and not overwrite:
        raise SettingsError(f"{target / REPORT_MD}: exists (use --overwrite to replace it)")
    columns = (TextColumn("[cyan]statistics"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with running_on(executor, ray_address, workers) as runner, Progress(*columns, console=console) as bar:
        report = describe(
            folder,
            target,
            workers=workers,
            audit=False if not audit else (True if run_audit else None),
            model=model or DEFAULT_MODEL,
            threshold=threshold,
            progress=Bars(bar),
            executor=runner,
        )
    if report.audit_note:
        console.print(f"[yellow]audit:[/] {escape(report.audit_note)}", highlight=False, soft_wrap=True)
    row = report.table1["all"]
    frag = report.fragments["all"]
    novel = report.table2["all"]
    out.print(
        f"{row['questions']} questions, {row['documents']} documents; novel 1–4-grams "
        + "/".join(f"{novel[f'novel_{n}grams_percent'] or 0:.1f}" for n in (1, 2, 3, 4))
        + f" %; coverage {frag['coverage']['mean'] or 0:.3f}, density {frag['density']['mean'] or 0:.3f}, "
        f"compression {frag['compression']['mean'] or 0:.2f} ({sum(report.seconds.values()):.1f} s)"
    )
    out.print(f"wrote {target / REPORT_MD}")
