"""Load on the study server: concurrent assessors on loopback, each fetching its next task and submitting
a judgment, as fast as the server answers. The server (``wikihowqa serve``, one process) and this load
generator (httpx, asyncio) are separate processes on the same machine.

Three rows, one run:
* peer: ``GET /healthz`` (no work) with the same client: the HTTP stack's ceiling on this machine;
* submit: ``GET /api/next`` + ``POST /api/judgments`` per judgment; every acknowledged judgment is then
  looked up in the database (0 lost is the requirement);
* submit + SIGKILL: the same, with the server killed (SIGKILL) halfway and started again; clients retry
  what was not acknowledged with the same judgment id, so nothing may be lost and nothing doubled.

Targets: >= 300 submissions/s, p99 < 100 ms (of a POST round trip), 0 lost.

PYTHONPATH=src python -m benchmarks.app_load [--seconds 60] [--assessors 50] [--tasks 1000] [--no-results]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

ADMIN = "benchmark-admin-token-0123456789"
PARTS = ("relevance", "trial_a", "trial_b", "preference")
WORDS = (  # noqa: SIM905 - a sentence is easier to read than a list of 34 strings
    "the figs oven dry heat water time paint floor seal coat brush roller parents friend night house "
    "mood question details birthday sleepover ask plan rule trust safe door rack hours lowest setting cut"
).split()
RESULTS = Path(__file__).with_name("RESULTS.md")


# --------------------------------------------------------------------------- a synthetic study


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _answer(rng: random.Random) -> dict:
    sentences = [_sentence(rng, rng.randint(12, 22)) for _ in range(5)]
    text, spans = "", []
    for s in sentences:
        start = len(text) + (1 if text else 0)
        text = f"{text} {s}" if text else s
        spans.append({"start": start, "end": len(text)})
    return {"text": text, "sentences": spans}


def _passages(rng: random.Random, article: int, block: dict) -> list:
    out = []
    for k, _ in enumerate(block["sentences"]):
        groups = []
        for d in range(2):
            ps = []
            for j in range(2):
                text = " ".join(_sentence(rng, 15) for _ in range(4))
                ps.append(
                    {
                        "passage_id": f"{article}:{d}:{k * 2 + j}",
                        "position": k * 2 + j,
                        "rank": j + 1,
                        "score": 1.0,
                        "text": text,
                        "highlight": {"start": 0, "end": 40},
                    }
                )
            groups.append(
                {
                    "doc_index": d,
                    "title": f"Page {d}",
                    "url": f"http://example.org/{article}/{d}",
                    "passages": ps,
                }
            )
        out.append(
            {
                "sentence": k,
                "start": block["sentences"][k]["start"],
                "end": block["sentences"][k]["end"],
                "chars": 4800,
                "groups": groups,
            }
        )
    return out


def build_study(folder: Path, tasks_per_part: int, assessors: int, seed: int = 0) -> None:
    """A study shaped like a real one (text sizes of the paper's tasks), written with the kit's writers."""
    from wikihowqa.core.files import write_json
    from wikihowqa.dataset.writers import write_jsonl
    from wikihowqa.humaneval.lexicon import WIKIHOW_CATEGORIES
    from wikihowqa.humaneval.tasks import ATTENTION_PROMPT, SCALES

    rng = random.Random(seed)
    tasks, key, plan = [], [], []
    per_part = {
        p: max(1, assessors // len(PARTS) + (k < assessors % len(PARTS))) for k, p in enumerate(PARTS)
    }
    for part in PARTS:
        ids = []
        for i in range(tasks_per_part):
            article = 100000 + i
            category = rng.choice(WIKIHOW_CATEGORIES)
            options = [category, *rng.sample([c for c in WIKIHOW_CATEGORIES if c != category], 3)]
            rng.shuffle(options)
            base = {
                "part": part,
                "article_id": article,
                "question": f"How to Do Thing {i}",
                "attention_check": {"prompt": ATTENTION_PROMPT, "options": options},
            }
            k = {"part": part, "article_id": article, "attention_answer": category}
            if part == "relevance":
                tid = f"relevance:{article}:0"
                answer = _answer(rng)
                doc = " ".join(_sentence(rng, 18) for _ in range(30))
                task = {
                    **base,
                    "type": "relevance",
                    "answer": answer,
                    "document": {"doc_index": 0, "title": "A page", "url": "http://example.org", "text": doc},
                }
                k["doc_index"] = 0
            elif part in ("trial_a", "trial_b"):
                tid = f"{part}:{article}"
                answer = _answer(rng)
                passages = _passages(rng, article, answer) if part == "trial_b" else None
                task = {**base, "type": "answer", "answer": answer, "passages": passages}
                k.update(
                    deteriorated=True,
                    edits=[
                        {
                            "type": "number",
                            "start": 0,
                            "end": 3,
                            "old": "x",
                            "new": "y",
                            "original_start": 0,
                            "original_end": 1,
                        }
                    ],
                )
            else:
                tid = f"preference:{article}:sys"
                a, b = _answer(rng), _answer(rng)
                task = {
                    **base,
                    "type": "preference",
                    "answers": {"A": a, "B": b},
                    "passages": {"A": _passages(rng, article, a), "B": _passages(rng, article, b)},
                }
                k.update(gold_side="A", system="sys")
            task = {"task_id": tid, **task}
            tasks.append(task)
            key.append({"task_id": tid, **k})
            ids.append(tid)
        for n in range(per_part[part]):
            queue = ids[:]
            rng.shuffle(queue)
            plan.append({"assessor_id": f"{part}-{n + 1:03d}", "part": part, "task_ids": queue})
    manifest = {
        "format": "wikihowqa-study",
        "format_version": 1,
        "study_id": "load-benchmark",
        "settings": {"assessors_per_item": max(per_part.values()), "items_per_assessor": tasks_per_part},
        "scales": SCALES,
        "parts": {
            p: {
                "task_type": {"relevance": "relevance", "preference": "preference"}.get(p, "answer"),
                "tasks": tasks_per_part,
                "assessors_per_item": per_part[p],
                "assessors": per_part[p],
            }
            for p in PARTS
        },
        "exclusive_parts": [["trial_a", "trial_b"]],
        "files": {
            "tasks": "tasks.jsonl",
            "key": "key.jsonl",
            "assignments": "assignments.jsonl",
            "judgments": "judgments.jsonl",
        },
    }
    folder.mkdir(parents=True, exist_ok=True)
    write_json(folder / "study.json", manifest)
    write_jsonl(folder / "tasks.jsonl", tasks)
    write_jsonl(folder / "key.jsonl", key)
    write_jsonl(folder / "assignments.jsonl", plan)


def judgment_for(task: dict, rng: random.Random) -> dict:
    body = {
        "judgment_id": f"j-{uuid.uuid4().hex}",
        "task_id": task["task_id"],
        "attention": task["attention_check"]["options"][rng.randrange(4)],
        "duration_ms": rng.randint(20_000, 200_000),
        "events": [],
    }
    if task["type"] == "relevance":
        body.update(
            relevance=rng.randint(0, 4), highlights=[{"start": 0, "end": 20}, {"start": 40, "end": 90}]
        )
    elif task["type"] == "answer":
        body.update(familiarity=rng.randint(1, 5), usefulness=rng.randint(1, 5))
        body["spans"] = [
            {"start": 0, "end": 12, "label": "misleading"},
            {"start": 30, "end": 50, "label": "useful"},
        ]
        if task["passages"]:
            e = task["passages"][1]
            pid = e["groups"][0]["passages"][0]["passage_id"]
            body["events"] = [
                {"t_ms": 1000, "kind": "sentence_open", "sentence": 1, "side": None},
                {"t_ms": 1200, "kind": "passage_view", "sentence": 1, "side": None, "passage_id": pid},
            ]
    else:
        body.update(
            choice=rng.choice(["A", "B", "tie"]),
            events=[{"t_ms": 900, "kind": "sentence_open", "sentence": 0, "side": "B"}],
        )
    return body


# --------------------------------------------------------------------------- the server process


class Server:
    def __init__(self, study: Path, port: int = 0, log: Path | None = None) -> None:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
        self.log = open(log or os.devnull, "a")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "wikihowqa",
                "serve",
                str(study),
                "--port",
                str(port),
                "--admin-token",
                ADMIN,
            ],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=env,
        )
        for line in self.proc.stdout:
            if "admin page:" in line:
                self.base = line.split("admin page:")[1].strip().split("/admin/")[0]
                break
        else:
            raise RuntimeError("the server did not start")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.base}/healthz", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.02)
        raise RuntimeError("the server does not answer")

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=20)
        self.log.close()


# --------------------------------------------------------------------------- the load
#
# The load generator speaks HTTP/1.1 over asyncio streams itself. httpx.AsyncClient, the obvious choice,
# spent 14.5 ms of client CPU per request on this machine against 0.17-0.22 ms for these few lines
# (GET /healthz, 50 users, 5 s each, same run): with httpx the client, not the server, was measured.


class Connection:
    """One keep-alive connection; responses must carry Content-Length (all the API's answers do)."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.host, port = base.split("//", 1)[1].split(":")
        self.port = int(port)
        self.auth = f"Authorization: Bearer {token}\r\n" if token else ""
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n{self.auth}"
        if body:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        try:
            self.writer.write(head.encode() + b"\r\n" + body)
            await self.writer.drain()
            raw = await self.reader.readuntil(b"\r\n\r\n")
            lines = raw.split(b"\r\n")
            status = int(lines[0].split()[1])
            length = next(
                int(x.split(b":")[1]) for x in lines[1:] if x.lower().startswith(b"content-length:")
            )
            return status, await self.reader.readexactly(length)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, StopIteration, ValueError):
            self.close()
            raise ConnectionError(f"{method} {path}: connection lost") from None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Tally:
    post_ms: list[float] = field(default_factory=list)
    next_ms: list[float] = field(default_factory=list)
    acked: list[str] = field(default_factory=list)
    duplicates: int = 0
    retried: int = 0
    errors: list[str] = field(default_factory=list)


async def assessor(base: list[str], token: str, until: float, tally: Tally, seed: int) -> None:
    """Next task, judgment, repeat; a submission that gets no answer is sent again, same id, until it does."""
    rng = random.Random(seed)
    conn = Connection(base[0], token)
    try:
        while time.perf_counter() < until:
            try:
                t = time.perf_counter()
                status, raw = await conn.request("GET", "/api/next")
                tally.next_ms.append(1000 * (time.perf_counter() - t))
                task = json.loads(raw).get("task")
            except (ConnectionError, ValueError):
                await asyncio.sleep(0.02)
                continue
            if task is None:
                return
            body = json.dumps(judgment_for(task, rng)).encode()
            jid = json.loads(body)["judgment_id"]
            while True:
                try:
                    t = time.perf_counter()
                    status, raw = await conn.request("POST", "/api/judgments", body)
                    ms = 1000 * (time.perf_counter() - t)
                except ConnectionError:
                    tally.retried += 1
                    await asyncio.sleep(0.02)
                    continue
                if status not in (200, 201):
                    tally.errors.append(f"{status} {raw[:120]!r}")
                    break
                tally.post_ms.append(ms)
                tally.acked.append(jid)
                tally.duplicates += status == 200  # stored before a kill, acknowledged only now
                break
    finally:
        conn.close()


async def peer(base: str, users: int, seconds: float) -> tuple[int, list[float]]:
    times: list[float] = []

    async def user() -> None:
        conn = Connection(base)
        until = time.perf_counter() + seconds
        while time.perf_counter() < until:
            t = time.perf_counter()
            await conn.request("GET", "/healthz")
            times.append(1000 * (time.perf_counter() - t))
        conn.close()

    await asyncio.gather(*(user() for _ in range(users)))
    return len(times), times


def tokens(base: str) -> list[str]:
    rows = httpx.get(
        f"{base}/api/admin/assessors", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30
    ).json()
    return [r["link"].split("#", 1)[1] for r in rows["assessors"]]


def stored_ids(study: Path) -> list[str]:
    conn = sqlite3.connect(f"{(study / 'server.sqlite').resolve().as_uri()}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT judgment_id FROM judgments")]
    finally:
        conn.close()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def run_load(template: Path, work: Path, assessors: int, seconds: float, kill: bool) -> dict:
    study = work / ("study-kill" if kill else "study")
    shutil.copytree(template, study)
    server = Server(study, log=work / "server.log")
    base = [server.base]
    all_tokens = tokens(server.base)[:assessors]
    tally = Tally()
    downtime = None
    cpu_before = -server.cpu_seconds()  # startup excluded: CPU spent serving the load only

    async def drive() -> float:
        nonlocal server, downtime, cpu_before
        start = time.perf_counter()
        until = start + seconds
        jobs = [asyncio.create_task(assessor(base, t, until, tally, k)) for k, t in enumerate(all_tokens)]
        if kill:
            await asyncio.sleep(seconds / 2)
            cpu_before += server.cpu_seconds()
            t0 = time.perf_counter()
            server.kill()
            port = server.port
            loop = asyncio.get_running_loop()
            server = await loop.run_in_executor(None, lambda: Server(study, port, work / "server.log"))
            cpu_before -= server.cpu_seconds()
            base[0] = server.base
            downtime = time.perf_counter() - t0
        await asyncio.gather(*jobs)
        return time.perf_counter() - start

    elapsed = asyncio.run(drive())
    cpu = cpu_before + server.cpu_seconds()
    server.stop()
    in_db = stored_ids(study)
    acked = set(tally.acked)
    return {
        "elapsed": elapsed,
        "acked": len(tally.acked),
        "unique_acked": len(acked),
        "in_db": len(in_db),
        "db_unique": len(set(in_db)),
        "lost": len(acked - set(in_db)),
        "rate": len(tally.acked) / elapsed,
        "p50": pct(tally.post_ms, 50),
        "p99": pct(tally.post_ms, 99),
        "next_p50": pct(tally.next_ms, 50),
        "next_p99": pct(tally.next_ms, 99),
        "retried": tally.retried,
        "duplicates": tally.duplicates,
        "errors": tally.errors[:3],
        "n_errors": len(tally.errors),
        "downtime": downtime,
        "server_cpu": cpu,
    }


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _row(name: str, r: dict, assessors: int, peer_rate: float) -> str:
    per = 1000 * r["server_cpu"] / max(r["acked"], 1)
    note = f"next p50/p99 {r['next_p50']:.1f}/{r['next_p99']:.1f} ms; server CPU {per:.2f} ms per judgment"
    rate = f"{r['rate']:.0f} subs/s ({2 * r['rate'] / peer_rate:.2f}× peer req)"
    if r["downtime"] is not None:
        up = r["acked"] / max(r["elapsed"] - r["downtime"], 1e-9)
        rate += f", {up:.0f} while up"
        note += f"; down {r['downtime']:.1f} s, {r['retried']} retried sends"
        note += f", {r['duplicates']} acknowledged as duplicates"
    if r["n_errors"]:
        note += f"; {r['n_errors']} errors e.g. {r['errors'][0]}"
    once = r["in_db"] == r["db_unique"] and r["unique_acked"] == r["acked"]
    in_db = f"{r['in_db']}" if once else f"{r['in_db']} DUPLICATES"
    cells = [name, f"{r['elapsed']:.0f}", assessors, rate, f"{r['p50']:.1f}", f"{r['p99']:.1f}"]
    return "| " + " | ".join(map(str, [*cells, r["acked"], in_db, r["lost"], note])) + " |"


