"""``wikihowqa view``: the results explorer, a static site of the dataset, answers, scores and passages."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import (
    PORT_DEFAULT,
    Overwrite,
    Port,
    deprecated_option,
    inside,
    inside_all,
    out_option,
    renamed,
)
from wikihowqa.cli._outputs import writes
from wikihowqa.cli._signals import stopped_by_signals


def _written(folder: Path | None, name: str) -> Path | None:
    """``folder`` when the command that writes ``name`` wrote it there (a default input), else None."""
    return folder if folder is not None and (folder / name).is_file() else None


@app.command("view")
@writes(
    "out_dir",
    *("dataset", "predictions", "report", "meta_evaluation", "study", "stats"),
    default=lambda a: Path(a["dataset"]) / "site",
)
def view_command(
    dataset: Path = typer.Argument(..., help="Dataset folder (QA part, document part, manifest.json)."),
    predictions: list[Path] = typer.Option(
        [],
        "--predictions",
        help="Predictions file of a system the report does not score (relative: here, else in DATASET); "
        "repeatable.",
    ),
    report: Path | None = typer.Option(
        None,
        "--report",
        help="Folder `wikihowqa evaluate` wrote (evaluation.json, per_question.jsonl): leaderboard, scores "
        "and per-sentence grounding (default: DATASET/report when it holds an evaluation.json).",
    ),
    meta_evaluation: Path | None = typer.Option(
        None,
        "--meta-evaluation",
        help="Folder `wikihowqa meta-evaluate` wrote (meta_evaluation.json): metric agreement (default: the "
        "report folder when it holds one, else DATASET/study/report when that does).",
    ),
    study: Annotated[Path | None, deprecated_option("--study", "--meta-evaluation")] = None,
    stats: Path | None = typer.Option(
        None,
        "--stats",
        help="Folder `wikihowqa stats` wrote (default: stats.json beside the report, else DATASET/stats).",
    ),
    out_dir: Annotated[Path | None, out_option("the site", "DATASET/site")] = None,
    overwrite: Overwrite = False,
    serve: bool = typer.Option(
        False, "--serve", help="Afterwards, serve the site on 127.0.0.1 and open the browser (Ctrl+C stops)."
    ),
    port: Port = PORT_DEFAULT,
) -> None:
    """Write a static site to explore a dataset and its results: overview, leaderboard, questions, each
    question with its answers' supporting passages highlighted, and two systems side by side.

    The site is plain files: open SITE/index.html from disk, or host the folder anywhere.
    """
    from rich.progress import BarColumn, Progress, TextColumn

    from wikihowqa.core.progress import Bars
    from wikihowqa.dataset.folder import DatasetFolder
    from wikihowqa.view import build_site  # heavy: the stages' report modules

    target = out_dir or DatasetFolder(dataset).path / "site"
    meta = renamed(meta_evaluation, study, "--meta-evaluation", "--study")
    report = (
        inside(dataset, report) if report is not None else _written(dataset / "report", "evaluation.json")
    )
    if meta is None:
        meta = _written(report, "meta_evaluation.json") or _written(
            dataset / "study" / "report", "meta_evaluation.json"
        )
    httpd = None
    if serve:  # bound first: a port in use or out of range is one line before any work
        from wikihowqa.view.serve import server

        httpd = server(target, port)
    columns = (TextColumn("[cyan]{task.description}"), BarColumn(), TextColumn("{task.completed} files"))
    try:
        with Progress(*columns, console=console, transient=True) as bar:
            summary = build_site(
                dataset,
                target,
                report=report,
                predictions=inside_all(dataset, predictions),
                study=meta,
                stats=stats,
                overwrite=overwrite,
                progress=Bars(bar),
            )
    except BaseException:
        if httpd is not None:
            httpd.server_close()
        raise
    out.print(
        f"{summary.questions} questions, {summary.systems} systems: {summary.files} files, "
        f"{summary.bytes / 1e6:.1f} MB (largest {summary.largest[0]}, {summary.largest[1] / 1e6:.2f} MB) in "
        f"{summary.seconds:.1f} s",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    out.print(f"open {summary.out / 'index.html'}", markup=False, highlight=False, soft_wrap=True)
    if httpd is not None:
        from wikihowqa.view.serve import serve as serve_site

        with stopped_by_signals():  # also as a script's background job, which starts with SIGINT ignored
            try:
                serve_site(
                    summary.out,
                    httpd=httpd,
                    ready=lambda url: console.print(f"serving on {url} (Ctrl+C stops)", highlight=False),
                )
            except KeyboardInterrupt:
                console.print("stopped", highlight=False)
