"""The demo hydrates the real instances' QA part alone from a local archive holding their release URLs."""

from __future__ import annotations

import json

from wikihowqa.demo.run import STEPS, DemoContext, hydrate_real_examples, import_real_examples


def test_the_demo_hydrates_every_real_document_and_its_closing_table_names_the_coverage(tmp_path):
    ctx = DemoContext(out=tmp_path)
    hydrate_real_examples(ctx)
    what, where, count = ctx.produced[-1]
    assert "wikihowqa hydrate" in what
    assert where == "real-examples-hydrated/hydration/coverage.md"
    assert count.startswith("coverage 16 of 16 release URLs (100%)")
    compare = json.loads((tmp_path / "real-examples-hydrated" / "hydration" / "compare.json").read_text())
    assert compare["summary"]["mean_f1"] >= 0.95 and compare["summary"]["not_recovered"] == 0
    names = [step for _, step in STEPS]
    assert names.index(hydrate_real_examples) == names.index(import_real_examples) + 1
