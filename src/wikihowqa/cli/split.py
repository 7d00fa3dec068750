"""``wikihowqa split`` and ``wikihowqa audit``: leakage-free splits of a dataset folder and their audit."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import (
    ENCODER_DEFAULT,
    Device,
    ExecutorKind,
    RayAddress,
    Workers,
    device_option,
    model_option,
    running_on,
    seed_option,
)
from wikihowqa.core.progress import Bars


def _progress(label: str):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn(f"[cyan]{label}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )


def _print_audit(result) -> None:
    summary = result.summary()
    for name, row in summary["splits"].items():
        if name == "all" or not row["questions"]:
            continue
        sim = row["similarity"]
        lexical = f", {row['same_normalised_title']} with a train question's title" if result.lexical else ""
        out.print(
            f"{name}: {row['questions']} questions, nearest-train similarity mean {sim['mean']:.3f}, "
            f"max {sim['max']:.3f}; {row['above_threshold']} at or above {result.threshold:g}{lexical}"
        )
    crossing = summary["clusters_in_more_than_one_split"]
    out.print(f"clusters in more than one split: {len(crossing)}")


@app.command("split")
def split_command(
    dataset: Path = typer.Argument(..., help="Dataset folder whose QA part gets `split` and `cluster`."),
    model: Annotated[str | None, model_option("Sentence encoder of the questions", ENCODER_DEFAULT)] = None,
    min_cluster_size: int = typer.Option(2, "--min-cluster-size", help="HDBSCAN min_cluster_size."),
    min_samples: int = typer.Option(
        None, "--min-samples", help="HDBSCAN min_samples (default: the min cluster size)."
    ),
    selection: str = typer.Option("eom", "--selection", help="HDBSCAN cluster selection: eom or leaf."),
    validation_size: str = typer.Option(
        "0.1", "--validation-size", help="Validation questions: a fraction of all (0.1) or a count (1200)."
    ),
    test_size: str = typer.Option("0.2", "--test-size", help="Test questions: a fraction of all or a count."),
    seed: Annotated[int, seed_option("the shuffle that deals unclustered questions")] = 0,
    guard: float = typer.Option(
        None, "--guard", help="Keep in train unclustered questions with a neighbour this similar."
    ),
    threshold: float = typer.Option(0.9, "--threshold", help="Paraphrase threshold of the audit after it."),
    executor: ExecutorKind = "local",
    ray_address: RayAddress = None,
    workers: Workers = None,
    device: Device = "auto",
) -> None:
    """Cluster the questions (HDBSCAN on sentence embeddings) and split: clustered ones to train, the rest
    dealt to validation and test. Rewrites the QA part in place (atomically) and audits the result."""
    # Imported here, not with the module: ~0.8 s that every command (and --help) would pay at start-up
    # (benchmarks/cli_startup.py).
    from wikihowqa.dataset.folder import DatasetFolder  # heavy: pydantic (the row models)
    from wikihowqa.encoders.embed import DEFAULT_MODEL  # heavy: numpy
    from wikihowqa.split.audit import audit_dataset  # heavy: numpy
    from wikihowqa.split.splitter import (  # heavy: numpy, scikit-learn
        SplitSettings,
        parse_size,
        split_dataset,
    )

    device = device_option(device)
    model = model or DEFAULT_MODEL
    settings = SplitSettings(
        model=model,
        min_cluster_size=min_cluster_size,
        min_samples=min_samples,
        selection=selection,
        validation_size=parse_size(validation_size, "--validation-size"),
        test_size=parse_size(test_size, "--test-size"),
        seed=seed,
        guard=guard,
    )
    folder = DatasetFolder(dataset)
    folder.qa_path  # noqa: B018  a missing QA part is an error before any work
    with running_on(executor, ray_address, workers) as runner, _progress("embedding questions") as bar:
        result = split_dataset(folder, settings, executor=runner, device=device, progress=Bars(bar))
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {warning}")
    counts = result.counts
    out.print(
        f"{len(result.examples)} questions, {result.clusters} clusters holding {result.clustered}; "
        f"train {counts['train']}, validation {counts['validation']}, test {counts['test']}"
        + (f" ({result.guarded} kept in train by the guard)" if settings.guard is not None else "")
    )
    _print_audit(audit_dataset(folder, model=model, threshold=threshold))
    out.print(f"wrote {folder.qa_path} and {folder.path / 'audit.json'}")


@app.command("audit")
def audit_command(
    dataset: Path = typer.Argument(..., help="Dataset folder with splits (the official release included)."),
    model: Annotated[str | None, model_option("Sentence encoder of the questions", ENCODER_DEFAULT)] = None,
    threshold: float = typer.Option(0.9, "--threshold", help="Similarity from which a pair is a leak."),
    lexical: bool = typer.Option(
        True, "--lexical/--no-lexical", help="Also count evaluation questions with a train question's title."
    ),
    executor: ExecutorKind = "local",
    ray_address: RayAddress = None,
    workers: Workers = None,
    device: Device = "auto",
) -> None:
    """For every validation/test question find the nearest train question; write audit.json into DATASET."""
    # Imported here for start-up time, as in split_command.
    from wikihowqa.dataset.folder import DatasetFolder  # heavy: pydantic (the row models)
    from wikihowqa.encoders.embed import DEFAULT_MODEL  # heavy: numpy
    from wikihowqa.split.audit import audit_dataset  # heavy: numpy

    device = device_option(device)
    model = model or DEFAULT_MODEL
    folder = DatasetFolder(dataset)
    folder.qa_path  # noqa: B018  a missing QA part is an error before any work
    with running_on(executor, ray_address, workers) as runner, _progress("embedding questions") as bar:
        result = audit_dataset(
            folder,
            model=model,
            threshold=threshold,
            lexical=lexical,
            executor=runner,
            device=device,
            progress=Bars(bar),
        )
    _print_audit(result)
    out.print(f"wrote {folder.path / 'audit.json'}")
