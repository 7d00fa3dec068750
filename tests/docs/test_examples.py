"""Every shell example of the docs, run as a reader would run it.

Each page's examples run in order, in a fresh copy of one demo run's output (``wikihowqa demo --out demo``,
run once per session: the quickstart's first example), so a tutorial is one journey and a later command
sees what an earlier one wrote. A command must exit 0 and, in a ``console`` block, print the output the
page shows (paths of the temporary folder and timings aside). ``WIKIHOWQA_DOCS_REGENERATE=1`` writes what
the commands printed into the pages instead: the output shown in the docs is captured, never pasted.
Examples marked ``<!-- docs: not run (REASON) -->`` and synopses are parsed against the command line:
the command and each option must exist. The counts are printed at the end of the session.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.docs import examples
from wikihowqa.cli import _reference

pytestmark = [pytest.mark.slow]

REGENERATE = os.environ.get("WIKIHOWQA_DOCS_REGENERATE") == "1"
COMMAND_TIMEOUT_S = 600
#: The demo runs every stage (5 minutes on an idle 2-core machine; the tests' other worker shares the cores).
DEMO_TIMEOUT_S = 1500
SERVER_START_S = 8
#: Timings and dates differ from run to run: "3.2 s", "12 ms", "1.5 min", "0:00:03", a run's ISO time.
TIMING = re.compile(
    r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?"
    r"|\b\d{8}T\d{6}Z\b"  # a study's id: study-20261207T145154Z
    r"|\b\d+(?:\.\d+)?\s?(?:s|ms|sec|seconds|min|minutes)\b|\b\d+:\d\d:\d\d\b"
)
#: A library's progress bar or notice that its own switches above did not silence.
LIBRARY_NOISE = re.compile(r"it/s\]$|^Loading weights|^\[transformers\]")
COUNTS: Counter[str] = Counter()

PAGES = [p for p in examples.pages() if examples.blocks(p)]


def _options() -> dict[str, set[str]]:
    """The option names each command takes; a deprecated (hidden) old name is not one the docs may use."""
    found = {name: {n for p in c.params if not p.hidden for n in _reference.param_names(p)} for name, c in
             _reference.commands().items()}  # fmt: skip
    found[""] = {n for p in _reference.root_command().params for n in _reference.param_names(p)}
    return found


@pytest.fixture(scope="module")
def options() -> dict[str, set[str]]:
    return _options()


def shell_env(home: Path) -> dict[str, str]:
    """What the commands run under: this interpreter's ``wikihowqa`` first on PATH, plain 88-column output."""
    env = dict(os.environ)
    # the reader's model cache (converted models) outlives a page, as a user's does: not under the page's HOME
    env.setdefault("XDG_CACHE_HOME", str(Path.home() / ".cache"))
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        COLUMNS="88", NO_COLOR="1", TERM="dumb", HOME=str(home),
        HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
        # the libraries' own progress bars and notices (model loading) are not wikihowqa's output
        TRANSFORMERS_VERBOSITY="error", HF_HUB_DISABLE_PROGRESS_BARS="1", TQDM_DISABLE="1",
    )  # fmt: skip
    env.pop("FORCE_COLOR", None)
    return env


def normalise(text: str, workdir: Path) -> list[str]:
    """Output as a page shows it: the temporary folder is ``~``, trailing blanks go."""
    text = text.replace(str(workdir.resolve()), "~").replace(str(workdir), "~")
    lines = [line.rstrip() for line in text.splitlines() if not LIBRARY_NOISE.search(line)]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def comparable(lines: list[str]) -> list[str]:
    return [TIMING.sub("<time>", line) for line in lines]


def run_command(
    command: str, cwd: Path, env: dict[str, str], timeout: float = COMMAND_TIMEOUT_S
) -> tuple[int, str]:
    done = subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, timeout=timeout, start_new_session=True, check=False,
    )  # fmt: skip
    return done.returncode, done.stdout


