"""``wikihowqa hydrate`` at scale: a generated release against the replay site, unpaced.

A release is generated at a share of the paper's size (74,527 documents, 11,746 questions; about 6.3
documents per question): each document a page of generated passages inside site chrome
(``wikihowqa.replay.release_pages``), captured at the URL and timestamp the QA part names, except a few
that meet a real archive's fates (``--shifted`` of them captured hours away, ``--missing`` never captured).
The replay site answers every request after ``--latency`` seconds. Each scale is hydrated in a fresh
process (its peak memory is its own): URLs per second, peak memory, state size, the requests per URL each
lane made, and from them the wall time the real release would take at the Internet Archive's limits
(playback 8/s, CDX 0.4/s, the two lanes in parallel; target: one night). The peer, measured in the same
run on the same site, also in a fresh process of its own: a fetch-and-parse script at the same concurrency
(aiohttp, ``--concurrency`` requests in flight, each named capture's raw bytes ``id_`` asked for once)
that parses each page with the same parser as it arrives, in a pool of as many processes as hydrate's
parse stage uses; it neither verifies captures, nor follows redirect captures, nor stores anything to
resume from (as a competent hand-written script would). Both hydrate and the peer see every named URL.

    python -m benchmarks.hydrate [--scales 0.01,0.1] [--full] [--latency 0.05] [--concurrency 32]
                                     [--shifted 0.05] [--missing 0.05]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The paper's release: documents and questions; the Internet Archive's limits (requests/s).
PAPER_DOCUMENTS, PAPER_QUESTIONS = 74_527, 11_746
IA_PLAYBACK_RATE, IA_CDX_RATE = 8.0, 0.4
_WORDS = re.findall(
    r"\S+",
    "the a to and of in for is on with your it that you be can as this or are if by from at use water soil "
    "floor paint seal dry figs oven sun parents friend night sleep clean stain oil garage concrete brush "
    "roller coat layer wait hours days week tip step first then next finally before after always never",
)


def generate(scale: float, shifted: float, missing: float, seed: int = 0):
    """The QA rows and the capture specs of a release at ``scale`` of the paper's size."""
    from wikihowqa.replay.release_pages import CaptureSpec, page_html

    rng = random.Random(seed)
    n_docs = max(1, round(PAPER_DOCUMENTS * scale))
    n_questions = max(1, round(PAPER_QUESTIONS * scale))
    rows: list[dict] = [
        {"article_id": 10_000 + q, "question": f"How to Do Thing {q}", "answer": "Do it.", "split": "train",
         "related_document_urls_wayback_snapshots": []}
        for q in range(n_questions)
    ]  # fmt: skip
    specs = []
    for d in range(n_docs):
        url = f"https://site{d % 997}.example/guides/{d}/"
        year = 2014 + d % 8
        timestamp = f"{year}{1 + d % 12:02d}{1 + d % 28:02d}120000"
        rows[d % n_questions]["related_document_urls_wayback_snapshots"].append(
            f"http://web.archive.org/web/{timestamp}/{url}"
        )
        fate = rng.random()
        if fate < missing:
            continue
        held = timestamp if fate >= missing + shifted else timestamp[:8] + "150000"
        passages = [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(30, 90))) + "." for _ in range(6)]
        specs.append(CaptureSpec(url, held, 200, page_html(url, f"Guide {d}", passages, year=str(year))))
    return rows, specs


def peak_rss_mb() -> float:
    """This process's own peak resident memory. ``ru_maxrss`` is not: Linux carries the parent's peak into
    a child across fork/vfork + exec, so it would count the generated release and the replay site the
    parent holds; ``VmHWM`` is the peak of this process's own address space."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:  # not Linux: ru_maxrss (bytes on macOS) is the best there is
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    kb = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return int(kb.group(1)) / 1024 if kb else float("nan")


def child(dataset: Path, wayback_url: str, concurrency: int) -> None:
    """Hydrate in this (fresh) process and print its figures as JSON."""
    from wikihowqa.collect.archive_settings import ArchiveSettings
    from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, HttpSettings
    from wikihowqa.release.hydrate import HydrateSettings, hydrate, state_path

    http = HttpSettings(concurrency=concurrency, rates={MEDIAWIKI: 0, CDX: 0, PLAYBACK: 0}, retries=2)
    started = time.perf_counter()
    result = hydrate(dataset, HydrateSettings(ArchiveSettings(wayback_url=wayback_url), http=http))
    wall = time.perf_counter() - started
    lanes = result.manifest["hydrate"]["run"]["http"]
    print(json.dumps({
        "wall_s": wall,
        "urls": result.hydration.funnel["urls"]["unique"],
        "kept": result.hydration.funnel["urls"]["kept"],
        "captures": result.hydration.funnel["captures"],
        "peak_rss_mb": peak_rss_mb(),
        "state_mb": state_path(dataset).stat().st_size / 2**20,
        "requests": {lane: lanes.get(lane, {}).get("requests", 0) for lane in (CDX, PLAYBACK)},
    }))  # fmt: skip


def _parse(body: bytes, url: str, headers: dict[str, str]) -> bool:
    """One page through hydrate's parser and parse settings (in a worker process): kept or not."""
    from wikihowqa.parse import parse_html
    from wikihowqa.release.hydrate import HydrateSettings

    return parse_html(body, url, headers, HydrateSettings().parse).ok


