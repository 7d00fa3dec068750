"""Every stage a user runs, as a user runs it, at 1 % and 10 % of the paper's size (100 % with ``--full``).

One generated corpus per size (``paper_corpus``: ``wikihowqa.synthetic.dataset``'s questions, summaries and
documents, each cited page served in the chrome of a real page of the web-extraction dev set, so pages
weigh what real pages weigh) is served by the replay site as wikiHow and the Wayback Machine, and the
stages run as subprocesses of ``python -m wikihowqa``: build, parse, split, stats, answer (BM25, dense,
hybrid + lead; TextRank; the copy-top-passages and random-train-answer lower bounds), evaluate (ROUGE,
BERTScore, grounding) and export-hub. For each stage and size: wall time, peak RSS of the stage's process
tree, output and state size, throughput per unit (article, document, passage, question, answer), and the
growth exponent between sizes (log of the time ratio over log of the unit ratio: 1 is linear; the same for
peak memory: 0 is flat). The peer is the size below: a stage is measured against itself at a tenth of the
size, in the same run.

Resumable, stage by stage: every stage's figures go to ``WORK/results.json`` the moment it completes; a
rerun skips recorded stages (``--redo`` measures again), and a stage killed midway is simply rerun (every
stage command resumes its own work). ``--stage NAME`` runs one stage at every selected size. A stage
stopped with the benchmark (Ctrl-C, SIGTERM: a long run spread over several sessions) has its group killed
and the time, CPU seconds and memory it used kept in ``results.json``; when it is run again it resumes its
own work, and its row is the sum of its runs (``runs`` in the row).

``--kill-check`` (item 2 of issue 27): at ``--kill-size`` (10 % by default), in a fresh dataset folder,
build, parse, answer dense+lead (its embedding cache) and evaluate are each killed with SIGKILL at a
seeded random point of their uninterrupted time and run again; the check fails loudly (exit 1) unless
the output is byte-identical to the uninterrupted run's and the work done before the kill is not done
again (counted: requests served, pages resumed, passages embedded, scores computed).

    python -m benchmarks.paper_scale [--work DIR] [--sizes 0.01,0.1] [--full] [--stage NAME] [--redo]
    python -m benchmarks.paper_scale --kill-check [--kill-size 0.1] [--stage evaluate]
    python -m benchmarks.paper_scale --table          # print the tables of what is recorded
"""

from __future__ import annotations

import argparse
import math
import random
import signal
import sys
from pathlib import Path

from benchmarks.paper_stages import (
    NEEDS,
    STAGES,
    SYSTEMS,
    Results,
    Site,
    Size,
    label,
    run_corpus,
    run_stage,
    serve,
)
from wikihowqa.synthetic.dataset import PAPER_DOCUMENTS, PAPER_QUESTIONS

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


def run_size(size: Size, stages: list[str], results: Results, redo: bool) -> None:
    print(f"{size.label}: {size.questions:,} questions, {size.documents:,} documents", flush=True)
    for stage in stages:
        if results.stage(size, stage) and not redo:
            continue
        if stage == "corpus":
            run_corpus(size, results)
            continue
        missing = [s for s in NEEDS.get(stage, NEEDS["answer"]) if not results.stage(size, s)]
        if missing:
            raise SystemExit(f"{stage} at {size.label} needs {', '.join(missing)} first")
        if stage == "build":
            with Site(size.corpus, size.logs) as site:
                run_stage(size, stage, results, site=site)
        else:
            run_stage(size, stage, results)


# --------------------------------------------------------------------------- the tables


def exponent(a: float, b: float, na: float, nb: float) -> float | None:
    if min(a, b, na, nb) <= 0 or na == nb:
        return None
    return math.log(b / a) / math.log(nb / na)


