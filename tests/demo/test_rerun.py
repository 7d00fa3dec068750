"""``wikihowqa demo --out DIR`` run twice into the same DIR: the build step starts over on what the first
run left in ``DIR/dataset``, and never deletes a folder the demo did not create.

The whole demo is too slow to run twice here; these tests run the step that failed (the build), on the
state the split step leaves behind (the real split and audit, with a stand-in embedding model).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from tests.collect.collect_corpus import EXPECTED_FUNNEL, EXPECTED_REJECTIONS, write_corpus
from wikihowqa.collect.build import parked_state
from wikihowqa.core.errors import SettingsError
from wikihowqa.demo.run import OWNED_FILE, DemoContext, build_dataset, fresh_folder, owned_folders


class HashEncoder:
    """Stands in for the sentence-transformers model: a fixed unit vector per text, no model to load."""

    def encode(self, texts, **_):
        rows = [
            np.random.default_rng(int(hashlib.sha1(t.encode()).hexdigest()[:8], 16)).normal(size=16)
            for t in texts
        ]
        return np.stack([r / np.linalg.norm(r) for r in rows]).astype(np.float32)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = write_corpus(tmp_path_factory.mktemp("rerun") / "corpus")
    expected = {
        "articles": EXPECTED_FUNNEL["articles"],
        "references": EXPECTED_FUNNEL["references"],
        "rejections": EXPECTED_REJECTIONS,
    }
    (folder / "expected.json").write_text(json.dumps(expected))
    return folder


def without_port(path: Path) -> str:
    """A file's text with the replay site's port (a new free one each run) blanked out."""
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", path.read_text(encoding="utf-8"))


def split_like_the_demo(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the demo's split step does to ``dataset``: split it, embed into cache/, write audit.json."""
    import wikihowqa.encoders.embed
    from wikihowqa.dataset.folder import DatasetFolder
    from wikihowqa.split.audit import audit_dataset
    from wikihowqa.split.splitter import SplitSettings, split_dataset

    monkeypatch.setattr(wikihowqa.encoders.embed, "load_model", lambda *a, **k: HashEncoder())
    split_dataset(DatasetFolder(dataset), SplitSettings())
    audit_dataset(DatasetFolder(dataset))


def test_a_rerun_rebuilds_the_dataset_over_what_the_split_left(corpus, tmp_path, monkeypatch):
    out = tmp_path / "demo"
    first = DemoContext(out=out, settings={"corpus": str(corpus)})
    build_dataset(first)
    dataset = out / "dataset"
    built = {name: without_port(dataset / name) for name in ("qa.jsonl", "documents.jsonl")}
    split_like_the_demo(dataset, monkeypatch)
    assert {"audit.json", "cache"} <= {p.name for p in dataset.iterdir()}  # what the old build refused
    assert without_port(dataset / "qa.jsonl") != built["qa.jsonl"]  # the split wrote its splits in

    again = DemoContext(out=out, settings={"corpus": str(corpus)})
    build_dataset(again)
    assert sorted(p.name for p in dataset.iterdir()) == [
        "build.sqlite",
        "documents.jsonl",
        "manifest.json",
        "qa.jsonl",
        "rejections.jsonl",
    ]
    assert {name: without_port(dataset / name) for name in built} == built  # built anew, as the first time
    assert again.produced == first.produced
    assert owned_folders(out) == {"dataset"}


def test_a_dataset_folder_the_demo_did_not_create_is_never_deleted(corpus, tmp_path):
    out = tmp_path / "demo"
    (out / "dataset").mkdir(parents=True)
    (out / "dataset" / "notes.txt").write_text("mine\n")
    with pytest.raises(SettingsError, match=r"holds files a build did not write \(notes\.txt\)"):
        build_dataset(DemoContext(out=out, settings={"corpus": str(corpus)}))
    assert (out / "dataset" / "notes.txt").read_text() == "mine\n"
    assert owned_folders(out) == set()


def test_a_rerun_starts_a_new_build_even_from_a_parked_build_state(corpus, tmp_path):
    out = tmp_path / "demo"
    build_dataset(DemoContext(out=out, settings={"corpus": str(corpus)}))
    dataset = out / "dataset"
    assert json.loads((dataset / "manifest.json").read_text())["run"]["runs"] == 1
    # A run killed while publishing leaves its state parked beside the folder; a build would resume it.
    (dataset / "build.sqlite").rename(parked_state(dataset))
    build_dataset(DemoContext(out=out, settings={"corpus": str(corpus)}))
    assert not parked_state(dataset).exists()
    assert json.loads((dataset / "manifest.json").read_text())["run"]["runs"] == 1  # a first run again


def test_fresh_folder_clears_only_what_the_demo_created(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("x")
    assert fresh_folder(tmp_path, "mine") == mine and (mine / "keep.txt").is_file()

    made = fresh_folder(tmp_path, "made")
    assert not made.exists() and owned_folders(tmp_path) == {"made"}
    made.mkdir()
    (made / "old.txt").write_text("x")
    assert fresh_folder(tmp_path, "made") == made and not made.exists()

    (tmp_path / "made").symlink_to(mine, target_is_directory=True)  # swapped for a link: not followed
    assert fresh_folder(tmp_path, "made").is_symlink() and (mine / "keep.txt").is_file()
    assert json.loads((tmp_path / OWNED_FILE).read_text()) == {"created": ["made"]}
