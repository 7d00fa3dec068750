"""Where the parallel stages run: this machine's processes, or a Ray cluster — one setting for all of them.

Every parallel stage (parse, question embeddings, dense retrieval, local generation, ROUGE, BERTScore,
grounding, statistics) cuts its work into batches and hands them to an :class:`Executor`, which returns
the results *in input order*. The stage itself — on the driver — stays the only writer of outputs, caches
and SQLite files, so resumability and atomic outputs are the same whichever executor runs the batches.

``local`` (the default) is what the stages always did: a process pool on this machine for CPU work, the
neural models in this process. ``ray`` sends each batch to a Ray cluster as a task (Ray, not a home-made
engine: it runs on laptops, Kubernetes and Slurm). Ray tasks rather than Ray Data ``map_batches``: tasks
keep the input order without a sort, retry on another node when a node dies (``max_retries``), and a
model is loaded once per worker process (``MODELS`` below), so GPU workers keep theirs across batches.

This module also owns the one rule for how many workers a stage uses (:func:`worker_count`).
"""

from __future__ import annotations

import os
import socket
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from wikihowqa import __version__
from wikihowqa.core.errors import SettingsError
from wikihowqa.runtime.workers import process_pool

EXECUTORS = ("local", "ray")
#: The one line a user without Ray is shown.
RAY_INSTALL = "--executor ray needs Ray: pip install 'wikihowqa[ray]'"
#: Seconds to wait for a cluster's head to accept a connection before saying it cannot be reached.
CONNECT_TIMEOUT_S = 5.0
#: Attempts of a Ray task whose worker or node died (Ray reruns it elsewhere); application errors are not
#: retried — they would fail again.
TASK_RETRIES = 4

A = TypeVar("A")
R = TypeVar("R")


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask, not the machine's count: containers, taskset)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def worker_count(workers: int | None, *, items: int | None = None, parallel_from: int = 0) -> int:
    """The one rule of the parallel stages: ``workers`` processes when a count is given; ``None`` or 0: every
    usable CPU — or 1 when there are ``items`` and fewer than ``parallel_from`` of them (below that a
    pool's start-up costs more than it saves; each stage measures its own threshold)."""
    if workers is not None and workers < 0:
        raise SettingsError(f"--workers {workers}: give a count (0 or none: one per usable CPU)")
    if workers:
        return workers
    if items is not None and items < parallel_from:
        return 1
    return usable_cpus()


class WorkerLost(RuntimeError):
    """A worker process (or node) died while running a batch, and the batch could not be finished."""


class ModelSpec(Protocol):
    """A picklable, hashable description of a model: ``build()`` loads it (once per worker process)."""

    def build(self) -> Any: ...


#: Models loaded in this process, by spec: a worker (local or Ray) loads each model once.
MODELS: dict[Hashable, Any] = {}


def loaded(spec: ModelSpec) -> Any:
    """The model of ``spec``, loaded on first use in this process."""
    model = MODELS.get(spec)
    if model is None:
        model = MODELS[spec] = spec.build()
    return model


def call_model(spec: ModelSpec, method: str, batch: Any) -> Any:
    """``loaded(spec).method(batch)``: what a model batch runs, here or on a worker."""
    return getattr(loaded(spec), method)(batch)


class Executor(Protocol):
    kind: str
    #: whether batches leave this process's machine (results are then compared, never assumed equal)
    distributed: bool
    #: batches that run at once (processes here; CPUs of the cluster)
    parallelism: int

    def map(self, fn: Callable[[A], R], batches: Iterable[A]) -> Iterator[R]:
        """``fn(batch)`` for every batch, in order, with a bounded number in flight."""
        ...

    def map_model(
        self, spec: ModelSpec, method: str, batches: Iterable[Any], *, gpus: float = 0
    ) -> Iterator[Any]:
        """``loaded(spec).method(batch)`` for every batch, in order; ``gpus`` per worker on a cluster."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class ExecutorSettings:
    """``--executor``, ``--ray-address`` (default ``$RAY_ADDRESS``) and ``--workers`` of every stage."""

    kind: str = "local"
    address: str | None = None
    workers: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise SettingsError(f"--executor {self.kind!r}: expected {' or '.join(EXECUTORS)}")
        if self.address and self.kind != "ray":
            raise SettingsError("--ray-address is for --executor ray")
        worker_count(self.workers)  # a negative count is refused here, before any work


def open_executor(settings: ExecutorSettings | None = None) -> Executor:
    """The executor ``settings`` ask for (``ray``: connected to the cluster, or a one-line error)."""
    settings = settings or ExecutorSettings()
    if settings.kind == "ray":
        return RayExecutor(settings.address or os.environ.get("RAY_ADDRESS") or None, settings.workers)
    return LocalExecutor(settings.workers)


# --------------------------------------------------------------------------- local


class LocalExecutor:
    """This machine: CPU batches in a process pool (1 worker: in this process), models in this process."""

    kind = "local"
    distributed = False

    def __init__(self, workers: int | None = None) -> None:
        self.parallelism = worker_count(workers)

    def map(self, fn: Callable[[A], R], batches: Iterable[A]) -> Iterator[R]:
        if self.parallelism == 1:
            yield from map(fn, batches)
            return
        window = self.parallelism * 4  # batches in flight: a huge input is never all in memory
        stream = iter(batches)
        with process_pool(self.parallelism) as pool:  # workers die with this process
            pending: deque[Future[R]] = deque()
            while True:
                while len(pending) < window:
                    batch = next(stream, _END)
                    if batch is _END:
                        break
                    pending.append(pool.submit(fn, batch))
                if not pending:
                    return
                try:
                    result = pending.popleft().result()
                except BrokenProcessPool as exc:
                    raise WorkerLost("a worker process died (a crash in a C library?)") from exc
                yield result

    def map_model(
        self, spec: ModelSpec, method: str, batches: Iterable[Any], *, gpus: float = 0
    ) -> Iterator[Any]:
        for batch in batches:
            yield call_model(spec, method, batch)

    def close(self) -> None:
        pass


_END: Any = object()


# --------------------------------------------------------------------------- Ray


def _check_reachable(address: str) -> None:
    """A ``host:port`` nobody answers at is one line now, not Ray's minute of reconnect attempts."""
    if address in ("auto", "local") or "://" in address:
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise SettingsError(f"--ray-address {address!r}: expected HOST:PORT of the cluster's head (or auto)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        raise SettingsError(
            f"cannot reach the Ray cluster at {address} ({exc.strerror or exc}); "
            "is `ray start --head` running there?"
        ) from None