def tables(results: Results) -> str:
    sizes = sorted(results.data["sizes"].items(), key=lambda kv: kv[1]["fraction"])
    lines = [
        "| stage | size | units | wall s | CPU s | units/s | peak RSS MB (tree / largest process) "
        "| peak PSS MB (tree) | output MB | state MB | time exponent (CPU s where measured) "
        "| memory exponent | commit |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for stage in STAGES:
        previous = None
        for name, entry in sizes:
            row = entry["stages"].get(stage)
            if row is None:
                continue
            if stage == "corpus":
                lines.append(
                    f"| corpus (generated) | {name} | {row['units']:,} documents | {row['wall_s']:.1f} | — | "
                    f"{row['units'] / row['wall_s']:.1f} | — | {row['snapshot_bytes'] / 2**20:.0f} "
                    f"(median page {row['page_bytes_median'] / 1024:.0f} KB) | — | — | — | — | "
                    f"{row.get('commit') or '—'} |"
                )
                continue
            et = em = "—"
            if previous is not None:
                na, nb = previous["units"], row["units"]
                if stage == "answer-dense":  # its work is passages, not questions
                    na, nb = previous["passages_embedded"], row["passages_embedded"]
                key = "cpu_s" if previous.get("cpu_s") and row.get("cpu_s") else "wall_s"  # CPU: load-free
                t = exponent(previous[key], row[key], na, nb)
                m = exponent(previous["peak_rss_mb"], row["peak_rss_mb"], na, nb)
                et = f"{t:.2f}" if t is not None else "—"
                em = f"{m:.2f}" if m is not None else "—"
            extra = ""
            if stage == "answer-dense" and row.get("passages_embedded"):
                extra = f" ({row['passages_embedded'] / row['wall_s']:.1f} passages/s)"
            cpu = f"{row['cpu_s']:.0f}" if row.get("cpu_s") else "—"
            runs = f" ({row['runs']} runs, summed)" if row.get("runs", 1) > 1 else ""
            pss = f"{row['peak_pss_mb']:.0f}" if row.get("peak_pss_mb") else "—"
            commit = ", ".join(row.get("commits") or [row.get("commit") or "—"])
            lines.append(
                f"| {stage} | {name}{runs} | {row['units']:,} {row['unit']} | {row['wall_s']:.1f} | {cpu} | "
                f"{row['per_s']:.2f}{extra} | {row['peak_rss_mb']:.0f} / {row['peak_proc_rss_mb']:.0f} | "
                f"{pss} | {row['output_mb']:.1f} | {row['state_mb']:.1f} | {et} | {em} | {commit} |"
            )
            previous = row
    return "\n".join(lines)


#: Stages whose work runs on every core (a process pool or a Ray cluster's workers); the others run in one
#: process and gain nothing from more cores.
PARALLEL = {"build", "parse", "split", "stats", "answer-dense", "answer-hybrid", "evaluate"}
#: The paper's units; its test split taken as the split's default 20 % (smaller sizes have fewer
#: unclustered questions, so a smaller test share).
PAPER_UNITS = {
    "documents": PAPER_DOCUMENTS,
    "questions": PAPER_QUESTIONS,
    "test_questions": round(0.2 * PAPER_QUESTIONS),
    "answers": round(0.2 * PAPER_QUESTIONS),
}
#: Cores of the two larger machines of the budget.
BUDGET_CORES = (16, 64)


def _at(points: list[tuple[float, float]], n: float) -> float:
    """A quantity at ``n`` units from its measurements ``(units, value)``: the line through the last two
    (a fixed cost, such as loading a model, plus a cost per unit), or proportional from one."""
    (n1, v1), (n2, v2) = points[-2] if len(points) > 1 else (0.0, 0.0), points[-1]
    slope = (v2 - v1) / (n2 - n1) if n2 != n1 else 0.0
    if slope <= 0:
        return v2 if len(points) > 1 else v2 * n / n2
    return v2 + slope * (n - n2)


def budget(results: Results, cores_here: int = 2) -> str:
    """Each stage at the paper's size. Where the 100 % run measured the stage, its row: the wall time on
    this machine's cores, the peak memory, the output and state sizes, all measured; the larger machines'
    times are derived from its CPU seconds (a parallel stage's divided among the cores: ideal scaling; a
    one-process stage's on one core) and labelled so. Where it did not, every figure is extrapolated
    from the two largest sizes measured (a fixed part plus a part per unit: the growth exponents say the
    stages are about linear) and the row says so."""
    sizes = sorted(results.data["sizes"].values(), key=lambda e: e["fraction"])
    lines = [
        f"| stage | paper-scale units | source | {cores_here} cores | {BUDGET_CORES[0]} cores (derived) "
        f"| Ray, {BUDGET_CORES[1]} worker cores (derived) | peak RSS | output + state |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for stage in STAGES[1:]:
        entries = [e for e in sizes if stage in e["stages"]]
        if not entries:
            continue
        rows = [e["stages"][stage] for e in entries]
        last = rows[-1]
        unit = last["unit"]
        measured = entries[-1]["fraction"] >= 1.0
        if measured:
            n, source = last["units"], "measured at 100 %"
            here, more = last["wall_s"], _spread(stage, last["cpu_s"])
            rss, disk = last["peak_rss_mb"], last["output_mb"] + last["state_mb"]
            here_text = f"{_hours(here)} (CPU {_hours(last['cpu_s'])}, load {last.get('load_1m', 0):.1f})"
        else:
            n = PAPER_UNITS[unit] * (len(SYSTEMS) if stage == "evaluate" else 1)
            source = f"extrapolated from {', '.join(label(e['fraction']) for e in entries[-2:])}"
            if all(r.get("cpu_s") for r in rows):  # CPU seconds: what the stage costs, whatever the load
                cpu = _at([(r["units"], r["cpu_s"]) for r in rows], n)
                here, more = (cpu / cores_here if stage in PARALLEL else cpu), _spread(stage, cpu)
            else:  # wall time on this machine's cores
                here = _at([(r["units"], r["wall_s"]) for r in rows], n)
                more = [here * cores_here / c if stage in PARALLEL else here for c in BUDGET_CORES]
            rss = last["peak_rss_mb"]
            disk = _at([(r["units"], r["output_mb"] + r["state_mb"]) for r in rows], n)
            how = f": CPU s ÷ {cores_here}" if stage in PARALLEL else ""
            here_text = f"{_hours(here)} (extrapolated{how})"
        lines.append(
            f"| {stage} | {n:,} {unit} | {source} | {here_text} | {_hours(more[0])} | {_hours(more[1])} "
            f"| {rss:.0f} MB{'' if measured else ' (at the largest size measured)'} "
            f"| {_size(disk)} |"
        )
    return "\n".join(lines)


def _spread(stage: str, cpu_s: float) -> list[float]:
    """A stage's time on each larger machine: a parallel stage's CPU seconds divided among its cores."""
    return [cpu_s / c if stage in PARALLEL else cpu_s for c in BUDGET_CORES]


def _size(mb: float) -> str:
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb:.0f} MB"


def _hours(seconds: float) -> str:
    if seconds < 60:
        return "< 1 min"
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/wikihowqa-paper-scale"), help="work folder")
    parser.add_argument("--sizes", default="0.01,0.1", help="fractions of the paper's size, comma-separated")
    parser.add_argument("--full", action="store_true", help="also the paper's full size (hours to days here)")
    parser.add_argument(
        "--stage",
        help=f"run only these stages, comma-separated, at each selected size ({', '.join(STAGES)}); "
        "with --kill-check, check only these (in a copy of the uninterrupted run's folder)",
    )
    parser.add_argument("--redo", action="store_true", help="measure stages already recorded again")
    parser.add_argument("--table", action="store_true", help="only print the recorded tables")
    parser.add_argument("--budget", action="store_true", help="also print the paper-scale budget")
    parser.add_argument("--kill-check", action="store_true", help="kill -9 the long stages and rerun them")
    parser.add_argument("--kill-size", type=float, default=0.1, help="fraction the kill check runs at")
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill points")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--url-file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.url_file, args.port)
        return
    args.work.mkdir(parents=True, exist_ok=True)
    # SIGTERM as Ctrl-C: a running stage is killed and what it used so far is kept for its resumed row.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    results = Results(args.work / "results.json")
    if args.kill_check:
        from benchmarks.paper_kill import kill_check

        only = args.stage.split(",") if args.stage else None
        ok = kill_check(Size(args.work, args.kill_size), results, args.seed, only)
        print(kill_table(results))
        sys.exit(0 if ok else 1)
    if not args.table:
        fractions = [float(f) for f in args.sizes.split(",") if f] + ([1.0] if args.full else [])
        stages = args.stage.split(",") if args.stage else list(STAGES)
        unknown = sorted(set(stages) - set(STAGES))
        if unknown:
            parser.error(f"unknown stage {unknown[0]!r} (stages: {', '.join(STAGES)})")
        for fraction in fractions:
            run_size(Size(args.work, fraction), stages, results, args.redo)
    print(tables(results))
    if args.budget:
        print()
        print(budget(results))
    if results.data.get("kill"):
        print()
        print(kill_table(results))


def kill_table(results: Results) -> str:
    lines = [
        "| size | stage | killed after s (of uninterrupted) | done before the kill | rerun s | redone "
        "| output identical | commit |",
        "|---|---|---:|---|---:|---|---|---|",
    ]
    for name, checks in results.data.get("kill", {}).items():
        for stage, c in checks.items():
            lines.append(
                f"| {name} | {stage} | {c['killed_after_s']:.1f} ({c['uninterrupted_s']:.1f}) | "
                f"{c['done']} | "
                f"{c['rerun_s']:.1f} | {c['redone']} | {'yes' if c['identical'] else '**NO**'} | "
                f"{c.get('commit') or '—'} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    random.seed(0)
    main()
