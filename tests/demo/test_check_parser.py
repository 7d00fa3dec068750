"""The demo's parser check (``parse.corpus_check`` on the embedded corpus) scores the parser against the
demo corpus's hand-written ground truth and records one row.

The truth files (``truth/<file>.json``) come from the corpus sources, written by hand, not from the parser, so
the scores below can fall short of their floors.
"""

from __future__ import annotations

import json
from dataclasses import replace

from wikihowqa.demo import corpus_path
from wikihowqa.demo.run import DemoContext, check_parser
from wikihowqa.parse import corpus_check
from wikihowqa.parse.decode import codec_for

F1_FLOOR = 0.98  # the parser scores 0.995 on the corpus; below this something broke


def truth_files() -> list[dict]:
    return [
        json.loads(p.read_text(encoding="utf-8")) for p in sorted((corpus_path() / "truth").glob("*.json"))
    ]


def run_step(tmp_path) -> tuple[dict, DemoContext]:
    ctx = DemoContext(out=tmp_path / "demo")
    ctx.out.mkdir()
    check_parser(ctx)
    return json.loads((ctx.out / "dataset" / "report" / "parse-check.json").read_text()), ctx


def test_demo_step_scores_the_corpus_against_its_hand_written_truth(tmp_path):
    truths = truth_files()
    with_text = [t for t in truths if t.get("main_text", "").strip()]
    tables = sum(1 for t in with_text if t.get("has_table"))
    links = [t.get("pagination") or {} for t in with_text]
    paginated = sum(1 for link in links if link.get("next") or link.get("view_all"))
    not_utf8 = sum(1 for t in with_text if codec_for(t.get("encoding")) not in {None, "utf-8"})
    assert tables and paginated and not_utf8 and len(with_text) < len(truths)  # the corpus has every case

    report, ctx = run_step(tmp_path)
    assert report["pages"] == len(truths) and report["misses"] == []
    assert report["f1"] >= F1_FLOOR and report["precision"] >= F1_FLOOR and report["recall"] >= F1_FLOOR
    assert report["titles"] >= 0.95 * len(with_text)
    assert report["tables"] == [tables, tables]
    assert report["pagination"] == [paginated, paginated]
    assert report["encodings"] == [not_utf8, not_utf8]
    assert report["empty_as_expected"] == [len(truths) - len(with_text)] * 2
    assert len(ctx.produced) == 1 and f"text F1 {report['f1']:.3f}" in ctx.produced[0][2]


def test_the_check_falls_below_its_floor_when_the_parser_loses_text(tmp_path, monkeypatch):
    real = corpus_check.parse_html

    def loses_the_second_half(body, url, headers=None):
        page = real(body, url, headers)
        lines = page.text.splitlines()
        return replace(page, text="\n".join(lines[: max(1, len(lines) // 2)]))

    monkeypatch.setattr(corpus_check, "parse_html", loses_the_second_half)
    report, _ = run_step(tmp_path)
    assert report["recall"] < 0.8 and report["f1"] < F1_FLOOR
    assert report["precision"] > 0.9  # what is left is still right: the score tells lost text apart
