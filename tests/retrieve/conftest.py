"""Fixtures of the retrieval tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def dense_retriever(tmp_path_factory):
    from wikihowqa.retrieve.dense import DenseRetriever

    cache = tmp_path_factory.mktemp("emb") / "embeddings.sqlite"
    return DenseRetriever.from_settings(cache=cache)
