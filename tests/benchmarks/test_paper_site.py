"""The paper-scale benchmark's replay site keeps its address between runs: ``build`` keys what it stored by
URL and forgets an archive's results when the archive's URL changes, so a stage resumed in a later run on
another port fetched (and parsed) the whole 100 % corpus again."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from wikihowqa.demo.paths import corpus_path

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def paper_stages(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    # the site's process runs ``python -m benchmarks.paper_scale`` from the repository root
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(ROOT / "src"), *sys.path]))
    monkeypatch.chdir(ROOT)
    from benchmarks import paper_stages

    return paper_stages


def test_a_later_run_serves_on_the_earlier_runs_port(paper_stages, tmp_path):
    with paper_stages.Site(corpus_path(), tmp_path) as first:
        url = first.url
    with paper_stages.Site(corpus_path(), tmp_path) as second:
        assert second.url == url
        assert second.requests() == 0  # it answers: a fresh site, not the stopped one


def test_a_taken_port_is_replaced_by_a_free_one(paper_stages, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        (tmp_path / "site.url").write_text(f"http://127.0.0.1:{port}")
        with paper_stages.Site(corpus_path(), tmp_path) as site:
            assert not site.url.endswith(f":{port}")
            assert site.requests() == 0
