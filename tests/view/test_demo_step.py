"""The demo's last step writes the explorer of everything before it and names it in the closing table."""

from __future__ import annotations

import json
import shutil

import pytest

from wikihowqa.demo.run import DemoContext, explore_results
from wikihowqa.errors import SettingsError

#: The fixtures evaluate a small dataset (grounding loads MiniLM) and meta-evaluate a planted study.
pytestmark = pytest.mark.slow


def test_the_demo_writes_the_explorer_of_its_dataset_report_and_meta_evaluation(explorer_inputs, tmp_path):
    ctx = DemoContext(out=tmp_path / "demo")
    shutil.copytree(explorer_inputs["dataset"], ctx.out / "dataset")
    shutil.copytree(explorer_inputs["report"], ctx.out / "dataset" / "report")
    shutil.copytree(explorer_inputs["meta"], ctx.out / "dataset" / "study" / "report")
    explore_results(ctx)
    site = ctx.out / "dataset" / "site"  # where `wikihowqa view` writes
    files = sum(1 for p in site.rglob("*") if p.is_file())
    assert ctx.produced == [
        (
            "results explorer (static site: open it in a browser)",
            "dataset/site/index.html",
            f"3 questions, 2 systems, {files} files",
        )
    ]
    made = json.loads((site / "site.json").read_text())
    assert made["report"] == str(ctx.out / "dataset" / "report")
    assert made["study"] == str(ctx.out / "dataset" / "study" / "report")
    explore_results(ctx)  # a rerun replaces the site an earlier run wrote
    assert len(ctx.produced) == 2


def test_the_demo_never_replaces_a_site_folder_it_did_not_create(explorer_inputs, tmp_path):
    ctx = DemoContext(out=tmp_path / "demo")
    shutil.copytree(explorer_inputs["dataset"], ctx.out / "dataset")
    (ctx.out / "dataset" / "site").mkdir()
    (ctx.out / "dataset" / "site" / "mine.html").write_text("mine")
    with pytest.raises(SettingsError, match="already holds files"):
        explore_results(ctx)
    assert (ctx.out / "dataset" / "site" / "mine.html").read_text() == "mine"
