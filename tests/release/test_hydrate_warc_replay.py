"""The WARC file of a hydration is an archive of its own: pywb serving that file alone hydrates the same.

The hydration is fetched from the replay site (answering as pywb does, redirect captures pointing at the
live web), written with ``--warc``; pywb 2.10 then indexes that one file and a second hydration asks it:
the same documents and the same verdict for every release URL, the redirect and the 404 included.
"""

from __future__ import annotations

import json

import pytest

from tests.components import PYWB, require
from tests.release.test_hydrate import archive_specs, qa_only, settings_for, statuses
from wikihowqa.release.hydrate import hydrate
from wikihowqa.release.warc_files import WARC_FILE
from wikihowqa.replay import ReplaySite
from wikihowqa.replay.release_pages import archive_corpus


def _documents(folder):
    rows = [json.loads(line) for line in (folder / "documents.jsonl").read_text().splitlines()]
    for row in rows:
        row["capture"].pop("archive_url")  # where the capture was found: each archive's own address
    return rows


@pytest.mark.slow
def test_pywb_serving_only_the_hydrations_warc_file_hydrates_the_same(tmp_path):
    from wikihowqa.replay.pywb import PywbServer, pywb_missing

    require(PYWB, pywb_missing())  # skipped here without pywb, failed in CI
    with ReplaySite(corpus=archive_corpus(archive_specs()), archive_style="pywb") as site:
        first = qa_only(tmp_path / "first")
        hydrate(first, settings_for(site), warc_dir=tmp_path / "warc")
    server = PywbServer(None, tmp_path / "pywb")
    try:
        server.start(warc=tmp_path / "warc" / WARC_FILE)
        again = qa_only(tmp_path / "again")
        hydrate(again, settings_for(server))
    finally:
        server.stop()
    assert _documents(again) == _documents(first) and len(_documents(first)) == 17
    assert {k: r["status"] for k, r in statuses(again).items()} == {
        k: r["status"] for k, r in statuses(first).items()
    }
