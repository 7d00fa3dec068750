"""Every stage a user runs, as a user runs it, at 1 % and 10 % of the paper's size (100 % with ``--full``).

One generated corpus per size (``paper_corpus``: ``wikihowqa.synthetic``'s questions, summaries and
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
stage command resumes its own work). ``--stage NAME`` runs one stage at every selected size.

``--kill-check`` (item 2 of issue 27): at ``--kill-size`` (10 % by default), in a fresh dataset folder,
build, parse, answer dense+lead (its embedding cache) and evaluate are each killed with SIGKILL at a
seeded random point of their uninterrupted time and run again; the check fails loudly (exit 1) unless
the output is byte-identical to the uninterrupted run's and the work done before the kill is not done
again (counted: requests served, pages resumed, passages embedded, scores computed).

    python benchmarks/paper_scale.py [--work DIR] [--sizes 0.01,0.1] [--full] [--stage NAME] [--redo]
    python benchmarks/paper_scale.py --kill-check [--kill-size 0.1]
    python benchmarks/paper_scale.py --table          # print the tables of what is recorded
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(BENCH))

from paper_measure import digest, run_measured, size_mb, wikihowqa  # noqa: E402

from wikihowqa.synthetic import PAPER_DOCUMENTS, PAPER_QUESTIONS  # noqa: E402

PAPER_PASSAGES = 1_053_704
SYSTEMS = {
    "answer-bm25": "bm25+lead",
    "answer-dense": "dense+lead",
    "answer-hybrid": "hybrid+lead",
    "answer-textrank": "bm25+textrank",
    "answer-copy": "copy-top-passages",
    "answer-random": "random-train-answer",
}
STAGES = ("corpus", "build", "parse", "split", "stats", *SYSTEMS, "evaluate", "export-hub")
KILLED = ("build", "parse", "answer-dense", "evaluate")
#: What each stage reads (an answer stage: ``answer``).
NEEDS = {
    "build": ("corpus",),
    "parse": ("build",),
    "split": ("parse",),
    "stats": ("split",),
    "answer": ("split",),
    "evaluate": tuple(SYSTEMS),
    "export-hub": ("split",),
}


def label(fraction: float) -> str:
    return f"{fraction * 100:g}pct"


class Size:
    """One size's folders and counts."""

    def __init__(self, work: Path, fraction: float) -> None:
        self.fraction = fraction
        self.label = label(fraction)
        self.questions = max(3, round(PAPER_QUESTIONS * fraction))
        self.documents = max(self.questions, round(PAPER_DOCUMENTS * fraction))
        self.root = work / self.label
        self.corpus = self.root / "corpus"
        self.dataset = self.root / "dataset"
        self.logs = self.root / "logs"

    def chain(self, name: str) -> Size:
        """The same size with another dataset folder (the kill check's), sharing the corpus."""
        other = Size(self.root.parent, self.fraction)
        other.dataset = self.root / name / "dataset"
        other.logs = self.root / name / "logs"
        return other


# --------------------------------------------------------------------------- results file


class Results:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = json.loads(path.read_text()) if path.is_file() else {"sizes": {}, "kill": {}}

    def stage(self, size: Size, stage: str) -> dict | None:
        return self.data["sizes"].get(size.label, {}).get("stages", {}).get(stage)

    def record(self, size: Size, stage: str, row: dict) -> None:
        entry = self.data["sizes"].setdefault(size.label, {"fraction": size.fraction, "stages": {}})
        entry["stages"][stage] = row
        self.save()

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True))
        os.replace(tmp, self.path)


# --------------------------------------------------------------------------- the replay site


