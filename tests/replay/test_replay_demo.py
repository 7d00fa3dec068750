"""The replay site's demo step serves a corpus and records what it served."""

from __future__ import annotations

from wikihowqa.demo.run import DemoContext
from wikihowqa.replay.demo import demo_step


def test_demo_step_lists_the_corpus_through_the_site(tmp_path, corpus_dir):
    ctx = DemoContext(out=tmp_path / "demo", settings={"corpus": corpus_dir})
    demo_step(ctx)
    ((what, where, count),) = ctx.produced
    assert "replay site" in what and where == str(corpus_dir)
    # 15 content articles (16 main-namespace pages minus one redirect); 12 captures of 9 URLs
    assert count.startswith("15 articles, 12 captures of 9 URLs served on http://127.0.0.1:")
