"""Benchmark: peak memory of ``stats`` and ``export-hub`` at two corpus sizes, this code against the code
before (issue 34 §2: both read documents one at a time; before, both held every document).

Two synthetic corpora (``wikihowqa.synthetic``: the second ``--factor`` times the first, same documents per
question) are written once; each stage then runs in a fresh subprocess per size and per code, and the
subprocess's own peak RSS (``ru_maxrss``) and wall time are read. ``stats`` runs with one worker so the
whole work is in that process (forked workers would share, not add, the parent's pages). The peer is the
same stage from ``--before`` (a ``src`` folder of the earlier commit, e.g. from ``git archive``), measured
in the same run on the same corpora; the outputs of the two are compared (stats' per-question file byte
for byte, the Parquet shards value for value).

Run: ``PYTHONPATH=src python -m benchmarks.stream_memory --before /tmp/before/src [--questions 150]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.results_md import append_run

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
stage, dataset, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
t = time.perf_counter()
if stage == "stats":
    from wikihowqa.dataset.folder import DatasetFolder
    from wikihowqa.stats.report import describe
    describe(DatasetFolder(dataset), out, audit=False, workers=1)
else:
    from wikihowqa.export.hub import export_hub
    export_hub(dataset, out)
wall = time.perf_counter() - t
print(json.dumps({"wall": wall, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _corpus(where: Path, questions: int, per_question: int) -> Path:
    import dataclasses

    from wikihowqa.dataset.folder import write_dataset_folder
    from wikihowqa.synthetic import generate_corpus

    examples, documents = generate_corpus(questions, questions * per_question, seed=0)
    splits = ("train", "train", "validation", "test")
    examples = [dataclasses.replace(e, split=splits[i % 4]) for i, e in enumerate(examples)]
    return write_dataset_folder(where, examples, documents, {"kind": "synthetic"}).path


def _run(src: Path, stage: str, dataset: Path, out: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, stage, str(dataset), str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _same(stage: str, a: Path, b: Path) -> bool:
    if stage == "stats":
        name = "stats_per_question.jsonl"
        return (a / name).read_bytes() == (b / name).read_bytes()
    import pyarrow.parquet as pq

    left = sorted(p.relative_to(a) for p in a.rglob("*.parquet"))
    right = sorted(p.relative_to(b) for p in b.rglob("*.parquet"))
    return left == right and all(pq.read_table(a / p).equals(pq.read_table(b / p)) for p in left)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="src folder of the code before (the peer)")
    parser.add_argument("--questions", type=int, default=150, help="questions of the smaller corpus (150)")
    parser.add_argument("--factor", type=int, default=4, help="the larger corpus is this many times it (4)")
    parser.add_argument("--per-question", type=int, default=8, help="documents per question (8)")
    parser.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = parser.parse_args()
    after = Path(__file__).resolve().parents[1] / "src"
    sizes = (args.questions, args.questions * args.factor)
    rows = []
    with tempfile.TemporaryDirectory(prefix="stream-memory-") as tmp:
        work = Path(tmp)
        corpora = {n: _corpus(work / f"corpus{n}", n, args.per_question) for n in sizes}
        for stage in ("stats", "export-hub"):
            for n in sizes:
                before = _run(args.before, stage, corpora[n], work / f"{stage}-before-{n}")
                now = _run(after, stage, corpora[n], work / f"{stage}-after-{n}")
                same = _same(stage, work / f"{stage}-before-{n}", work / f"{stage}-after-{n}")
                rows.append((stage, n, n * args.per_question, before, now, same))
    lines = [
        "| stage | questions | documents | peak RSS before | peak RSS after | after / before "
        "| wall before | wall after | same output |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for stage, n, docs, before, now, same in rows:
        lines.append(
            f"| {stage} | {n:,} | {docs:,} | {before['rss_mb']:.0f} MB | {now['rss_mb']:.0f} MB "
            f"| {now['rss_mb'] / before['rss_mb']:.2f} | {before['wall']:.1f} s | {now['wall']:.1f} s "
            f"| {'yes' if same else 'NO'} |"
        )
    growth = []
    for stage in ("stats", "export-hub"):
        small, large = [r for r in rows if r[0] == stage]
        was, now = large[3]["rss_mb"] / small[3]["rss_mb"], large[4]["rss_mb"] / small[4]["rss_mb"]
        growth.append(f"{stage}: ×{args.factor} corpus → peak RSS ×{was:.2f} before, ×{now:.2f} after")
    load = os.getloadavg()[0]
    body = (
        f"Synthetic corpora (seed 0, {args.per_question} documents per question), one fresh process per "
        f"stage, size and code; stats with 1 worker; load average {load:.1f} on {os.cpu_count()} CPUs. "
        f"`python -m benchmarks.stream_memory --before BEFORE/src --questions {args.questions} "
        f"--factor {args.factor}`\n\n" + "\n".join(lines) + "\n\n" + "; ".join(growth) + "."
    )
    print(body)
    if args.record:
        append_run("stats and export-hub peak memory (benchmarks/stream_memory.py)", body)


if __name__ == "__main__":
    main()
