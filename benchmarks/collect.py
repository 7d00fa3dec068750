"""Collector throughput: ``wikihowqa build``'s HTTP client against a sequential client, same site, same run.

The replay site serves a generated corpus (``wikihowqa.collect.synthetic``) with a fixed latency on every
request (200 ms by default, about what web.archive.org answers in). Two rows:

* **generous limits** — ``wikihowqa build`` at ``--concurrency`` (32) with rates far above what it can
  reach, against a sequential client doing the same kind of requests (a CDX lookup, then the snapshot,
  one request at a time, as waybackpy does). Target: ≥ 20× the sequential client's requests/s.
* **binding limit** — the CDX and playback lanes paced at ``--limit-rate`` requests/s each, with the site
  enforcing 1.2 times that (token bucket, burst 1): the rate each lane achieves, as a fraction of the
  configured one (target ≥ 0.9), and how many 429s the site had to send (target 0).

    python benchmarks/collect.py [--articles 150] [--refs 6] [--latency 0.2] [--concurrency 32]
                                 [--limit-rate 10] [--results benchmarks/RESULTS.md | --no-results]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import httpx  # noqa: E402

from wikihowqa.collect.build import BuildSettings, build  # noqa: E402
from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, HttpSettings  # noqa: E402
from wikihowqa.collect.synthetic import write_synthetic_corpus  # noqa: E402
from wikihowqa.collect.wayback import wayback_timestamp  # noqa: E402
from wikihowqa.replay import EndpointFaults, Faults, ReplaySite, load_corpus  # noqa: E402

GROUPS = (MEDIAWIKI, CDX, PLAYBACK)
#: The site's own limit in the binding row, relative to the client's: room for network jitter, as a
#: crawler configured just under a service's published limit has.
SITE_MARGIN = 1.2


class NetworkClock:
    """Notes when the network phases end: the parse phase starts once every snapshot is fetched."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.network_done: float | None = None

    def phase(self, name: str, total: int | None) -> None:
        if name == "documents parsed" and self.network_done is None:
            self.network_done = time.perf_counter()

    def advance(self, name: str, n: int = 1) -> None:
        pass

    def event(self, message: str) -> None:
        print(f"  event: {message}", file=sys.stderr)


def served(site: ReplaySite) -> dict[str, int]:
    stats = site.stats()
    return {g: stats[g]["requests"] for g in GROUPS}


def run_build(site: ReplaySite, out: Path, http: HttpSettings) -> tuple[int, float, dict]:
    """Requests the build made and the seconds its network phases took."""
    site.reset_stats()
    clock = NetworkClock()
    result = build(
        out,
        BuildSettings(api_url=site.mediawiki_url, wayback_url=site.wayback_url, http=http),
        reporter=clock,
    )
    assert clock.network_done is not None
    return sum(served(site).values()), clock.network_done - clock.start, result.manifest


