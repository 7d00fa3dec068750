"""Fixtures of the replay tests: the standard test corpus, a shared site, and a factory for faulty sites."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.replay.replay_corpus import write_corpus
from wikihowqa.replay import Faults, ReplaySite


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="session")
def http() -> Iterator[httpx.Client]:
    """One client for all tests: building an httpx client (its TLS context) costs ~0.1 s each time."""
    with httpx.Client(timeout=10) as client:
        yield client


@pytest.fixture(scope="session")
def site(corpus_dir: Path) -> Iterator[ReplaySite]:
    with ReplaySite(corpus_dir) as running:
        yield running


@pytest.fixture
def make_site(corpus_dir: Path) -> Iterator[Callable[..., ReplaySite]]:
    """Start extra sites (e.g. with faults) on the standard corpus; all are stopped after the test."""
    started: list[ReplaySite] = []

    def make(faults: Faults | None = None, **kwargs: Any) -> ReplaySite:
        running = ReplaySite(kwargs.pop("corpus_dir", corpus_dir), faults=faults, **kwargs).start()
        started.append(running)
        return running

    yield make
    for running in started:
        running.stop()
