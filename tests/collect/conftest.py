"""Fixtures of the collector's tests: a scripted HTTP server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.collect.collect_corpus import write_corpus
from tests.collect.scripted_server import ScriptedServer, settings_for
from wikihowqa.collect.build import build
from wikihowqa.replay import ReplaySite


@pytest.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    running = await ScriptedServer().start()
    yield running
    await running.stop()


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("collect-corpus") / "corpus")


@pytest.fixture(scope="session")
def site(corpus_dir: Path) -> Iterator[ReplaySite]:
    with ReplaySite(corpus_dir) as running:
        yield running


@pytest.fixture(scope="session")
def clean_build(site: ReplaySite, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test corpus built once from a site without faults: what every faulty build must reproduce."""
    out = tmp_path_factory.mktemp("clean") / "dataset"
    build(out, settings_for(site))
    return out
