"""Benchmark: does the replay site serve concurrently under injected latency, and hold a rate limit?

Peers measured in the same run:
* a sequential client vs a concurrent one (32 connections) against 200 ms of injected playback latency —
  a site that serialised requests would give both the same wall time; the same load through aiohttp's
  client shows how much of the remaining gap is the httpx client's own per-request cost;
* a client hammering the CDX endpoint vs the configured token-bucket rate — accepted requests/s should
  sit at the rate, everything above it answered 429, and a client pacing itself just under the rate
  should see no 429 at all.

Run: ``PYTHONPATH=src python -m benchmarks.replay_site [--requests 64] [--rate 8] [--seconds 4]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import aiohttp
import httpx

from wikihowqa.replay import EndpointFaults, Faults, ReplaySite


def synthetic_corpus(root: Path, pages: int = 50) -> Path:
    """A corpus of ``pages`` articles each citing one archived page: content does not matter here."""
    (root / "articles").mkdir(parents=True)
    (root / "archive" / "snapshots").mkdir(parents=True)
    (root / "site.json").write_text(json.dumps({"top_categories": ["Hobbies and Crafts"]}))
    lines = []
    for i in range(pages):
        article = {
            "pageid": 1000 + i,
            "ns": 0,
            "title": f"How to Bench {i:03d}",
            "categories": ["Hobbies and Crafts"],
            "revisions": [{"revid": 5000 + i, "timestamp": "2019-01-01T00:00:00Z", "user": "Bench"}],
            "wikitext": f"Step.<ref>https://bench.example/{i}</ref>",
            "summary": None,
        }
        (root / "articles" / f"{1000 + i}.json").write_text(json.dumps(article))
        (root / "archive" / "snapshots" / f"{i}.html").write_bytes(
            b"<html><body>" + b"x" * 20_000 + b"</body></html>"
        )
        lines.append(
            json.dumps(
                {
                    "url": f"https://bench.example/{i}",
                    "timestamp": "20190101000000",
                    "statuscode": "200",
                    "mimetype": "text/html",
                    "file": f"{i}.html",
                    "headers": {"Content-Type": "text/html; charset=utf-8"},
                }
            )
        )
    (root / "archive" / "cdx.jsonl").write_text("\n".join(lines) + "\n")
    return root


def playback_urls(site: ReplaySite, n: int) -> list[str]:
    return [f"{site.url}/web/20190101000000id_/https://bench.example/{i % 50}" for i in range(n)]


def sequential(urls: list[str]) -> float:
    start = time.perf_counter()
    with httpx.Client(timeout=60) as client:
        for url in urls:
            client.get(url).raise_for_status()
    return time.perf_counter() - start


async def concurrent(urls: list[str], width: int) -> float:
    gate = asyncio.Semaphore(width)
    limits = httpx.Limits(max_connections=width, max_keepalive_connections=width)
    start = time.perf_counter()
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:

        async def one(url: str) -> None:
            async with gate:
                (await client.get(url)).raise_for_status()

        await asyncio.gather(*(one(u) for u in urls))
    return time.perf_counter() - start


async def concurrent_aiohttp(urls: list[str], width: int) -> float:
    """Same load through aiohttp's client, whose per-request cost is far below httpx's: the site's ceiling."""
    gate = asyncio.Semaphore(width)
    start = time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=width)) as session:

        async def one(url: str) -> None:
            async with gate, session.get(url) as response:
                response.raise_for_status()
                await response.read()

        await asyncio.gather(*(one(u) for u in urls))
    return time.perf_counter() - start


async def hammer(url: str, params: dict[str, str], seconds: float, width: int) -> tuple[int, int]:
    ok = limited = 0
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=width, max_keepalive_connections=width)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:

        async def worker() -> None:
            nonlocal ok, limited
            while time.perf_counter() < deadline:
                status = (await client.get(url, params=params)).status_code
                ok += status == 200
                limited += status == 429

        await asyncio.gather(*(worker() for _ in range(width)))
    return ok, limited


def paced(url: str, params: dict[str, str], seconds: float, rate: float) -> tuple[int, int]:
    ok = limited = 0
    interval = 1.0 / rate
    deadline = time.perf_counter() + seconds
    with httpx.Client(timeout=60) as client:
        next_at = time.perf_counter()
        while next_at < deadline:
            time.sleep(max(0.0, next_at - time.perf_counter()))
            status = client.get(url, params=params).status_code
            ok += status == 200
            limited += status == 429
            next_at += interval
    return ok, limited


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--requests", type=int, default=64, help="playback requests per client")
    parser.add_argument("--width", type=int, default=32, help="concurrent connections")
    parser.add_argument("--latency", type=float, default=0.2, help="injected playback latency (s)")
    parser.add_argument("--rate", type=float, default=8.0, help="CDX rate limit (requests/s)")
    parser.add_argument("--seconds", type=float, default=4.0, help="duration of each rate-limit run")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        corpus = synthetic_corpus(Path(tmp) / "corpus")
        faults = Faults(
            playback=EndpointFaults(latency_s=args.latency), cdx=EndpointFaults(rate_limit=args.rate)
        )
        with ReplaySite(corpus, faults=faults) as site:
            urls = playback_urls(site, args.requests)
            seq = sequential(urls)
            con = asyncio.run(concurrent(urls, args.width))
            con_aio = asyncio.run(concurrent_aiohttp(urls, args.width))
            in_flight = site.stats()["playback"]["max_in_flight"]
            params = {"url": "https://bench.example/1", "output": "json"}
            time.sleep(1.0)  # let the bucket refill
            ok, limited = asyncio.run(hammer(site.cdx_url, params, args.seconds, args.width))
            time.sleep(1.0)
            p_ok, p_limited = paced(site.cdx_url, params, args.seconds, args.rate * 0.9)

    n = args.requests
    print(f"\nreplay site: {n} playback requests, {args.latency * 1000:.0f} ms injected latency each")
    print(f"{'client':<28}{'wall s':>9}{'req/s':>9}{'speed-up':>10}")
    print(f"{'sequential (1 connection)':<28}{seq:>9.2f}{n / seq:>9.1f}{1.0:>10.1f}")
    print(f"{f'concurrent ({args.width} connections)':<28}{con:>9.2f}{n / con:>9.1f}{seq / con:>10.1f}")
    print(f"{'concurrent, aiohttp client':<28}{con_aio:>9.2f}{n / con_aio:>9.1f}{seq / con_aio:>10.1f}")
    print(f"max requests in flight at the server: {in_flight}")
    print(f"\nCDX rate limit {args.rate:g}/s (token bucket, burst 1), {args.seconds:g} s per client")
    print(f"{'client':<34}{'200/s':>8}{'429':>7}{'200/s ÷ limit':>15}")
    print(
        f"{f'hammering ({args.width} connections)':<34}{ok / args.seconds:>8.2f}{limited:>7}"
        f"{ok / args.seconds / args.rate:>15.2f}"
    )
    print(
        f"{f'paced at {args.rate * 0.9:g}/s':<34}{p_ok / args.seconds:>8.2f}{p_limited:>7}"
        f"{p_ok / args.seconds / args.rate:>15.2f}"
    )


if __name__ == "__main__":
    main()
