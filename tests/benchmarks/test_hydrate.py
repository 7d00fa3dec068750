"""``benchmarks/hydrate.py``'s peer is a fair one: it keeps as many requests in flight as hydrate does and
parses what it fetches (issue 32: a one-at-a-time downloader made hydrate's lead a measure of concurrency)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from tests.collect.playback_stub import Answer, PlaybackStub, page
from tests.collect.test_hydrate_limits import dataset

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "hydrate.py"


def _benchmark():
    spec = importlib.util.spec_from_file_location("hydrate_benchmark", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the peer's process pool pickles its parse function by module name
    spec.loader.exec_module(module)
    return module


def test_the_peer_fetches_at_hydrates_concurrency_and_parses_every_page(tmp_path, capsys):
    urls = [f"https://site{i}.example/guide" for i in range(8)]
    with PlaybackStub() as stub:
        for i, url in enumerate(urls):
            stub.script(url, Answer(200, page(f"Guide {i}"), delay_s=0.3))
        stub.script(urls[-1], Answer(404, b"gone"))  # never captured: fetched, not kept
        folder = dataset(tmp_path / "ds", *urls)
        _benchmark().peer(folder, stub.playback_url, 4)
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert stub.max_in_flight == 4 and sum(stub.hits.values()) == 8  # 4 at once, each URL once
    assert figures["urls"] == 8 and figures["kept"] == 7