def run_sequential(site: ReplaySite, corpus: Path, n: int) -> tuple[int, float]:
    """One request at a time: a CDX lookup, then the snapshot it names (as waybackpy fetches)."""
    captures = load_corpus(corpus).captures
    urls = list(dict.fromkeys(c.url for c in captures))
    done = 0
    t0 = time.perf_counter()
    with httpx.Client(timeout=30) as client:
        for url in urls:
            if done >= n:
                break
            rows = client.get(
                site.cdx_url,
                params={
                    "url": url,
                    "output": "json",
                    "fl": "timestamp,original,mimetype,statuscode",
                    "filter": "statuscode:200",
                    "sort": "closest",
                    "closest": wayback_timestamp("2019-01-01T00:00:00Z"),
                    "limit": "1",
                },
            ).json()
            done += 1
            timestamp, original = rows[1][0], rows[1][1]
            client.get(f"{site.wayback_url}/web/{timestamp}id_/{original}").raise_for_status()
            done += 1
    return done, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=150, help="articles of the generated corpus")
    parser.add_argument("--refs", type=int, default=6, help="references per article")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the site waits before answering")
    parser.add_argument("--concurrency", type=int, default=32, help="wikihowqa build's --concurrency")
    parser.add_argument("--sequential", type=int, default=40, help="requests the sequential client makes")
    parser.add_argument("--limit-rate", type=float, default=10.0, help="requests/s of the binding-limit row")
    parser.add_argument("--limit-articles", type=int, default=40, help="articles of the binding-limit row")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "RESULTS.md")
    parser.add_argument("--no-results", action="store_true", help="print only; do not append to RESULTS.md")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        # Row 1: generous limits.
        corpus = write_synthetic_corpus(
            tmp_path / "corpus", articles=args.articles, refs_per_article=args.refs
        )
        latency = Faults.everywhere(EndpointFaults(latency_s=args.latency))
        generous = HttpSettings(
            concurrency=args.concurrency, rates={MEDIAWIKI: 1000.0, CDX: 1000.0, PLAYBACK: 1000.0}
        )
        with ReplaySite(corpus, faults=latency) as site:
            print(
                f"building {args.articles} articles × {args.refs} references, {args.concurrency} at a time …"
            )
            n_build, t_build, manifest = run_build(site, tmp_path / "fast", generous)
            print(f"sequential client, {args.sequential} requests …")
            site.reset_stats()
            n_seq, t_seq = run_sequential(site, corpus, args.sequential)
        build_rate, seq_rate = n_build / t_build, n_seq / t_seq
        speedup = build_rate / seq_rate

        # Row 2: a binding limit on the Wayback lanes, enforced by the site too.
        small = write_synthetic_corpus(
            tmp_path / "small", articles=args.limit_articles, refs_per_article=3, seed=1
        )
        rate = args.limit_rate
        enforced = Faults(
            mediawiki=EndpointFaults(latency_s=args.latency),
            cdx=EndpointFaults(latency_s=args.latency, rate_limit=rate * SITE_MARGIN),
            playback=EndpointFaults(latency_s=args.latency, rate_limit=rate * SITE_MARGIN),
        )
        paced = HttpSettings(
            concurrency=args.concurrency, rates={MEDIAWIKI: 1000.0, CDX: rate, PLAYBACK: rate}
        )
        with ReplaySite(small, faults=enforced) as site:
            print(f"building {args.limit_articles} articles with CDX and playback paced at {rate:g}/s …")
            _, _, limited = run_build(site, tmp_path / "paced", paced)
            stats = site.stats()
        lanes = limited["run"]["http"]
        achieved = {lane: lanes[lane]["send_rate_per_s"] for lane in (CDX, PLAYBACK)}
        throttled = stats[CDX]["injected"]["rate_limited"] + stats[PLAYBACK]["injected"]["rate_limited"]

    refs = manifest["funnel"]["references"]
    ms = f"{args.latency * 1000:.0f} ms latency"
    ours = f"wikihowqa build, concurrency {args.concurrency}"
    table = [
        "| setting | client | requests | seconds | requests/s | vs sequential / vs limit |",
        "|---|---|---|---|---|---|",
        f"| {ms}, generous limits | {ours} "
        f"| {n_build} | {t_build:.1f} | {build_rate:.1f} | **{speedup:.1f}×** (target ≥ 20×) |",
        f"| {ms}, generous limits | sequential (one at a time, like waybackpy) "
        f"| {n_seq} | {t_seq:.1f} | {seq_rate:.2f} | 1.0× |",
    ]
    for lane in (CDX, PLAYBACK):
        table.append(
            f"| {ms}, limit {rate:g}/s on {lane} (site: {rate * SITE_MARGIN:g}/s) | {ours} "
            f"| {lanes[lane]['requests']} | — "
            f"| {achieved[lane]:.2f} | **{achieved[lane] / rate:.2f}** of the "
            f"limit (target ≥ 0.9) |"
        )
    notes = (
        f"Generated corpus: {args.articles} articles × {args.refs} references "
        f"({refs['unique_urls']} distinct URLs); the build's requests/s counts every request of its network "
        f"phases (siteinfo, allpages, article batches, creation timestamps, categories, CDX, playback) over "
        f"their wall time, parsing excluded. "
        f"Binding-limit row: {args.limit_articles} articles × 3 references; its requests/s is the rate "
        f"requests left at (what a limit constrains); 429s the site sent: {throttled}. "
        f"Client and site share one process on {os.cpu_count()} cores "
        f"(load average {os.getloadavg()[0]:.1f} at the end)."
    )
    print()
    print("\n".join(table))
    print()
    print(notes)
    if not args.no_results:
        append_results(args.results, args, table, notes)


def append_results(path: Path, args: argparse.Namespace, table: list[str], notes: str) -> None:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    command = "python benchmarks/collect.py " + " ".join(sys.argv[1:])
    section = (
        f"## collect — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit {commit}\n\n`{command.strip()}`\n\n"
        + "\n".join(table)
        + f"\n\n{notes}\n\n"
    )
    header = "# Benchmark results\n\nNewest first. Each run names its command, date and commit.\n\n"
    old = path.read_text(encoding="utf-8") if path.is_file() else header
    if not old.startswith("# Benchmark results"):
        old = header + old
    head, _, rest = old.partition("\n## ")
    body = head.rstrip("\n") + "\n\n" + section + ("## " + rest if rest else "")
    path.write_text(body.rstrip("\n") + "\n", encoding="utf-8")
    print(f"appended to {path}")


if __name__ == "__main__":
    main()
