"""Pool workers die with their parent (kill -9 leaves no orphans) and stay under their memory cap."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

import wikihowqa
from wikihowqa.runtime.processes import start_group, stop_group

# A parent that starts a pool of each kind the stages use, has every worker write its pid, then waits to be
# killed. ``KIND`` picks the pool.
PARENT = textwrap.dedent(
    """
    import os, sys, time
    kind, out = sys.argv[1], sys.argv[2]

    def note(_):
        with open(os.path.join(out, str(os.getpid())), "w"):
            pass
        time.sleep(0.5)
        return os.getpid()

    if kind == "executor":
        from wikihowqa.runtime.executor import LocalExecutor
        work = LocalExecutor(2).map(note, range(8))
        next(work)
    elif kind == "stats":
        import multiprocessing as mp
        from wikihowqa.runtime.workers import init_worker
        pool = mp.get_context("fork").Pool(2, init_worker, (os.getpid(),))
        pool.map_async(note, range(8))
    elif kind == "limited":
        from wikihowqa.runtime.workers import limited_pool
        pool = limited_pool(2, memory_mb=1024)
        [pool.schedule(note, (i,), timeout=60) for i in range(8)]
    else:
        from wikihowqa.runtime.workers import process_pool
        pool = process_pool(2)
        [pool.submit(note, i) for i in range(8)]
    open(os.path.join(out, "ready"), "w").close()
    time.sleep(600)
    """
)


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.parametrize("kind", ["executor", "stats", "pool", "limited"])
def test_workers_exit_when_their_parent_is_killed(tmp_path, kind):
    env = {**os.environ, "PYTHONPATH": str(Path(wikihowqa.__file__).parents[1])}
    parent = start_group([sys.executable, "-c", PARENT, kind, str(tmp_path)], env=env)
    try:
        _kill_the_parent_and_watch_its_workers(parent, tmp_path)
    finally:
        stop_group(parent)  # what a failed check leaves: the parent and its workers, one group


def _kill_the_parent_and_watch_its_workers(parent: subprocess.Popen, tmp_path: Path) -> None:
    deadline = time.monotonic() + 60

    def started() -> list[int]:
        return [int(p.name) for p in tmp_path.iterdir() if p.name.isdigit()]

    while not ((tmp_path / "ready").exists() and len(started()) >= 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = started()
    assert workers and all(_alive(pid) for pid in workers), "the pool never started: nothing to prove"
    parent.send_signal(signal.SIGKILL)
    parent.wait(10)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if _alive(pid)], "orphaned workers outlived their killed parent"


def test_a_worker_forked_from_a_large_process_is_capped_above_what_it_inherited():
    """A parent with torch loaded maps ~2.3 GB: a 2 GB cap below that would fail every allocation."""
    code = textwrap.dedent(
        """
        import mmap
        from wikihowqa.runtime.workers import limit_memory
        inherited = mmap.mmap(-1, 1536 * 1024 * 1024)  # address space, never touched
        limit_memory(512)
        small = bytearray(64 * 1024 * 1024)  # fits in the 512 MB on top of what is mapped
        try:
            block = bytearray(1024 * 1024 * 1024)
        except MemoryError:
            print("capped")
        """
    )
    env = {**os.environ, "PYTHONPATH": str(Path(wikihowqa.__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "capped", done.stderr[-2000:]


def test_a_memory_cap_turns_a_huge_allocation_into_memory_error():
    code = textwrap.dedent(
        """
        from wikihowqa.runtime.workers import limit_memory
        limit_memory(512)
        try:
            block = bytearray(1024 * 1024 * 1024)
        except MemoryError:
            print("MemoryError")
        """
    )
    env = {**os.environ, "PYTHONPATH": str(Path(wikihowqa.__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "MemoryError", done.stderr[-2000:]
