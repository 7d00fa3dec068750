"""The demo step checks the parser against a corpus's ground truth and records one row."""

from __future__ import annotations

import json

from wikihowqa.demo.run import DemoContext
from wikihowqa.parse import demo as parse_demo


def write_corpus(root, fixture_bytes):
    (root / "archive" / "snapshots").mkdir(parents=True)
    (root / "truth").mkdir()
    cdx = []
    table = fixture_bytes("table_article.html").decode()
    cases = {
        "tents.html": (table.encode("cp1252"), "windows-1252", True, "Choosing a Tent for Backpacking"),
        "shell.html": (fixture_bytes("app_shell.html"), "utf-8", False, ""),
    }
    for name, (body, encoding, has_table, title) in cases.items():
        (root / "archive" / "snapshots" / name).write_bytes(
            body.replace(b"charset=utf-8", b"charset=windows-1252")
        )
        cdx.append(
            {
                "url": f"https://site.example/{name}",
                "timestamp": "20180101000000",
                "statuscode": "200",
                "mimetype": "text/html",
                "file": name,
                "headers": {"Content-Type": "text/html"},
            }
        )
        main = (
            ""
            if name == "shell.html"
            else "\n".join(
                line for line in parse_demo.parse_html(body, "https://site.example/").text.splitlines()
            )
        )
        (root / "truth" / f"{name}.json").write_text(
            json.dumps(
                {
                    "main_text": main,
                    "title": title,
                    "has_comments": False,
                    "has_table": has_table,
                    "pagination": {"next": None, "view_all": None},
                    "encoding": encoding,
                }
            )
        )
    (root / "archive" / "cdx.jsonl").write_text("\n".join(json.dumps(r) for r in cdx) + "\n")


def test_demo_step_scores_the_corpus_and_records_a_row(tmp_path, fixture_bytes, monkeypatch):
    corpus = tmp_path / "corpus"
    write_corpus(corpus, fixture_bytes)
    monkeypatch.setattr("wikihowqa.demo.corpus_path", lambda: corpus)
    ctx = DemoContext(out=tmp_path / "demo")
    ctx.out.mkdir()
    parse_demo.demo_step(ctx)
    report = json.loads((ctx.out / "report" / "parse-check.json").read_text())
    assert report["pages"] == 2 and report["f1"] == 1.0 and report["titles"] == 1
    assert (
        report["tables"] == [1, 1] and report["encodings"] == [1, 1] and report["empty_as_expected"] == [1, 1]
    )
    assert len(ctx.produced) == 1 and "text F1 1.000" in ctx.produced[0][2]
