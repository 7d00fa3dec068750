"""The paper-scale benchmark's stage table: sizes, the stages and their commands, what each needs, the
replay site serving a size's corpus, and running one stage measured. Shared by ``paper_scale`` (the runs and
tables) and ``paper_kill`` (the kill checks), so neither imports the other's caller."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from benchmarks.paper_measure import Interrupted, checkout_commit, digest, run_measured, size_mb, wikihowqa
from wikihowqa.synthetic.dataset import PAPER_DOCUMENTS, PAPER_QUESTIONS

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

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
    """``results.json``, shared by runs going at once (the 10 % kill check beside the 100 % run): each
    change is applied to the file as it is now, under a lock, so one run never writes back another's
    stale copy."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = self._read()

    def _read(self) -> dict:
        return json.loads(self.path.read_text()) if self.path.is_file() else {"sizes": {}, "kill": {}}

    def stage(self, size: Size, stage: str) -> dict | None:
        return self.data["sizes"].get(size.label, {}).get("stages", {}).get(stage)

    def record(self, size: Size, stage: str, row: dict) -> None:
        """The stage's row; its interrupted runs, which the row sums, go in the same write (a crash between
        the two would leave them to be summed into a later ``--redo`` again)."""

        def change(data: dict) -> None:
            entry = data["sizes"].setdefault(size.label, {"fraction": size.fraction, "stages": {}})
            entry["stages"][stage] = row
            data.get("attempts", {}).get(size.label, {}).pop(stage, None)

        self.update(change)

    def add_attempt(self, size: Size, stage: str, attempt: dict) -> None:
        """An interrupted run of a stage, kept until the stage completes and its row adds them."""
        self.update(
            lambda data: (
                data.setdefault("attempts", {})
                .setdefault(size.label, {})
                .setdefault(stage, [])
                .append(attempt)
            )
        )

    def attempts(self, size: Size, stage: str) -> list[dict]:
        return list(self.data.get("attempts", {}).get(size.label, {}).get(stage, []))

    def record_kill(self, label: str, checks: dict) -> None:
        """The checks made, each replacing that stage's earlier one (a stage checked again after a fix)."""
        self.update(lambda data: data.setdefault("kill", {}).setdefault(label, {}).update(checks))

    def update(self, change: Callable[[dict], None]) -> None:
        with open(self.path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.data = self._read()
            change(self.data)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True))
            os.replace(tmp, self.path)


# --------------------------------------------------------------------------- the replay site


class Site:
    """The replay site in a process of its own (not in a stage's tree), snapshots read from disk.

    It listens on the port of the size's previous site when that port is free: the build keys its stored
    answers by URL and forgets an archive's results when the archive's URL changes, so a stage resumed in a
    later run on another port would fetch (and parse) everything again."""

    def __init__(self, corpus: Path, logs: Path) -> None:
        self.corpus, self.logs = corpus, logs

    def __enter__(self) -> Site:
        url_file = self.logs / "site.url"
        port = _previous_port(url_file)
        url_file.unlink(missing_ok=True)
        self.logs.mkdir(parents=True, exist_ok=True)
        log = (self.logs / "site.log").open("ab")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchmarks.paper_scale",
                "--serve",
                str(self.corpus),
                "--url-file",
                str(url_file),
                "--port",
                str(port),
            ],
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


def _previous_port(url_file: Path) -> int:
    """The port in an earlier run's ``site.url`` (0, any free port, when there is none)."""
    try:
        return int(url_file.read_text().strip().rsplit(":", 1)[1])
    except (OSError, IndexError, ValueError):
        return 0


def serve(corpus: Path, url_file: Path, port: int = 0) -> None:
    import signal

    from wikihowqa.core.errors import SettingsError
    from wikihowqa.replay import ReplaySite, load_corpus

    pages = load_corpus(corpus, lazy=True)
    try:
        site = ReplaySite(corpus=pages, port=port).start()
    except SettingsError as exc:  # the earlier port is taken: any port (a resumed build then fetches again)
        print(f"port {port}: {exc}; serving on another port", file=sys.stderr, flush=True)
        site = ReplaySite(corpus=pages).start()
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
    from benchmarks.paper_corpus import write_paper_corpus

    if size.corpus.exists():
        shutil.rmtree(size.corpus)
    started = time.perf_counter()
    info = write_paper_corpus(size.corpus, size.questions, size.documents)
    wall = time.perf_counter() - started
    row = {
        "wall_s": wall,
        "units": info.documents,
        "unit": "documents",
        **info.to_dict(),
        "commit": checkout_commit(),
    }
    results.record(size, "corpus", row)


def run_stage(size: Size, stage: str, results: Results, *, site: Site | None = None) -> dict:
    cmd, unit, outs, state = plan(size, stage, site)
    before = site.requests() if site else 0
    earlier = results.attempts(size, stage)
    embedded_before = earlier[0]["embedded_before"] if earlier else _embedded(size.dataset)
    try:
        run = run_measured(cmd, size.logs / f"{stage}.log")
    except Interrupted as stop:
        attempt = {**stop.run.to_dict(), "embedded_before": embedded_before, "ended": time.time()}
        if site:
            attempt["requests"] = site.requests() - before
        results.add_attempt(size, stage, attempt)
        raise SystemExit(
            f"{stage} at {size.label}: interrupted after {stop.run.wall_s:.0f} s; that run's time, CPU "
            "seconds (as last sampled) and memory are kept and added to the row when the stage is run again "
            "and completes (it resumes its own work)"
        ) from None
    if earlier:  # the stage ran in several runs, each resuming the last: the row is their sum
        run.wall_s += sum(a["wall_s"] for a in earlier)
        run.cpu_s += sum(a["cpu_s"] for a in earlier)
        run.peak_rss_mb = max([run.peak_rss_mb, *(a["peak_rss_mb"] for a in earlier)])
        run.peak_proc_rss_mb = max([run.peak_proc_rss_mb, *(a["peak_proc_rss_mb"] for a in earlier)])
        # PSS was not sampled by the benchmark before 2026-12-07 21:00: the runs without it are left out
        run.peak_pss_mb = max([run.peak_pss_mb or 0, *(a.get("peak_pss_mb") or 0 for a in earlier)]) or None
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
    if earlier:
        row["runs"] = 1 + len(earlier)
        row["earlier_runs"] = earlier
        row["commits"] = sorted({str(a.get("commit")) for a in earlier} | {str(run.commit)})
    if site:
        row["requests"] = site.requests() - before + sum(a.get("requests", 0) for a in earlier)
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


def _rows(db: Path, table: str) -> int:
    """Rows of ``table``; 0 while the stage has not made the file or the table yet (it is polled from its
    first instant by the kill checks)."""
    if not db.is_file():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            return con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    except sqlite3.OperationalError as err:
        if "no such table" in str(err):
            return 0
        raise


def _responses(dataset: Path) -> int:
    return _rows(dataset / "build.sqlite", "responses")


def _embedded(dataset: Path) -> int:
    return _rows(dataset / "cache" / "embeddings.sqlite", "embeddings")


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
