"""Fixtures of the collector's and hydrate's tests (tests/collect, tests/release): the replay site, a clean
build, the real MediaWiki and pywb, a scripted HTTP server. Loaded by the root conftest as a plugin, so each
session-scoped server starts once for both folders."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.collect.collect_corpus import write_corpus
from tests.collect.scripted_server import ScriptedServer, settings_for
from tests.components import MEDIAWIKI, PYWB, require
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


# --------------------------------------------------------------------------- real server software


@pytest.fixture(scope="session")
def demo_corpus() -> Path:
    from wikihowqa.demo.paths import corpus_path

    return corpus_path()


@pytest.fixture(scope="session")
def real_wiki(demo_corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    """Debian's MediaWiki 1.39 holding the demo corpus, on 127.0.0.1 (installed once per session)."""
    from tests.collect.real_servers import MediaWikiServer, mediawiki_missing

    require(MEDIAWIKI, mediawiki_missing())
    with MediaWikiServer(demo_corpus, tmp_path_factory.mktemp("mediawiki")) as wiki:
        yield wiki


@pytest.fixture(scope="session")
def pywb(demo_corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    """pywb 2.10 serving the demo corpus's captures (a WARC written with warcio), on 127.0.0.1."""
    from wikihowqa.replay.pywb import PywbServer, pywb_missing

    require(PYWB, pywb_missing())
    with PywbServer(demo_corpus, tmp_path_factory.mktemp("pywb")) as archive:
        yield archive


@pytest.fixture(scope="session")
def demo_site(demo_corpus: Path) -> Iterator[ReplaySite]:
    with ReplaySite(demo_corpus) as running:
        yield running