class Site:
    """The replay site in a process of its own (not in a stage's tree), snapshots read from disk."""

    def __init__(self, corpus: Path, logs: Path) -> None:
        self.corpus, self.logs = corpus, logs

    def __enter__(self) -> Site:
        url_file = self.logs / "site.url"
        url_file.unlink(missing_ok=True)
        self.logs.mkdir(parents=True, exist_ok=True)
        log = (self.logs / "site.log").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(self.corpus), "--url-file", str(url_file)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.time() + 1800
        while not url_file.is_file():
            if self.proc.poll() is not None or time.time() > deadline:
                raise SystemExit(f"the replay site did not start (see {self.logs / 'site.log'})")
            time.sleep(0.5)
        self.url = url_file.read_text().strip()
        return self

    def requests(self) -> int:
        with urllib.request.urlopen(f"{self.url}/__stats") as answer:
            stats = json.load(answer)
        return sum(stats[g]["requests"] for g in ("mediawiki", "cdx", "playback"))

    def __exit__(self, *exc: object) -> None:
        os.killpg(self.proc.pid, 9)
        self.proc.wait()


def serve(corpus: Path, url_file: Path) -> None:
    import signal

    from wikihowqa.replay import ReplaySite, load_corpus

    site = ReplaySite(corpus=load_corpus(corpus, lazy=True)).start()
    url_file.write_text(site.url)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    site.stop()


# --------------------------------------------------------------------------- what each stage is


def _lines(path: Path) -> int:
    if not path.is_file():
        return 0
    with path.open("rb") as fh:
        return sum(1 for _ in fh)


def _counts(size: Size) -> dict[str, int]:
    """Questions, test questions, documents and passages of the dataset folder as it is now."""
    qa, docs = size.dataset / "qa.jsonl", size.dataset / "documents.jsonl"
    out = {"questions": 0, "test_questions": 0, "documents": 0, "passages": 0}
    if qa.is_file():
        with qa.open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                out["questions"] += 1
                out["test_questions"] += row.get("split") == "test"
    if docs.is_file():
        with docs.open(encoding="utf-8") as fh:
            for line in fh:
                out["documents"] += 1
                out["passages"] += len(json.loads(line).get("passages") or [])
    return out


def predictions(size: Size) -> list[Path]:
    return sorted((size.dataset / "predictions").glob("*.jsonl"))


def plan(size: Size, stage: str, site: Site | None = None) -> tuple[list[str], str, list[Path], list[Path]]:
    """(command, unit, outputs, state) of a stage at a size."""
    d = size.dataset
    if stage == "build":
        assert site is not None
        cmd = wikihowqa(
            "build", str(d), "--api-url", f"{site.url}/api.php", "--wayback-url", site.url,
            "--mediawiki-rate", "0", "--cdx-rate", "0", "--playback-rate", "0", "--concurrency", "16",
            "--contact", "paper-scale@example.org",
        )  # fmt: skip
        outs = [d / "qa.jsonl", d / "documents.jsonl", d / "rejections.jsonl", d / "manifest.json"]
        return cmd, "documents", outs, [d / "build.sqlite", d / "build.sqlite-wal"]
    if stage == "parse":
        return wikihowqa("parse", str(d)), "documents", [d / "documents.jsonl"], [d / ".parse-progress.jsonl"]
    if stage == "split":
        return wikihowqa("split", str(d)), "questions", [d / "qa.jsonl", d / "audit.json"], [d / "cache"]
    if stage == "stats":
        return wikihowqa("stats", str(d)), "questions", [d / "stats"], []
    if stage in SYSTEMS:
        system = SYSTEMS[stage]
        out = d / "predictions" / f"{system}.jsonl"
        cache = [d / "cache" / "embeddings.sqlite"] if stage in ("answer-dense", "answer-hybrid") else []
        return wikihowqa("answer", str(d), "--system", system), "test_questions", [out], cache
    if stage == "evaluate":
        cmd = wikihowqa("evaluate", str(d), *map(str, predictions(size)), "--out", str(d / "report"))
        report = d / "report"
        outs = [p for p in report.glob("*") if p.name != "scores-cache.jsonl"] if report.is_dir() else []
        return cmd, "answers", outs, [report / "scores-cache.jsonl"]
    if stage == "export-hub":
        hub = size.root / "hub"
        cmd = wikihowqa("export-hub", str(d), "--out", str(hub), "--overwrite", "--name", "paper-scale")
        return cmd, "documents", [hub], []
    raise ValueError(stage)


