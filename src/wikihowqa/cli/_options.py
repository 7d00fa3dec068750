"""Options shared by several commands, each with one meaning everywhere (``Annotated`` typer options).

A command takes ``workers: Workers = None``, ``executor: ExecutorKind = "local"``, ``ray_address:
RayAddress = None`` and ``device: Device = "auto"``, and opens its executor with :func:`running_on`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer

from wikihowqa.device import check_device
from wikihowqa.executor import Executor, ExecutorSettings, open_executor

Workers = Annotated[
    int | None,
    typer.Option(
        "--workers",
        help="Batches at once: worker processes here (default: one per usable CPU); with --executor ray, "
        "Ray tasks in flight (default: the cluster's CPUs).",
        min=0,
    ),
]
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
