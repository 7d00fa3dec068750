"""Shared fixtures: offline model settings and the embedded real examples; and the session's check that no
process a test started is left running when the run ends (``wikihowqa.runtime.processes``)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import psutil
import pytest

from wikihowqa.runtime.processes import become_subreaper, describe, kill_all, leftover_processes

pytest_plugins = ["tests.archive_fixtures"]

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def real_examples_dir() -> Path:
    from wikihowqa.demo.paths import real_examples_path

    return real_examples_path()


def pytest_configure(config: pytest.Config) -> None:
    # Orphans (a server's workers whose parent was stopped) come to this process, where the check below
    # finds them, instead of to init.
    become_subreaper()


#: What the test runner's workers (pytest-xdist, ``scripts/test.sh``) found left running, sent to the main
#: process with their results.
_WORKERS_LEFT: list[str] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    _WORKERS_LEFT.extend(getattr(node, "workeroutput", {}).get("leftover_processes", []))


def _runner_workers() -> set[int]:
    """The pids of this run's xdist workers (execnet's bootstrap reads its code from stdin)."""
    workers = set()
    for proc in psutil.Process().children():
        with contextlib.suppress(psutil.Error):
            if "exec(eval(sys.stdin.readline()))" in " ".join(proc.cmdline()):
                workers.add(proc.pid)
    return workers


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run, loudly, if any process started during it is still alive: every server a test starts
    must be stopped with its whole process group. What is left is listed, then killed. A worker of a
    parallel run checks its own and sends what it found to the main process, which fails the run."""
    worker = hasattr(session.config, "workerinput")
    left = leftover_processes(skip=() if worker else _runner_workers())
    lines = [describe(proc) for proc in left]
    kill_all(left)
    if worker:
        session.config.workeroutput["leftover_processes"] = lines  # type: ignore[attr-defined]
        return
    lines += _WORKERS_LEFT
    if not lines:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_sep("!", f"{len(lines)} process(es) left running by the tests", red=True, bold=True)
        for line in lines:
            reporter.write_line(line, red=True)
    else:
        print(f"{len(lines)} process(es) left running by the tests:", *lines, sep="\n")
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
