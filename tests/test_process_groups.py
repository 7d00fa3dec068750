"""The suite leaves no process running: a run that does fails loudly, naming what it left (and ending it);
a server's forked workers end with its process group."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import psutil
import pytest

from wikihowqa.runtime.processes import group_members, start_group, stop_group

ROOT = Path(__file__).resolve().parents[1]


def _alive_with(marker: str) -> list[int]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if marker in " ".join(proc.info["cmdline"] or ()) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found


#: A run in one process, and a parallel one as ``scripts/test.sh`` makes (pytest-xdist workers).
RUNS = pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "two workers"])


@pytest.mark.slow
@RUNS
def test_a_run_that_leaves_a_process_running_fails_naming_it_and_ends_it(tmp_path, workers):
    """One test starts a sleeper in a session of its own (no group of the run's would hold it); another
    leaves a grandchild whose parent exits (an orphan, handed to the run's process by the subreaper, as
    the PHP server's workers were when only their parent was stopped). In a parallel run each worker
    finds its own and the run fails as one."""
    marker = f"left-behind-{uuid.uuid4().hex}"
    sleeper = f"import time; time.sleep(300)  # {marker}"
    (tmp_path / "test_leaky.py").write_text(
        textwrap.dedent(
            f"""
            import subprocess, sys

            def test_starts_a_sleeper_and_forgets_it():
                subprocess.Popen([sys.executable, "-c", {sleeper!r}], start_new_session=True)

            def test_leaves_an_orphan():
                spawn = "import subprocess, sys; subprocess.Popen([sys.executable, '-c', {sleeper!r}])"
                subprocess.run([sys.executable, "-c", spawn], check=True)
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")])}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-p", "no:cacheprovider"]
    command += workers
    done = subprocess.run(
        [*command, "--rootdir", str(tmp_path), str(tmp_path / "test_leaky.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        assert done.returncode == 1, done.stdout + done.stderr
        assert "2 process(es) left running by the tests" in done.stdout, done.stdout
        assert done.stdout.count(marker) == 2 and "2 passed" in done.stdout
        assert _alive_with(marker) == [], "the run's check named the processes but left them running"
    finally:
        for pid in _alive_with(marker):
            psutil.Process(pid).kill()


@RUNS
def test_a_run_that_leaves_nothing_passes(tmp_path, workers):
    (tmp_path / "test_tidy.py").write_text(
        textwrap.dedent(
            """
            import multiprocessing, subprocess, sys

            def test_waits():
                subprocess.run([sys.executable, "-c", "pass"])

            def test_uses_a_spawn_lock():  # starts multiprocessing's resource tracker, which ends with us
                multiprocessing.get_context("spawn").Lock()
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")])}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-p", "no:cacheprovider"]
    command += workers
    done = subprocess.run(
        [*command, "--rootdir", str(tmp_path), str(tmp_path / "test_tidy.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "left running" not in done.stdout, done.stdout


FORKING_SERVER = textwrap.dedent(
    """
    import os, signal, sys, time
    # Workers that outlive a SIGTERM to their parent, as PHP's built-in server's do.
    for _ in range(3):
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(300)
            os._exit(0)
    print("up", flush=True)
    time.sleep(300)
    """
)


def test_stopping_a_server_ends_the_workers_it_forked():
    process = start_group([sys.executable, "-c", FORKING_SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline() == "up\n"
        deadline = time.monotonic() + 10
        while len(group_members(process.pid)) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = [p for p in group_members(process.pid) if p.pid != process.pid]
        assert len(workers) == 3
        started = time.monotonic()
        stop_group(process, grace_s=1.0)
        assert time.monotonic() - started < 8
        assert not [w.pid for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    finally:
        stop_group(process)