#: The files whose bytes must not depend on an interruption (the manifest holds dates and run times).
def identity_files(size: Size, stage: str) -> list[Path]:
    d = size.dataset
    return {
        "build": [d / "qa.jsonl", d / "documents.jsonl", d / "rejections.jsonl"],
        "parse": [d / "documents.jsonl"],
        "split": [d / "qa.jsonl"],
        "evaluate": [d / "report" / "per_question.jsonl", d / "report" / "per_question.csv"],
    }.get(stage, plan(size, stage)[2] if stage in SYSTEMS else [])


def units(size: Size, stage: str, counts: dict[str, int]) -> int:
    unit = {"build": "documents", "parse": "documents", "export-hub": "documents"}.get(stage)
    if unit:
        return counts[unit]
    if stage in ("split", "stats"):
        return counts["questions"]
    if stage in SYSTEMS:
        return counts["test_questions"]
    if stage == "evaluate":
        return counts["test_questions"] * len(predictions(size))
    raise ValueError(stage)


# --------------------------------------------------------------------------- running stages


def run_corpus(size: Size, results: Results) -> None:
    from paper_corpus import write_paper_corpus

    if size.corpus.exists():
        shutil.rmtree(size.corpus)
    started = time.perf_counter()
    info = write_paper_corpus(size.corpus, size.questions, size.documents)
    wall = time.perf_counter() - started
    row = {"wall_s": wall, "units": info.documents, "unit": "documents", **info.to_dict()}
    results.record(size, "corpus", row)


def run_stage(size: Size, stage: str, results: Results, *, site: Site | None = None) -> dict:
    cmd, unit, outs, state = plan(size, stage, site)
    before = site.requests() if site else 0
    embedded_before = _embedded(size.dataset)
    run = run_measured(cmd, size.logs / f"{stage}.log")
    if run.rc not in (0, 1) or (run.rc == 1 and not stage.startswith("answer")):
        raise SystemExit(
            f"{stage} at {size.label} failed with exit status {run.rc}: see {size.logs / (stage + '.log')}"
        )
    counts = _counts(size)
    _, _, outs, state = plan(size, stage, site)
    n = units(size, stage, counts)
    row = {
        **run.to_dict(),
        "unit": unit,
        "units": n,
        "per_s": n / run.wall_s if run.wall_s else None,
        "output_mb": size_mb(*outs),
        "state_mb": size_mb(*state),
        "counts": counts,
        "digest": digest(*[p for p in identity_files(size, stage) if p.exists()]),
    }
    if site:
        row["requests"] = site.requests() - before
        row["responses_stored"] = _responses(size.dataset)
    if stage == "answer-dense":
        row["passages_embedded"] = _embedded(size.dataset) - embedded_before
        row["per_passage_s"] = row["passages_embedded"] / run.wall_s
    if stage == "evaluate":
        row["scores_cached"] = _valid_lines(size.dataset / "report" / "scores-cache.jsonl")
    row["load_1m"] = os.getloadavg()[0]  # the shared machine's load when the stage ended
    results.record(size, stage, row)
    print(
        f"  {size.label} {stage}: {run.wall_s:.1f} s, {n} {unit}, peak RSS {run.peak_rss_mb:.0f} MB",
        flush=True,
    )
    return row


def _responses(dataset: Path) -> int:
    db = dataset / "build.sqlite"
    if not db.is_file():
        return 0
    with sqlite3.connect(db) as con:
        return con.execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def _embedded(dataset: Path) -> int:
    db = dataset / "cache" / "embeddings.sqlite"
    if not db.is_file():
        return 0
    with sqlite3.connect(db) as con:
        return con.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]


