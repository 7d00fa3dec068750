"""Collector throughput: ``wikihowqa build``'s HTTP client against a sequential client, same site, same run.

The replay site serves a generated corpus (``wikihowqa.synthetic.corpus``) with a fixed latency on every
request (200 ms by default, about what web.archive.org answers in). Two rows:

* **generous limits** — ``wikihowqa build`` at ``--concurrency`` (32) with rates far above what it can
  reach, against a sequential client doing the same kind of requests (a CDX lookup, then the snapshot,
  one request at a time, as waybackpy does). Target: ≥ 20× the sequential client's requests/s.
* **binding limit** — the CDX and playback lanes paced at ``--limit-rate`` requests/s each, with the site
  enforcing 1.2 times that (token bucket, burst 1): the rate each lane achieves, as a fraction of the
  configured one (target ≥ 0.9), and how many 429s the site had to send (target 0).

A second table compares the ways of finding each reference's capture (``--lookup``), on a generated
corpus whose pages meet a real archive's fates (never archived, an error capture at the article's last
edit, moved, redirect only: ``synthetic.FATES``) and on the demo corpus, served by the replay site and
by pywb 2.10 (when ``.venv-pywb`` has it): requests per reference found, the wall time they take for a
paper-scale 75,000 references at the Internet Archive's limits (CDX 0.4/s, playback 8/s, the lanes in
parallel), and the share of references whose chosen capture differs from the per-URL CDX lookup's
(must be 0). Target: ≤ 12 h, ≥ 4× faster than one CDX call per reference.

    python -m benchmarks.collect [--articles 150] [--refs 6] [--latency 0.2] [--concurrency 32]
                                 [--limit-rate 10] [--lookup-articles 300] [--only lookups|throughput]
                                 [--no-results]
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

import httpx  # noqa: E402

from benchmarks.results_md import append_run  # noqa: E402
from wikihowqa.collect.archive_queries import wayback_timestamp  # noqa: E402
from wikihowqa.collect.build import BuildSettings, build  # noqa: E402
from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, HttpSettings  # noqa: E402
from wikihowqa.replay import EndpointFaults, Faults, ReplaySite, load_corpus  # noqa: E402
from wikihowqa.synthetic.corpus import write_synthetic_corpus  # noqa: E402

#: The Internet Archive's limits (requests/s) and the paper's number of kept references.
IA_CDX_RATE, IA_PLAYBACK_RATE, PAPER_REFERENCES = 0.4, 8.0, 75_000
LOOKUP_METHODS = ("cdx", "playback", "memento")

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
    parser.add_argument(
        "--lookup-articles", type=int, default=300, help="articles of the lookup table's generated corpus"
    )
    parser.add_argument(
        "--only", choices=("lookups", "throughput"), default=None, help="run one of the two tables only"
    )
    args = parser.parse_args()
    if args.only != "throughput":
        lookups_benchmark(args)
    if args.only != "lookups":
        throughput_benchmark(args)


def throughput_benchmark(args: argparse.Namespace) -> None:
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


# --------------------------------------------------------------------------- the lookup methods


def reference_tasks(corpus: Path):
    """The references a build would look up, as it plans them (reference time: last modification)."""
    from wikihowqa.collect.references import ReferenceTask
    from wikihowqa.collect.wikitext_reading import references

    tasks: dict[str, ReferenceTask] = {}
    for page in sorted(load_corpus(corpus).pages, key=lambda p: p.pageid):
        if page.ns != 0 or page.redirect or page.summary is None:
            continue
        for url in references(page.wikitext):
            tasks.setdefault(url, ReferenceTask(url, wayback_timestamp(page.revisions[-1].timestamp)))
    return list(tasks.values())


def run_lookups(tasks, endpoints, method: str, state: Path) -> tuple[dict[str, dict], dict[str, int]]:
    """The build's reference phase alone (no wiki, no parsing): each reference's outcome, and the
    requests per lane it took."""
    import asyncio

    from wikihowqa.collect.archive_queries import Wayback
    from wikihowqa.collect.captures import CaptureFinder
    from wikihowqa.collect.memento import MementoClient
    from wikihowqa.collect.progress import QuietReporter
    from wikihowqa.collect.references import fetch_references
    from wikihowqa.collect.store import StateStore

    async def go():
        http_settings = HttpSettings(concurrency=16, rates={CDX: None, PLAYBACK: None}, timeout_s=30.0)
        from wikihowqa.collect.http import HttpClient

        with StateStore(state) as store:
            async with HttpClient(http_settings, cache=store) as http:
                memento = MementoClient(http, endpoints) if method == "memento" else None
                finder = CaptureFinder(Wayback(http, endpoints), method, memento)
                outcomes = await fetch_references(finder, store, tasks, 32, QuietReporter())
                return outcomes, {lane: http.lane_stats(lane).requests for lane in (CDX, PLAYBACK)}

    return asyncio.run(go())


def chosen(outcome: dict) -> tuple:
    return (outcome["status"], outcome.get("timestamp"), outcome.get("original"))


def lookups_benchmark(args: argparse.Namespace) -> None:
    from wikihowqa.demo.paths import corpus_path

    rows: list[list[str]] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        synthetic = write_synthetic_corpus(
            tmp_path / "fates", articles=args.lookup_articles, refs_per_article=6, seed=3, fates=True
        )
        corpora = {"generated (archive fates)": synthetic, "demo corpus": corpus_path()}
        for corpus_name, corpus in corpora.items():
            tasks = reference_tasks(corpus)
            archives = []
            site = ReplaySite(corpus).start()
            archives.append(("replay site", site.url, _replay_endpoints(site)))
            pywb = _start_pywb(corpus, tmp_path / f"pywb-{len(rows)}", notes)
            if pywb is not None:
                archives.append(("pywb 2.10", pywb.url, _pywb_endpoints(pywb)))
            try:
                for archive_name, _base, endpoints in archives:
                    print(f"lookups: {corpus_name}, {archive_name}, {len(tasks)} references …")
                    results = {}
                    for method in LOOKUP_METHODS:
                        state = tmp_path / f"{archive_name}-{corpus_name}-{method}.sqlite".replace(" ", "_")
                        outcomes, requests = run_lookups(tasks, endpoints[method], method, state)
                        results[method] = (outcomes, requests)
                    baseline = results["cdx"][0]
                    base_time = None
                    for method in LOOKUP_METHODS:
                        outcomes, requests = results[method]
                        found = sum(1 for o in outcomes.values() if o["status"] == "fetched")
                        differ = sum(1 for url in baseline if chosen(baseline[url]) != chosen(outcomes[url]))
                        cdx_per, play_per = requests[CDX] / found, requests[PLAYBACK] / found
                        hours = (
                            max(cdx_per / IA_CDX_RATE, play_per / IA_PLAYBACK_RATE) * PAPER_REFERENCES / 3600
                        )
                        base_time = base_time or hours
                        rows.append(
                            [
                                corpus_name,
                                archive_name,
                                method,
                                f"{len(tasks)} / {found}",
                                f"{cdx_per:.2f}",
                                f"{play_per:.2f}",
                                f"{hours:.1f} h",
                                f"{base_time / hours:.1f}×",
                                f"{differ / len(tasks):.3f} ({differ})",
                            ]
                        )
            finally:
                site.stop()
                if pywb is not None:
                    pywb.stop()
    table = [
        "| corpus | archive | lookup | references / found | CDX requests per found | playback requests per "
        "found | 75,000 references at 0.4 CDX/s, 8 playback/s | vs per-URL CDX | chosen capture differs |",
        "|---|---|---|---|---|---|---|---|---|",
        *("| " + " | ".join(r) + " |" for r in rows),
    ]
    from wikihowqa.synthetic.corpus import FATES

    note = (
        "Requests are counted by the collector's HTTP client over the reference phase alone (CDX lookups "
        "and playback; the Memento TimeGate is served by the playback lane, TimeMaps by the CDX lane), "
        "divided by the references whose capture was found and fetched; the time is the slower lane's at "
        "the Internet Archive's limits, for 75,000 such references (the paper keeps 74,527 documents). "
        "'Differs' compares (status, capture timestamp, captured URL) with the per-URL CDX lookup's, "
        "reference by reference. Generated corpus fates: "
        + ", ".join(f"{k.replace('_', ' ')} {v:.0%}" for k, v in FATES.items())
        + " (assumed shares), the rest two 200 captures. "
        + " ".join(notes)
    )
    print()
    print("\n".join(table))
    print()
    print(note)
    if not args.no_results:
        command = "python -m benchmarks.collect " + " ".join(sys.argv[1:])
        append_run("collect lookups", f"`{command.strip()}`\n\n" + "\n".join(table) + f"\n\n{note}\n")
        print("appended to benchmarks/RESULTS.md")


def _replay_endpoints(site: ReplaySite) -> dict:
    from wikihowqa.collect.archive_queries import ArchiveEndpoints

    wayback = ArchiveEndpoints.wayback(site.url)
    memento = ArchiveEndpoints(
        timegate_url=f"{site.url}/web/", timemap_url=f"{site.url}/web/timemap/link/{{url}}"
    )
    return {"cdx": wayback, "playback": wayback, "memento": memento}


def _pywb_endpoints(pywb) -> dict:
    from wikihowqa.collect.archive_queries import ArchiveEndpoints

    wayback = ArchiveEndpoints(cdx_url=pywb.cdx_url, playback_url=pywb.playback_url)
    memento = ArchiveEndpoints(timegate_url=pywb.timegate_url, timemap_url=pywb.timemap_url)
    return {"cdx": wayback, "playback": wayback, "memento": memento}


def _start_pywb(corpus: Path, work: Path, notes: list[str]):
    from wikihowqa.replay.pywb import PywbServer, pywb_missing

    missing = pywb_missing()
    if missing:
        if not notes:
            notes.append(f"pywb rows left out: {missing}.")
        return None
    return PywbServer(corpus, work).start()


def append_results(path: Path, args: argparse.Namespace, table: list[str], notes: str) -> None:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    command = "python -m benchmarks.collect " + " ".join(sys.argv[1:])
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
