"""Running one stage as a user does — ``python -m wikihowqa …`` in its own process group — and measuring it:
wall time, the peak resident memory of its whole process tree (the command and every worker it starts,
sampled five times a second), and the bytes of the files it leaves. A stage can be killed with SIGKILL
after a given time, as ``kill -9`` of the command's group would."""

from __future__ import annotations

import hashlib
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]


def cli_env() -> dict[str, str]:
    """The environment a stage runs in: this checkout's package, offline models, one line of progress."""
    env = dict(os.environ)
    src = env.get("PAPER_SCALE_SRC", str(ROOT / "src"))  # another copy of the package, to measure it
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return env


def wikihowqa(*args: str) -> list[str]:
    return [sys.executable, "-m", "wikihowqa", *args]


@dataclass
class Run:
    """One command's run: ``rc`` is -9 when it was killed."""

    wall_s: float
    peak_rss_mb: float  # the process tree's RSS summed (shared pages counted in each process)
    peak_proc_rss_mb: float  # the largest single process
    rc: int
    killed: bool
    cpu_s: float = 0.0  # user + system seconds of the tree (its processes waited for), load-independent
    #: the tree's proportional set size summed: each shared page split among the processes sharing it, so
    #: a forked pool's copy-on-write pages count once (the tree's RSS counts them in every worker)
    peak_pss_mb: float | None = None
    commit: str | None = None  # the benchmark's checkout (``+dirty``: with uncommitted changes)

    def to_dict(self) -> dict:
        return asdict(self)


class Interrupted(Exception):
    """The benchmark itself was stopped (Ctrl-C, SIGTERM) while a stage ran: the stage's group was killed
    and ``run`` holds what it used until then (CPU seconds as last sampled, since killed workers are not
    waited for), so a resumed stage's row can add it."""

    def __init__(self, run: Run) -> None:
        super().__init__(f"interrupted after {run.wall_s:.0f} s")
        self.run = run


def _tree_sample(proc: psutil.Process, cpu: dict[int, float]) -> tuple[int, int, int]:
    """The tree's summed and largest RSS and its summed PSS; each member's user + system seconds noted in
    ``cpu`` by pid."""
    total = largest = pss = 0
    try:
        members = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0, 0, 0
    for member in members:
        try:
            memory = member.memory_full_info()  # /proc/PID/smaps_rollup: RSS and PSS
            times = member.cpu_times()
        except psutil.Error:
            continue
        cpu[member.pid] = times.user + times.system
        total += memory.rss
        pss += memory.pss
        largest = max(largest, memory.rss)
    return total, largest, pss


def checkout_commit() -> str:
    """The commit of the benchmark's own checkout (the pinned worktree a long run goes on from)."""
    root = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
        return done.stdout

    try:
        head = git("rev-parse", "--short", "HEAD").strip()
        dirty = git("status", "--porcelain", "--untracked-files=no").strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def run_measured(
    cmd: list[str],
    log: Path,
    *,
    kill_after_s: float | None = None,
    kill_when: Callable[[], bool] | None = None,
    env: dict | None = None,
) -> Run:
    """Run ``cmd`` to the end, its output appended to ``log``; or kill its group with SIGKILL after
    ``kill_after_s`` or as soon as ``kill_when()`` says so (polled five times a second)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        out.write(("\n$ " + " ".join(cmd) + "\n").encode())
        out.flush()
        commit = checkout_commit()
        started = time.perf_counter()
        cpu_before = _children_cpu()
        child = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=env or cli_env(), start_new_session=True
        )
        proc = psutil.Process(child.pid)
        peak = largest = pss = 0
        killed = False
        sampled: dict[int, float] = {}
        try:
            while child.poll() is None:
                total, big, shared = _tree_sample(proc, sampled)
                peak, largest, pss = max(peak, total), max(largest, big), max(pss, shared)
                due = kill_after_s is not None and time.perf_counter() - started >= kill_after_s
                if due or (kill_when is not None and kill_when()):
                    os.killpg(child.pid, signal.SIGKILL)
                    killed = True
                    child.wait()
                    break
                time.sleep(0.2)
        except KeyboardInterrupt:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            wall = time.perf_counter() - started
            cpu = sum(sampled.values())
            raise Interrupted(
                Run(wall, peak / 2**20, largest / 2**20, -9, True, cpu, pss / 2**20, commit)
            ) from None
        except BaseException:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            raise
        wall = time.perf_counter() - started
    cpu = _children_cpu() - cpu_before
    return Run(wall, peak / 2**20, largest / 2**20, child.returncode, killed, cpu, pss / 2**20, commit)


def _children_cpu() -> float:
    """CPU seconds of this process's children that have ended (a stage, with every worker it waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def size_mb(*paths: Path) -> float:
    """Bytes under the paths (files, or folders walked), in MiB."""
    total = 0
    for path in paths:
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return total / 2**20


_PORT = re.compile(rb"//127\.0\.0\.1:\d+/")


def digest(*paths: Path) -> str:
    """SHA-256 over the files' names and lines, in order (a folder: its files, sorted); the replay site's
    port, which archive URLs carry and which each run of the site draws anew, is left out."""
    h = hashlib.sha256()
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for f in files:
            h.update(f.name.encode() + b"\0")
            with f.open("rb") as fh:
                for line in fh:
                    h.update(_PORT.sub(b"//127.0.0.1:PORT/", line))
    return h.hexdigest()
