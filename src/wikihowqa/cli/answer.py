"""``wikihowqa answer`` and ``wikihowqa train``: baselines → a predictions file; fine-tune the generator."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from wikihowqa.answer.catalogue import DESCRIPTIONS
from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import (
    Device,
    ExecutorKind,
    Fresh,
    RayAddress,
    Workers,
    deprecated_option,
    device_option,
    model_option,
    out_option,
    renamed,
    running_on,
)

#: The systems the registry holds, with what each does (the --system help lists them all; the catalogue is the
#: registry's table of names, read without loading the systems).
_SYSTEMS_HELP = "System to run: " + "; ".join(f"{name} ({what})" for name, what in DESCRIPTIONS.items()) + "."
#: Old system names, accepted for one release with a warning (llm-qonly: one spelling of "question only",
#: as export-lm-eval's --question-only).
RENAMED_SYSTEMS = {"llm-qonly": "llm-question-only"}
#: The settings `train` uses without --config: a commented copy of the recipe, to copy and edit.
EXAMPLE_TRAIN_SETTINGS = Path(__file__).resolve().parent.parent / "schema" / "examples" / "train.yaml"


@app.command("answer")
def answer_command(
    dataset: Path = typer.Argument(..., help="Dataset folder (qa.jsonl and documents.jsonl)."),
    system: str = typer.Option(..., "--system", "-s", help=_SYSTEMS_HELP),
    split: str = typer.Option(
        "test", "--split", help="Split to answer: train, validation, test, or all (every question)."
    ),
    limit: int = typer.Option(None, "--limit", help="Answer only the first N questions of the split."),
    out_file: Annotated[
        Path | None,
        out_option(
            "the predictions file",
            "DATASET/predictions/<system>.jsonl; .<split> before .jsonl for other splits",
        ),
    ] = None,
    config: Path = typer.Option(
        None, "--config", help="Settings file (YAML, TOML or JSON); see the user guide."
    ),
    mode: str = typer.Option(
        None,
        "--mode",
        help="Retrieval over each question's own documents (supporting, the paper) or all of the "
        "split's (open). seq2seq ranks as its model was trained (generator.retrieval_mode) unless given.",
    ),
    model: Annotated[
        str | None,
        model_option(
            "seq2seq: the trained model folder; llm systems: the model's name or path",
            "the settings file's; llm: gpt-4o-mini, or SmolLM2 with --backend local",
        ),
    ] = None,
    backend: str = typer.Option(None, "--backend", help="llm systems: openai (any compatible API) or local."),
    encoder_backend: str = typer.Option(
        None,
        "--encoder-backend",
        help="Dense and hybrid retrieval's sentence encoder: auto (OpenVINO on the CPU, about 3x faster, "
        "torch on a GPU), openvino, or torch (the exact float32 path). Sets retrieval.dense.backend.",
    ),
    max_new_tokens: int = typer.Option(
        None, "--max-new-tokens", help="Longest answer a generator may write."
    ),
    set_: list[str] = typer.Option(
        [], "--set", help="Override one setting, e.g. --set extractive.max_words=60 (repeatable)."
    ),
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh",
            help="Answer every question again: forget the predictions file and the .partial file an earlier "
            "run left (default: keep their answers and answer only the rest).",
        ),
    ] = False,
    executor: ExecutorKind = "local",
    ray_address: RayAddress = None,
    workers: Workers = None,
    device: Device = "auto",
) -> None:
    """Answer the questions of a split with a baseline system and write a predictions file (resumable).

    Exit status: 0 when every question is answered; 1 when some failed (the others are saved, the message
    says how many and what to do); 2 for a user error, or a server that answers no one (stopped at once).
    """
    if system in RENAMED_SYSTEMS:
        console.print(
            f"[yellow]warning:[/] system {system} is now called {RENAMED_SYSTEMS[system]}; the old name "
            "will be removed in the next release",
            highlight=False,
            soft_wrap=True,
        )
        system = RENAMED_SYSTEMS[system]
    # heavy: the answer stage (numpy, httpx, pydantic's row models: ~0.45 s) loads for this command only
    from wikihowqa.answer import answer_split
    from wikihowqa.answer.options import command_settings
    from wikihowqa.io import DatasetFolder
    from wikihowqa.progress import Bars
    from wikihowqa.schema.files import read_settings
    from wikihowqa.schema.settings import AnswerSettings

    settings = command_settings(
        system,
        read_settings(config, AnswerSettings),
        set_,
        mode=mode,
        model=model,
        backend=backend,
        max_new_tokens=max_new_tokens,
        encoder_backend=encoder_backend,
    )
    device = device_option(device)
    if fresh:
        from wikihowqa.answer.predictions import default_output, partial_path

        stale = out_file or default_output(DatasetFolder(dataset), system, split)
        for path in (stale, partial_path(stale)):
            path.unlink(missing_ok=True)

    with (
        running_on(executor, ray_address, workers) as runner,
        Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        ) as bar,
    ):
        report = answer_split(
            DatasetFolder(dataset),
            system,
            split=split,
            limit=limit,
            out=out_file,
            settings=settings,
            executor=runner,
            device=device,
            progress=Bars(bar),
            log=lambda message: bar.console.print(f"[dim]{message}[/]"),
        )
    out.print(report.summary(), soft_wrap=True)  # soft_wrap: a path stays whole for scripts that read it
    failure = report.failure()
    if failure:
        console.print(f"[bold red]error:[/] {escape(failure)}", highlight=False, soft_wrap=True)
        raise typer.Exit(1)


@app.command("train")
def train_command(
    dataset: Path = typer.Argument(
        ..., help="Dataset folder with a train split (and a validation split for eval)."
    ),
    config: Path = typer.Option(
        EXAMPLE_TRAIN_SETTINGS,
        "--config",
        show_default=False,
        help="Generator settings file (YAML, TOML or JSON): its [generator] section, or the section alone "
        f"(default: the example that ships, {EXAMPLE_TRAIN_SETTINGS.name}: facebook/bart-base, the paper's "
        "recipe; copy and edit it).",
    ),
    out_dir: Annotated[
        Path | None,
        out_option(
            "checkpoints and the final model (FOLDER/final)",
            "the settings file's output_dir, else DATASET/generator",
        ),
    ] = None,
    output_dir: Annotated[Path | None, deprecated_option("--output-dir", "--out")] = None,
    model: Annotated[
        str | None, model_option("Model to fine-tune instead of the settings file's", "the file's model")
    ] = None,
    max_steps: int = typer.Option(None, "--max-steps", help="Stop after this many optimizer steps."),
    fresh: Fresh = False,
    device: Device = "auto",
) -> None:
    """Fine-tune the generator on the train split; resumes from the last checkpoint in the --out folder."""
    # heavy: the generator's training side (torch and transformers behind it) loads for this command only
    from wikihowqa.generate.seq2seq import GeneratorConfig, fine_tune
    from wikihowqa.io import DatasetFolder
    from wikihowqa.schema.files import merge, read_generator_settings

    settings = read_generator_settings(config)  # a full answer-settings file works too
    out_dir = renamed(out_dir, output_dir, "--out", "--output-dir")
    overrides: dict = {}
    if out_dir or "output_dir" not in settings:
        overrides["output_dir"] = str(out_dir or dataset / "generator")
    if model:
        overrides["model"] = model
    if max_steps:
        overrides["train"] = {"max_steps": max_steps}
    result = fine_tune(
        DatasetFolder(dataset),
        GeneratorConfig.from_settings(merge(settings, overrides)),
        resume=not fresh,
        log=lambda message: console.print(f"[dim]{message}[/]"),
        device=device_option(device),
    )
    resumed = f" (resumed from {result.resumed_from.name})" if result.resumed_from else ""
    out.print(
        f"trained {result.global_step} steps on {result.n_train} examples{resumed}; "
        f"final model → {result.final_dir}"
    )