def _valid_lines(path: Path) -> int:
    n = 0
    if path.is_file():
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    json.loads(line)
                except json.JSONDecodeError:
                    continue
                n += 1
    return n


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
        "| output MB | state MB | time exponent (CPU s where measured) | memory exponent |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
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
                    f"(median page {row['page_bytes_median'] / 1024:.0f} KB) | — | — | — |"
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
            lines.append(
                f"| {stage} | {name} | {row['units']:,} {row['unit']} | {row['wall_s']:.1f} | {cpu} | "
                f"{row['per_s']:.2f}{extra} | {row['peak_rss_mb']:.0f} / {row['peak_proc_rss_mb']:.0f} | "
                f"{row['output_mb']:.1f} | {row['state_mb']:.1f} | {et} | {em} |"
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
    """Each stage at the paper's size, from its two largest measured sizes: CPU time (else wall time),
    peak memory, output and state as a fixed part plus a part per unit (the growth exponents say the
    stages are about linear); the time on this machine's cores and on more: a parallel stage's CPU time
    divided among them (ideal scaling), a one-process stage's on one core."""
    sizes = sorted(results.data["sizes"].values(), key=lambda e: e["fraction"])
    lines = [
        f"| stage | paper-scale units | {cores_here} cores | {BUDGET_CORES[0]} cores "
        f"| Ray, {BUDGET_CORES[1]} worker cores | peak RSS measured (largest size) | output + state |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for stage in STAGES[1:]:
        rows = [e["stages"][stage] for e in sizes if stage in e["stages"]]
        if not rows:
            continue
        unit = rows[-1]["unit"]
        n = PAPER_UNITS[unit] * (len(SYSTEMS) if stage == "evaluate" else 1)
        if all(r.get("cpu_s") for r in rows):  # CPU seconds: what the stage costs, whatever the load
            cpu = _at([(r["units"], r["cpu_s"]) for r in rows], n)
            here = cpu / cores_here if stage in PARALLEL else cpu
            more = [cpu / c if stage in PARALLEL else cpu for c in BUDGET_CORES]
        else:  # wall time on this machine's cores
            here = _at([(r["units"], r["wall_s"]) for r in rows], n)
            more = [here * cores_here / c if stage in PARALLEL else here for c in BUDGET_CORES]
        rss = rows[-1]["peak_rss_mb"]  # measured: at these sizes its growth is noise and start-up
        disk = _at([(r["units"], r["output_mb"] + r["state_mb"]) for r in rows], n)
        lines.append(
            f"| {stage} | {n:,} {unit} | {_hours(here)} | {_hours(more[0])} | {_hours(more[1])} "
            f"| {rss:.0f} MB | {disk / 1024:.1f} GB |"
        )
    return "\n".join(lines)


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/wikihowqa-paper-scale"), help="work folder")
    parser.add_argument("--sizes", default="0.01,0.1", help="fractions of the paper's size, comma-separated")
    parser.add_argument("--full", action="store_true", help="also the paper's full size (hours to days here)")
    parser.add_argument(
        "--stage", help=f"run only these stages, comma-separated, at each selected size ({', '.join(STAGES)})"
    )
    parser.add_argument("--redo", action="store_true", help="measure stages already recorded again")
    parser.add_argument("--table", action="store_true", help="only print the recorded tables")
    parser.add_argument("--budget", action="store_true", help="also print the paper-scale budget")
    parser.add_argument("--kill-check", action="store_true", help="kill -9 the long stages and rerun them")
    parser.add_argument("--kill-size", type=float, default=0.1, help="fraction the kill check runs at")
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill points")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--url-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.url_file)
        return
    args.work.mkdir(parents=True, exist_ok=True)
    results = Results(args.work / "results.json")
    if args.kill_check:
        from paper_kill import kill_check

        ok = kill_check(Size(args.work, args.kill_size), results, args.seed)
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
        "| output identical |",
        "|---|---|---:|---|---:|---|---|",
    ]
    for name, checks in results.data.get("kill", {}).items():
        for stage, c in checks.items():
            lines.append(
                f"| {name} | {stage} | {c['killed_after_s']:.1f} ({c['uninterrupted_s']:.1f}) | "
                f"{c['done']} | "
                f"{c['rerun_s']:.1f} | {c['redone']} | {'yes' if c['identical'] else '**NO**'} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    random.seed(0)
    main()
