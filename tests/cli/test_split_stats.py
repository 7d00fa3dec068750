"""``wikihowqa split``, ``audit`` and ``stats`` from the command line; mistakes are one line."""

from __future__ import annotations

import json

from wikihowqa.core.records import Document, Example
from wikihowqa.dataset.folder import DatasetFolder, write_dataset_folder

QUESTIONS = [
    "How to Seal Concrete Floors",
    "How to Seal a Concrete Floor",
    "How to Dry Figs",
    "How to Dry Fresh Figs",
    "How to Tie a Bow Tie",
    "How to Play Chess",
    "How to Knit a Scarf",
    "How to Invest in Stocks",
    "How to Groom a Horse",
    "How to Paint a Room",
    "How to Treat a Sunburn",
    "How to Pray the Rosary",
]


def test_split_then_stats_then_audit(cli, tmp_path):
    examples = [
        Example(i, q, f"To do it, {q.lower()[7:]} carefully. Then rest.", (f"a{i}",))
        for i, q in enumerate(QUESTIONS)
    ]
    docs = [
        Document(i, f"o{i}", f"a{i}", f"You should {q.lower()[7:]} carefully and slowly.")
        for i, q in enumerate(QUESTIONS)
    ]
    path = write_dataset_folder(tmp_path / "ds", examples, docs, {}).path
    split = cli("split", path, "--validation-size", "1", "--test-size", "1", "--seed", "1")
    assert split.exit_code == 0, split.stderr
    saved = DatasetFolder(path).examples()
    counts = {s: sum(e.split == s for e in saved) for s in ("train", "validation", "test")}
    assert (
        f"train {counts['train']}, validation {counts['validation']}, test {counts['test']}" in split.stdout
    )
    # the console wraps long paths at its width: the message is read with its line breaks removed
    assert str(path / "audit.json") in split.stdout.replace("\n", "") and counts["test"] == 1
    assert all(e.cluster is not None for e in saved)
    stats = cli("stats", path, "--out", tmp_path / "report", "--workers", "1")
    assert stats.exit_code == 0, stats.stderr
    assert "12 questions, 12 documents" in stats.stdout
    report = json.loads((tmp_path / "report" / "stats.json").read_text())
    assert report["table1"]["test"]["questions"] == 1 and report["audit"]["splits"]["test"]["questions"] == 1
    audit = cli("audit", path, "--threshold", "0.5", "--no-lexical")
    assert audit.exit_code == 0, audit.stderr
    assert json.loads((path / "audit.json").read_text())["threshold"] == 0.5


def test_mistakes_are_one_line(cli, tmp_path):
    for args in (("stats", tmp_path / "missing"), ("split", tmp_path, "--validation-size", "1.5")):
        result = cli(*args)
        assert result.exit_code == 2
        assert len(result.lines) == 1 and result.lines[0].startswith("error:"), result.stderr