def peer(dataset: Path, playback_url: str, concurrency: int) -> None:
    """The peer, in this (fresh) process: every named capture fetched raw with ``concurrency`` requests in
    flight, each parsed as it arrives in a process pool the size of hydrate's; prints its figures."""
    import asyncio
    from concurrent.futures import ProcessPoolExecutor

    import aiohttp

    from wikihowqa.dataset.folder import DatasetFolder
    from wikihowqa.runtime.executor import worker_count

    urls = list(
        dict.fromkeys(
            u for e in DatasetFolder(dataset).examples() for u in e.related_document_urls_wayback_snapshots
        )
    )
    processes = worker_count(None, items=len(urls), parallel_from=49)  # hydrate's parse stage's rule

    async def run(pool: ProcessPoolExecutor) -> int:
        loop = asyncio.get_running_loop()
        slots = asyncio.Semaphore(concurrency)
        connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def one(url: str) -> bool:
                ts, original = url.split("/web/", 1)[1].split("/", 1)
                async with slots, session.get(f"{playback_url}{ts}id_/{original}") as r:
                    body, status, headers = await r.read(), r.status, dict(r.headers)
                if status != 200:
                    return False
                return await loop.run_in_executor(pool, _parse, body, original, headers)

            return sum(await asyncio.gather(*(one(u) for u in urls)))

    started = time.perf_counter()
    with ProcessPoolExecutor(processes) as pool:
        kept = asyncio.run(run(pool))
    wall = time.perf_counter() - started
    print(json.dumps({"wall_s": wall, "urls": len(urls), "kept": kept, "processes": processes}))


def _in_a_process(*args: str) -> dict:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{args[0]} failed: {done.stderr[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scales", default="0.01,0.1", help="shares of the paper's size, comma-separated")
    parser.add_argument("--full", action="store_true", help="also 100 %% (74,527 URLs): once, and reported")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds the site waits per request")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--shifted", type=float, default=0.05, help="share captured hours from the name")
    parser.add_argument("--missing", type=float, default=0.05, help="share never captured")
    parser.add_argument(
        "--child", nargs=3, metavar=("DATASET", "WAYBACK", "CONCURRENCY"), help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--peer", nargs=3, metavar=("DATASET", "PLAYBACK", "CONCURRENCY"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), args.child[1], int(args.child[2]))
        return
    if args.peer:
        peer(Path(args.peer[0]), args.peer[1], int(args.peer[2]))
        return
    from wikihowqa.release.importer import import_release
    from wikihowqa.replay import EndpointFaults, Faults, ReplaySite
    from wikihowqa.replay.release_pages import archive_corpus

    scales = [float(s) for s in args.scales.split(",") if s] + ([1.0] if args.full else [])
    faults = Faults(
        cdx=EndpointFaults(latency_s=args.latency), playback=EndpointFaults(latency_s=args.latency)
    )
    results = []
    with tempfile.TemporaryDirectory(prefix="wikihowqa-hydrate-bench-") as tmp:
        for scale in scales:
            rows, specs = generate(scale, args.shifted, args.missing)
            qa = Path(tmp) / f"qa-{scale}.jsonl"
            qa.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            dataset = Path(tmp) / f"dataset-{scale}"
            import_release([qa], [], dataset)
            with ReplaySite(corpus=archive_corpus(specs), faults=faults) as site:
                named = sum(len(r["related_document_urls_wayback_snapshots"]) for r in rows)
                print(f"{scale:.0%}: {named:,} URLs …", file=sys.stderr, flush=True)
                figures = _in_a_process("--child", str(dataset), site.wayback_url, str(args.concurrency))
                theirs = _in_a_process("--peer", str(dataset), site.playback_url, str(args.concurrency))
                figures["peer_urls_s"] = theirs["urls"] / theirs["wall_s"]
                figures["peer_kept"] = theirs["kept"]
            figures["scale"] = scale
            results.append(figures)
    base = results[0]
    print(
        f"\nhydrate: generated release, replay site {args.latency * 1000:.0f} ms per request, unpaced, "
        f"concurrency {args.concurrency}; peer: fetch-and-parse at concurrency {args.concurrency} (aiohttp, "
        "the same parser in a process pool of hydrate's size), same site, same run\n"
    )
    header = (
        "| scale | URLs | kept | wall | URLs/s | peer kept | peer URLs/s | × peer | s per URL vs first "
        "| peak RSS | RSS vs first | state | playback req/URL | CDX req/URL | at IA limits (74,527) |"
    )
    print(header)
    print("|" + "---:|" * (header.count("|") - 1))
    for r in results:
        per_url = r["wall_s"] / r["urls"]
        playback, cdx = r["requests"]["playback"] / r["urls"], r["requests"]["cdx"] / r["urls"]
        at_limits = max(PAPER_DOCUMENTS * playback / IA_PLAYBACK_RATE, PAPER_DOCUMENTS * cdx / IA_CDX_RATE)
        rate = r["urls"] / r["wall_s"]
        cells = [
            f"{r['scale']:.0%}", f"{r['urls']:,}", f"{r['kept']:,}", f"{r['wall_s']:.1f} s", f"{rate:.1f}",
            f"{r['peer_kept']:,}", f"{r['peer_urls_s']:.1f}", f"{rate / r['peer_urls_s']:.2f}",
            f"{per_url / (base['wall_s'] / base['urls']):.2f}", f"{r['peak_rss_mb']:.0f} MB",
            f"{r['peak_rss_mb'] / base['peak_rss_mb']:.2f}", f"{r['state_mb']:.1f} MB", f"{playback:.2f}",
            f"{cdx:.3f}", _hours(at_limits),
        ]  # fmt: skip
        print("| " + " | ".join(cells) + " |")
    print(
        "\nAt the Internet Archive's limits the two lanes run in parallel: the slower one sets the time "
        "(playback URLs ÷ 8/s, CDX queries ÷ 0.4/s), from the requests per URL measured here "
        f"({args.shifted:.0%} shifted, {args.missing:.0%} never captured, the rest exact)."
    )


if __name__ == "__main__":
    main()