def _verdict(name: str, r: dict) -> str:
    rate = "meets" if r["rate"] >= 300 else "misses"
    p99 = "meets" if r["p99"] < 100 else "misses"
    lost = "0 lost" if r["lost"] == 0 else f"{r['lost']} LOST"
    return f"{name}: {rate} >= 300 submissions/s, {p99} p99 < 100 ms, {lost}"


def _append_results(command: str, text: str) -> None:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    section = f"## app_load: {stamp}, commit {commit()}\n\n`{command}`\n\n{text}\n\n"
    new = "# Benchmark results\n\nNewest first.\n"
    old = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else new
    head, sep, rest = old.partition("\n## ")
    tail = "## " + rest if sep else ""
    RESULTS.write_text(head.rstrip("\n") + "\n\n" + section + tail, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add = parser.add_argument
    add("--seconds", type=float, default=60.0, help="length of each loaded run (default 60)")
    add("--assessors", type=int, default=50, help="concurrent assessors (default 50)")
    add("--tasks", type=int, default=None, help="tasks per part (default: enough for the run)")
    add("--no-kill", action="store_true", help="skip the run with a SIGKILL and restart")
    add("--no-results", action="store_true", help=f"do not append the tables to {RESULTS.name}")
    args = parser.parse_args()
    tasks = args.tasks or max(100, int(args.seconds * 20))  # room for 20 judgments/s per assessor
    work = Path(tempfile.mkdtemp(prefix="wikihowqa-app-load-"))
    try:
        t = time.perf_counter()
        build_study(work / "template", tasks, args.assessors)
        size = (work / "template" / "tasks.jsonl").stat().st_size / 1e6
        print(f"study: {4 * tasks} tasks ({size:.1f} MB) in {time.perf_counter() - t:.1f} s")
        server = Server(work / "template", log=work / "server.log")
        peer_s = min(args.seconds, 10.0)
        n, times = asyncio.run(peer(server.base, args.assessors, peer_s))
        server.stop()
        for suffix in ("", "-wal", "-shm"):
            (work / "template" / f"server.sqlite{suffix}").unlink(missing_ok=True)
        peer_rate = n / peer_s
        peer_cells = ["peer: GET /healthz (no work)", f"{peer_s:.0f}", args.assessors]
        peer_cells += [f"{peer_rate:.0f} req/s", f"{pct(times, 50):.1f}", f"{pct(times, 99):.1f}"]
        peer_cells += ["–", "–", "–", "same client, same server"]
        rows = ["| " + " | ".join(map(str, peer_cells)) + " |"]
        runs = [("submit: GET next + POST judgment", False)]
        if not args.no_kill:
            runs.append(("submit, SIGKILL + restart at half time", True))
        verdicts = []
        for name, kill in runs:
            r = run_load(work / "template", work, args.assessors, args.seconds, kill)
            rows.append(_row(name, r, args.assessors, peer_rate))
            verdicts.append(_verdict(name, r))
        header = (
            "| run | s | assessors | throughput | p50 ms | p99 ms | acknowledged | in DB | lost | notes |\n"
            "|---|---|---|---|---|---|---|---|---|---|"
        )
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        machine = f"{os.cpu_count()} CPUs, load average {load} at the end; {4 * tasks} tasks, {size:.1f} MB"
        text = "\n".join([header, *rows]) + f"\n\n{machine}\n\n" + "\n".join(f"* {v}" for v in verdicts)
        print(text)
        if not args.no_results:
            command = f"PYTHONPATH=src python -m benchmarks.app_load --seconds {args.seconds:g}"
            _append_results(command + f" --assessors {args.assessors}", text)
            print(f"appended to {RESULTS}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