class Servers:
    """Commands a page starts and leaves serving (a study server, the replay site): stopped at its end."""

    def __init__(self) -> None:
        self.running: list[subprocess.Popen] = []

    def start(self, command: str, cwd: Path, env: dict[str, str]) -> str:
        proc = subprocess.Popen(
            ["bash", "-c", f"exec {command}"], cwd=cwd, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
        self.running.append(proc)
        time.sleep(SERVER_START_S)
        if proc.poll() is not None:
            output = proc.stdout.read() if proc.stdout else ""
            raise AssertionError(f"{command!r} stopped at once (exit {proc.returncode}):\n{output}")
        return command

    def stop(self) -> None:
        for proc in self.running:
            try:
                os.killpg(proc.pid, signal.SIGINT)
                proc.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            if proc.stdout:
                proc.stdout.close()


def _rewrite(page: Path, replacements: list[tuple[int, int, list[str]]]) -> None:
    lines = page.read_text(encoding="utf-8").splitlines()
    for start, length, new in sorted(replacements, reverse=True):
        lines[start : start + length] = new
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(examples.DOCS)))
def test_every_example_of_the_page_runs_and_prints_what_the_page_shows(page, docs_workdir, options):
    workdir, env, demo = docs_workdir(page)
    servers = Servers()
    replacements: list[tuple[int, int, list[str]]] = []
    failures: list[str] = []
    try:
        for block in examples.blocks(page):
            for command in block.commands:
                where = f"{block.page.relative_to(examples.DOCS)}:{command.line}"
                if block.kind in ("not run", "synopsis"):
                    COUNTS[f"parsed ({block.reason or block.kind})"] += 1
                    for call in examples.wikihowqa_calls(command.text):
                        bad = examples.unknown_words(call, options)
                        assert not bad, f"{where}: {command.text!r}: unknown to the command line: {bad}"
                    continue
                if block.kind == "server":
                    COUNTS["run (servers)"] += 1
                    servers.start(command.text, workdir, env)
                    continue
                COUNTS["run"] += 1
                if command.text == demo[0]:  # the session's one demo run, captured in the fixture
                    if demo[1] is None:
                        continue  # a reused demo folder: nothing printed to compare
                    code, output = 0, demo[1]
                else:
                    code, output = run_command(command.text, workdir, env)
                shown = normalise(output, workdir)
                assert code == 0, f"{where}: {command.text!r} exited {code}:\n{output[-3000:]}"
                if block.lang != "console":
                    continue
                if REGENERATE:
                    replacements.append((command.output_start, len(command.output), shown))
                elif comparable(shown) != comparable([line.rstrip() for line in command.output]):
                    failures.append(f"{where}: {command.text!r} printed:\n" + "\n".join(shown))
    finally:
        servers.stop()
    if REGENERATE and replacements:
        _rewrite(page, replacements)
    assert not failures, "output differs from the page (WIKIHOWQA_DOCS_REGENERATE=1 rewrites it):\n" + (
        "\n\n".join(failures)
    )


def test_zz_report_the_counts_of_examples_run_and_parsed():
    """Printed with -s, and kept in the junit properties: how many examples ran, how many were parsed."""
    print("\ndocs examples:", dict(COUNTS))
    if COUNTS:
        assert COUNTS["run"] > 0


def test_a_wrong_option_in_an_example_is_caught(options, tmp_path):
    page = tmp_path / "wrong.md"
    page.write_text(
        "<!-- docs: not run (needs the internet) -->\n"
        "```bash\nwikihowqa evaluate data --no-such-option\n```\n"
        "```text\nwikihowqa nonsense DATASET\n```\n",
        encoding="utf-8",
    )
    found = [
        examples.unknown_words(call, options)
        for block in examples.blocks(page)
        for command in block.commands
        for call in examples.wikihowqa_calls(command.text)
    ]
    assert found == [["--no-such-option"], ["nonsense"]]


def test_the_demo_output_is_shared_not_rerun(docs_workdir):
    first = docs_workdir(examples.DOCS / "quickstart.md")[0]
    second = docs_workdir(examples.DOCS / "quickstart.md")[0]
    assert (
        first != second
        and (first / "demo" / "dataset" / "qa.jsonl").read_bytes()
        == (second / "demo" / "dataset" / "qa.jsonl").read_bytes()
    )


def docs_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A new folder ``NAMEn`` of the run's temporary root — the same path whether or not pytest-xdist runs
    the tests (a worker's own root adds ``popen-gwN/``), since the console wraps the paths commands print
    at 88 columns before the page's ``~`` replaces them. This file runs whole in one worker."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    for n in range(10_000):
        folder = root / f"{name}{n}"
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise RuntimeError(f"no free folder name {name}N under {root}")


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory) -> tuple[Path, str, str]:
    """``wikihowqa demo --out demo`` run once, as the quickstart shows it: (the folder it ran in, holding
    ``demo/`` and ``demo.log``, what it printed; the command). ``WIKIHOWQA_DOCS_DEMO=DIR`` reuses such a
    folder from an earlier session (the run's own output and log, not a copy made by hand)."""
    command = "wikihowqa demo --out demo"
    reuse = os.environ.get("WIKIHOWQA_DOCS_DEMO")
    if reuse:
        base = Path(reuse)
        log = base / "demo.log"
        return base, command, log.read_text(encoding="utf-8") if log.is_file() else ""
    base = docs_folder(tmp_path_factory, "demo-run")
    started = time.monotonic()
    code, output = run_command(command, base, shell_env(base), timeout=DEMO_TIMEOUT_S)
    assert code == 0, output[-3000:]
    (base / "demo.log").write_text(output, encoding="utf-8")
    print(f"\nthe docs' demo run: {time.monotonic() - started:.0f} s ({base})")
    return base, command, output


@pytest.fixture
def docs_workdir(demo_run, tmp_path_factory):
    """``docs_workdir(page)``: a fresh copy of the demo's folder to run a page's examples in, their
    environment, and the demo command with its output (None when the demo folder was reused)."""
    base, command, output = demo_run

    def make(page: Path) -> tuple[Path, dict[str, str], tuple[str, str | None]]:
        work = docs_folder(tmp_path_factory, page.stem)
        shutil.copytree(base / "demo", work / "demo", symlinks=True)
        return work, shell_env(work), (command, output.replace(str(base), str(work)) if output else None)

    return make
