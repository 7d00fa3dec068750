"""Processes the tests and benchmarks start (servers, clusters): each in its own process group, ended with
its whole group.

A server that forks workers (PHP's built-in server with ``PHP_CLI_SERVER_WORKERS``, pywb's gevent, a
uvicorn reloader) leaves them running when only its first process is stopped: the workers are in its
group, so :func:`stop_group` signals the group — SIGTERM, then SIGKILL for what is left after ``grace_s``
— and waits until no live process is in it. The session's own check (``tests/conftest.py``) fails the run
if any process a test started is still alive at its end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Collection, Iterator, Sequence
from typing import Any

import psutil


def start_group(command: Sequence[str], **popen: Any) -> subprocess.Popen:
    """``subprocess.Popen(command, **popen)`` as the leader of a new process group (same session, so it
    still dies with the terminal)."""
    return subprocess.Popen(command, process_group=0, **popen)


def group_members(pgid: int) -> list[psutil.Process]:
    """The live (not zombie) processes of a process group."""
    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
    return found


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def stop_group(process: subprocess.Popen | None, *, grace_s: float = 10.0) -> None:
    """End ``process`` and every process of its group: SIGTERM, then SIGKILL after ``grace_s``; returns once
    none is alive (a process that survives SIGKILL for 10 s is an error)."""
    if process is None:
        return
    pgid = process.pid
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and (process.poll() is None or group_members(pgid)):
        time.sleep(0.05)
    _signal_group(pgid, signal.SIGKILL)
    process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while (left := group_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    if left:
        raise RuntimeError(f"process group {pgid} outlived SIGKILL: {[p.pid for p in left]}")


@contextlib.contextmanager
def running_group(command: Sequence[str], **popen: Any) -> Iterator[subprocess.Popen]:
    """:func:`start_group` for the ``with`` block, :func:`stop_group` after it."""
    process = start_group(command, **popen)
    try:
        yield process
    finally:
        stop_group(process)


# --------------------------------------------------------------------------- the session's own check

_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process the one its orphaned descendants are handed to (Linux ``prctl``), so that a
    server's worker whose parent was stopped stays countable as the test run's descendant instead of
    vanishing under init. ``False`` where the system does not offer it."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def reap_zombies() -> None:
    """Collect the exit status of this process's dead children (orphans handed to the subreaper, which
    no ``Popen`` waits for)."""
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error, ChildProcessError, OSError):
            if child.status() == psutil.STATUS_ZOMBIE:
                os.waitpid(child.pid, os.WNOHANG)


#: Helpers of this interpreter's ``multiprocessing`` (started by a ``spawn`` pool or lock): they end when
#: the interpreter does (their pipe from it closes), so they are no test's leftover.
_INTERPRETER_HELPERS = (
    "from multiprocessing.resource_tracker import main",
    "from multiprocessing.forkserver import main",
)


def _interpreter_helper(proc: psutil.Process) -> bool:
    command = " ".join(proc.cmdline())
    return proc.ppid() == os.getpid() and any(helper in command for helper in _INTERPRETER_HELPERS)


def leftover_processes(*, grace_s: float = 5.0, skip: Collection[int] = ()) -> list[psutil.Process]:
    """The descendants of this process still alive after ``grace_s`` (zombies reaped, never counted; nor
    the interpreter's own ``multiprocessing`` helpers, nor the processes ``skip`` names and theirs: a
    test runner's workers, which check their own)."""
    deadline = time.monotonic() + grace_s
    skipped = set(skip)
    while True:
        reap_zombies()
        alive = []
        for proc in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if skipped and not skipped.isdisjoint([proc.pid, *(p.pid for p in proc.parents())]):
                    continue
                if proc.status() != psutil.STATUS_ZOMBIE and not _interpreter_helper(proc):
                    alive.append(proc)
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.1)


def describe(proc: psutil.Process) -> str:
    """``pid (process group) command line``, for the report of what was left running."""
    try:
        command = " ".join(proc.cmdline()) or proc.name()
        return f"pid {proc.pid} (group {os.getpgid(proc.pid)}): {command[:200]}"
    except (psutil.Error, ProcessLookupError):
        return f"pid {proc.pid}: gone"


def kill_all(procs: list[psutil.Process]) -> None:
    """SIGKILL what a run left, and wait for it (so a failed run does not leave it either)."""
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(procs, timeout=10)
    reap_zombies()
