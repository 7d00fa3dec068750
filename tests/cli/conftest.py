"""One runner for every command-line test: ``cli(*args)`` runs ``wikihowqa ARGS`` as a user would.

In this process (so a test may monkeypatch what a command calls), through :func:`wikihowqa.cli.main` —
the entry point's own error handling, so a user mistake is the one red line and exit status 2 that a
user sees, not an exception left in a result. Standard output and standard error are kept apart.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.export.conftest import small_dataset  # noqa: F401  fixtures of the tests moved here
from tests.humaneval.app.conftest import study_dir, study_template, valid_body  # noqa: F401
from tests.replay.conftest import corpus_dir  # noqa: F401  a fixture: the replay test corpus
from wikihowqa.cli import main


@dataclass(frozen=True)
class Run:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        """Both streams, standard output first (for "the command said X" anywhere)."""
        return self.stdout + self.stderr

    @property
    def lines(self) -> list[str]:
        """The non-blank lines of standard error (where messages and warnings go)."""
        return [line for line in self.stderr.splitlines() if line.strip()]


@pytest.fixture
def cli():
    """``cli(*args, env=None, cwd=None)``: run one command; arguments may be paths or numbers."""

    def run(*args: object, env: dict[str, str] | None = None, cwd: Path | None = None) -> Run:
        runner = CliRunner()
        here = os.getcwd()
        with runner.isolation(env=env) as (stdout, stderr, _):
            argv = sys.argv
            sys.argv = ["wikihowqa", *map(str, args)]
            code = 0
            try:
                if cwd is not None:
                    os.chdir(cwd)
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            finally:
                sys.argv = argv
                os.chdir(here)
            return Run(code, stdout.getvalue().decode(), stderr.getvalue().decode())

    return run
