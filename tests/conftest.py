"""Shared fixtures: offline model settings and the embedded real examples; and the session's check that no
process a test started is left running when the run ends (``wikihowqa.runtime.processes``)."""

from __future__ import annotations

import os
from pathlib import Path

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


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run, loudly, if any process started during it is still alive: every server a test starts
    must be stopped with its whole process group. What is left is listed, then killed."""
    left = leftover_processes()
    if not left:
        return
    lines = [describe(proc) for proc in left]
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_sep("!", f"{len(left)} process(es) left running by the tests", red=True, bold=True)
        for line in lines:
            reporter.write_line(line, red=True)
    else:
        print(f"{len(left)} process(es) left running by the tests:", *lines, sep="\n")
    kill_all(left)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
