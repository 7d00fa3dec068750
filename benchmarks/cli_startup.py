"""Start-up of the command line: what every ``wikihowqa`` invocation (``--help`` included) pays before work.

The CLI modules import the stages they run inside the command when the stage pulls a heavy library
(numpy, scipy, lxml, pydantic's row models, FastAPI), with a ``# heavy:`` comment saying so. This measures
what that buys, in one run, interleaved, median of ``--rounds`` fresh interpreters per row:

* ``--help``: ``wikihowqa --help`` as a user runs it;
* ``import wikihowqa.cli``: the same without printing;
* peer ``… + the lazily imported stages``: ``import wikihowqa.cli`` followed by every module the CLI
  imports inside its commands (found in the source with ``ast``): what start-up would cost if they were
  imported at module level;
* with ``--baseline-src DIR`` (e.g. an older tree's ``src/`` from ``git archive``), ``--help`` there too.

PYTHONPATH=src python -m benchmarks.cli_startup [--rounds 15] [--baseline-src DIR] [--no-results]
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def lazy_imports(src: Path) -> list[str]:
    """The project's modules that the CLI modules import inside functions."""
    found: set[str] = set()
    for path in sorted((src / "wikihowqa" / "cli").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("wikihowqa"):
                        found.add(inner.module or "")
                    elif isinstance(inner, ast.Import):
                        found.update(a.name for a in inner.names if a.name.startswith("wikihowqa"))
    return sorted(found)


def timed(code: str, src: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(src)}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--baseline-src", type=Path, default=None)
    parser.add_argument("--no-results", action="store_true", help="Do not append to benchmarks/RESULTS.md.")
    args = parser.parse_args()

    lazy = lazy_imports(SRC)
    help_code = (
        "import sys; sys.argv = ['wikihowqa', '--help']\n"
        "try:\n from wikihowqa.cli import main; main()\nexcept SystemExit:\n pass"
    )
    rows = {
        "`wikihowqa --help`": (help_code, SRC),
        "`import wikihowqa.cli`": ("import wikihowqa.cli", SRC),
        f"peer: `import wikihowqa.cli` + the {len(lazy)} lazily imported stage modules": (
            "import importlib, wikihowqa.cli\n" + "".join(f"importlib.import_module({m!r})\n" for m in lazy),
            SRC,
        ),
    }
    if args.baseline_src is not None:
        rows[f"`wikihowqa --help`, baseline tree ({args.baseline_src})"] = (help_code, args.baseline_src)
    times: dict[str, list[float]] = {name: [] for name in rows}
    for code, src in rows.values():  # warm the file cache and the bytecode once
        timed(code, src)
    for _ in range(args.rounds):
        for name, (code, src) in rows.items():
            times[name].append(timed(code, src))
    reference = statistics.median(times["`wikihowqa --help`"])
    lines = [
        f"Median of {args.rounds} fresh interpreters per row, interleaved; this machine is shared (2 cores).",
        "",
        "| start-up | median s | min s | vs `--help` |",
        "|---|---:|---:|---:|",
    ]
    for name, values in times.items():
        median = statistics.median(values)
        lines.append(f"| {name} | {median:.2f} | {min(values):.2f} | {median / reference:.2f}x |")
    lines += ["", "Lazily imported: " + ", ".join(f"`{m}`" for m in lazy)]
    print("\n".join(lines))
    if not args.no_results:
        from benchmarks.results_md import append_run

        append_run("CLI start-up (benchmarks/cli_startup.py)", "\n".join(lines))


if __name__ == "__main__":
    main()