def _probe() -> str:
    return __version__  # run on a worker: the version that worker's installed package has


class RayExecutor:
    """A Ray cluster (``address``: ``HOST:PORT`` of its head, ``auto``; ``None``: Ray on this machine)."""

    kind = "ray"
    distributed = True

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise SettingsError(RAY_INSTALL) from None
        if address:
            _check_reachable(address)
        self._ray = ray
        # A program that connected to Ray itself keeps its connection (and its job's warm workers).
        self._owns_connection = not ray.is_initialized()
        if self._owns_connection:
            try:
                ray.init(
                    address=address,
                    log_to_driver=False,
                    logging_level="WARNING",
                    configure_logging=False,
                    include_dashboard=False if not address else None,
                )
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise SettingsError(f"cannot connect to the Ray cluster at {address}: {exc}") from None
        self.address = address
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.gpus_available = float(ray.cluster_resources().get("GPU", 0))
        self.parallelism = worker_count(workers) if workers else max(1, cpus)
        self._task = ray.remote(_run_batch).options(max_retries=TASK_RETRIES, num_cpus=1)
        self._check_versions()

    def _check_versions(self) -> None:
        try:
            theirs = self._get(self._ray.remote(_probe).options(num_cpus=0).remote())
        except WorkerLost:
            raise
        except Exception as exc:  # the workers cannot even import the package
            raise SettingsError(
                f"the Ray workers cannot run wikihowqa ({type(exc).__name__}); install wikihowqa "
                f"{__version__} on every node: pip install 'wikihowqa[ray]=={__version__}'"
            ) from None
        if theirs != __version__:
            raise SettingsError(
                f"the Ray workers run wikihowqa {theirs}, this machine {__version__}: install one version on "
                "every node"
            )

    def _get(self, ref: Any) -> Any:
        ray = self._ray
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:  # the batch's own error: raised here as itself
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None
            raise
        except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
            raise WorkerLost(f"a Ray worker died {TASK_RETRIES} times on this batch: {exc}") from exc
        except ray.exceptions.ObjectLostError as exc:
            raise WorkerLost(f"a batch's result was lost with its node: {exc}") from exc

    def _stream(self, submit: Callable[[Any], Any], batches: Iterable[Any]) -> Iterator[Any]:
        window = self.parallelism * 2  # every worker busy, one batch queued behind each
        stream = iter(batches)
        pending: deque[Any] = deque()
        while True:
            while len(pending) < window:
                batch = next(stream, _END)
                if batch is _END:
                    break
                pending.append(submit(batch))
            if not pending:
                return
            yield self._get(pending.popleft())

    def map(self, fn: Callable[[A], R], batches: Iterable[A]) -> Iterator[R]:
        fn_ref = self._ray.put(fn)
        return self._stream(lambda batch: self._task.remote(fn_ref, batch), batches)

    def map_model(
        self, spec: ModelSpec, method: str, batches: Iterable[Any], *, gpus: float = 0
    ) -> Iterator[Any]:
        if gpus and not self.gpus_available:
            raise SettingsError("--device cuda: the Ray cluster has no GPUs (ray status lists its resources)")
        options: dict[str, Any] = {"max_retries": TASK_RETRIES, "num_cpus": 1}
        if gpus:
            # max_calls=0: a GPU worker is kept (with its loaded model) instead of Ray's one task per process
            options |= {"num_gpus": gpus, "max_calls": 0}
        task = self._ray.remote(call_model).options(**options)
        spec_ref = self._ray.put(spec)
        return self._stream(lambda batch: task.remote(spec_ref, method, batch), batches)

    def close(self) -> None:
        if self._owns_connection and self._ray.is_initialized():
            self._ray.shutdown()


def _run_batch(fn: Callable[[A], R], batch: A) -> R:
    return fn(batch)
