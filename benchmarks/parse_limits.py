"""Parse-stage limits: pebble's per-page tasks against the timer signal with chunks they replaced.

The peer is the stage as it was before pebble (commit ``a2de32c``: chunks of 8 pages on a process pool,
each page under ``SIGALRM``, a dead worker's pages salvaged one by one), read from git history and run in
the same process, on the same pages, interleaved round by round. Pages: the 102 HTML pages of
``/work/shared/data/article-extraction-dev`` repeated ``--copies`` times. It checks that both give the same
pages, then times a page stuck inside one C call (``sum`` over a range) under a 0.5 s limit: the timer
signal can only end it when the call returns.

    python -m benchmarks.parse_limits [--copies 4] [--rounds 3] [--record]
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import time
from pathlib import Path
from types import ModuleType

from benchmarks.history import module_at
from benchmarks.results_md import append_run
from wikihowqa.dataset.snapshots import RawSnapshot
from wikihowqa.parse import ParseSettings
from wikihowqa.parse import stage as current

PEER_COMMIT = "a2de32c"
PAGES = Path("/work/shared/data/article-extraction-dev/html")


def peer_stage() -> ModuleType:
    """The parse stage at ``PEER_COMMIT``, importable beside the current one."""
    return module_at(PEER_COMMIT, "src/wikihowqa/parse/stage.py", "wikihowqa.parse._stage_peer")


def pages(copies: int) -> list[RawSnapshot]:
    files = sorted(PAGES.glob("*.html.gz"))
    return [
        RawSnapshot(f"{n}-{f.name}", f"https://example.org/{f.name}", "", gzip.decompress(f.read_bytes()))
        for n in range(copies)
        for f in files
    ]


def run(module: ModuleType, items: list[RawSnapshot], workers: int) -> tuple[float, list]:
    started = time.perf_counter()
    out = [(key, page.text, page.rejection) for key, page in module.parse_snapshots(items, workers=workers)]
    return time.perf_counter() - started, out


def stuck_seconds(module: ModuleType) -> float:
    real = module.parse_html

    def stuck(body, url, headers=None, settings=None):
        sum(range(10**9))
        return real(body, url, headers, settings)

    module.parse_html = stuck
    try:
        item = RawSnapshot("stuck", "https://example.org/stuck", "", b"<p>x</p>")
        started = time.perf_counter()
        ((_, page),) = module.parse_snapshots([item], ParseSettings(timeout_s=0.5), workers=1)
        assert page.rejection == "timeout", page.rejection
        return time.perf_counter() - started
    finally:
        module.parse_html = real


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    peer, items = peer_stage(), pages(args.copies)
    rows = []
    for workers in (1, 2):
        times: dict[str, list[float]] = {"peer": [], "pebble": []}
        for _ in range(args.rounds):
            peer_s, peer_out = run(peer, items, workers)
            ours_s, ours_out = run(current, items, workers)
            assert ours_out == peer_out, "the two stages parsed differently"
            times["peer"].append(peer_s)
            times["pebble"].append(ours_s)
        a, b = statistics.median(times["peer"]), statistics.median(times["pebble"])
        rows.append(
            f"| {workers} | {len(items)} | {a:.2f} | {b:.2f} | {len(items) / a:.1f} | {len(items) / b:.1f} "
            f"| {a / b:.2f}x | yes |"
        )
    peer_stuck, ours_stuck = stuck_seconds(peer), stuck_seconds(current)
    body = "\n".join(
        [
            f"{len(items)} pages ({args.copies} x the 102 article-extraction-dev pages), median of "
            f"{args.rounds} interleaved rounds; peer: the stage at {PEER_COMMIT} (chunks of 8, SIGALRM).",
            "",
            "| workers | pages | peer s | pebble s | peer pages/s | pebble pages/s | speed vs peer | same |",
            "|---:|---:|---:|---:|---:|---:|---:|---|",
            *rows,
            "",
            "| a page stuck in one C call (~20 s), limit 0.5 s | peer (SIGALRM) | pebble |",
            "|---|---:|---:|",
            f"| seconds until it is rejected as timeout | {peer_stuck:.1f} | {ours_stuck:.1f} |",
        ]
    )
    print(body)
    if args.record:
        append_run("parse limits: pebble vs SIGALRM (benchmarks/parse_limits.py)", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
