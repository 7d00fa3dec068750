"""``kill -9`` a running ``wikihowqa build`` at several points; the rerun finishes with identical output
and asks the sites only for what was in flight when the process died."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

import wikihowqa
from tests.collect.scripted_server import fast_settings, settings_for
from wikihowqa.collect.build import build
from wikihowqa.replay import EndpointFaults, Faults, ReplaySite
from wikihowqa.runtime.processes import start_group, stop_group
from wikihowqa.synthetic.corpus import write_synthetic_corpus

GROUPS = ("mediawiki", "cdx", "playback")
FILES = ("qa.jsonl", "documents.jsonl", "rejections.jsonl")
CONCURRENCY = 2


def _requests(site: ReplaySite) -> dict[str, int]:
    stats = site.stats()
    return {g: stats[g]["requests"] for g in GROUPS}


def _command(site: ReplaySite, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "wikihowqa",
        "build",
        str(out),
        "--api-url",
        site.mediawiki_url,
        "--wayback-url",
        site.wayback_url,
        "--concurrency",
        str(CONCURRENCY),
        "--mediawiki-rate",
        "0",
        "--cdx-rate",
        "0",
        "--playback-rate",
        "0",
    ]


def _descendants(pid: int) -> list[int]:
    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _assert_none_survive(family: list[int], out: Path) -> None:
    """No process of a killed run lives on: neither the workers it had started nor any process whose
    command line names its output folder (issue 17: orphaned build workers asleep an hour later)."""

    def survivors() -> list[int]:
        named = []
        for process in psutil.process_iter(["cmdline"]):
            try:
                if str(out) in " ".join(process.info["cmdline"] or []) and _alive(process.pid):
                    named.append(process.pid)
            except psutil.Error:
                continue
        return [pid for pid in family if _alive(pid)] + named

    deadline = time.monotonic() + 10
    while survivors() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not survivors(), "processes of the killed build survived it"


@pytest.mark.slow
def test_a_build_killed_at_several_points_resumes_to_byte_identical_output(tmp_path):
    corpus = write_synthetic_corpus(tmp_path / "corpus", articles=24, refs_per_article=3)
    env = {**os.environ, "PYTHONPATH": str(Path(wikihowqa.__file__).parents[1])}
    with ReplaySite(corpus, faults=Faults.everywhere(EndpointFaults(latency_s=0.03))) as site:
        reference = tmp_path / "uninterrupted"
        build(reference, settings_for(site, http=fast_settings(concurrency=CONCURRENCY)))
        needed = _requests(site)
        site.reset_stats()

        out = tmp_path / "interrupted"
        # Kill while reading articles, during CDX lookups, during downloads, and after the last download
        # (while documents are parsed and the folder written).
        points = [("mediawiki", 4), ("cdx", needed["cdx"] // 3), ("playback", needed["playback"] // 2)]
        points.append(("playback", needed["playback"]))
        kills = 0
        for group, threshold in points:
            proc = start_group(
                _command(site, out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            try:
                deadline = time.monotonic() + 60
                while (
                    proc.poll() is None and _requests(site)[group] < threshold and time.monotonic() < deadline
                ):
                    time.sleep(0.005)
                if group == "playback" and threshold == needed["playback"]:
                    time.sleep(0.3)  # into the parse and write phases
                if proc.poll() is None:
                    family = _descendants(proc.pid)
                    proc.send_signal(signal.SIGKILL)  # the build alone: its workers must end by themselves
                    kills += 1
                    proc.wait(30)
                    _assert_none_survive(family, out)
                proc.wait(30)
            finally:
                stop_group(proc)
        assert kills >= 3, "the build finished before it could be killed: the test would prove nothing"

        final = subprocess.run(_command(site, out), env=env, capture_output=True, text=True, timeout=120)
        assert final.returncode == 0, final.stderr[-2000:]
        spent = _requests(site)

    for name in FILES:
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
    # Only requests in flight at a kill can have been asked twice.
    for group in GROUPS:
        assert needed[group] <= spent[group] <= needed[group] + kills * CONCURRENCY, (group, needed, spent)
