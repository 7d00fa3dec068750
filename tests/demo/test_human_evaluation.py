"""The demo's human-evaluation step: builds, simulates and analyses a study and prints its tables."""

from __future__ import annotations

import json

from wikihowqa.core.records import Prediction
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.writers import write_predictions
from wikihowqa.demo.paths import real_examples_path
from wikihowqa.demo.run import DemoContext, human_evaluation
from wikihowqa.humaneval.analysis import fmt
from wikihowqa.release.importer import import_release


def test_demo_step_builds_simulates_and_analyses_a_study_and_prints_its_tables(tmp_path, capsys):
    src = real_examples_path()
    import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "real-examples")
    examples = DatasetFolder(tmp_path / "real-examples").examples()
    (tmp_path / "real-examples" / "predictions").mkdir()
    write_predictions(
        tmp_path / "real-examples" / "predictions" / "lead.jsonl",
        [Prediction(e.article_id, "lead", e.answer.split(". ")[0] + ".") for e in examples],
    )
    ctx = DemoContext(out=tmp_path)
    human_evaluation(ctx)
    study = tmp_path / "real-examples" / "study"  # where `wikihowqa tasks` writes a study
    assert ctx.study == study
    for name in (
        "study.json",
        "tasks.jsonl",
        "key.jsonl",
        "assignments.jsonl",
        "deteriorated.jsonl",
        "judgments.jsonl",
        "analysis.json",
        "analysis.md",
        "review.csv",
        "labelstudio/trial_b.json",
    ):
        assert (study / name).is_file(), name
    assert len(ctx.produced) == 3
    printed = capsys.readouterr().out
    assert len(printed.splitlines()) < 40
    rows = {line.split()[0]: line.split() for line in printed.splitlines() if line.split()}

    # Every printed number is the analysis's own, rounded as the report rounds it.
    result = json.loads((study / "analysis.json").read_text())
    a, b, tests = (result["trials"][k] for k in ("trial_a", "trial_b", "t_test_b_vs_a"))
    assert rows["all"] == [
        "all",
        "edits",
        fmt(a["idr"]["mean"]),
        f"(n={a['idr']['n']})",
        fmt(b["idr"]["mean"]),
        f"(n={b['idr']['n']})",
        fmt(tests["idr"]["t"]),
        fmt(tests["idr"]["p"], 3),
    ]
    assert a["by_type"]
    for kind in a["by_type"]:
        test = tests["by_type"][kind]
        assert rows[kind] == [
            kind,
            fmt(a["by_type"][kind]["mean"]),
            fmt(b["by_type"].get(kind, {}).get("mean")),
            fmt(test and test["t"]),
            fmt(test and test["p"], 3),
        ]
    rel = result["relevance"]
    relevance_row = next(line for line in printed.splitlines() if f"(n={rel['rating']['n']})" in line)
    for number in (
        fmt(rel["rating"]["mean"]),
        f"{fmt(rel['cohen_kappa'])} ({rel['cohen_kappa_pairs']} pairs)",
        fmt(rel["krippendorff_alpha_ordinal"]),
        fmt(rel["highlight_overlap"]["mean"]),
    ):
        assert number in relevance_row
    lead = result["preference"]["lead"]
    shares = [
        cell
        for o in ("model", "tie", "gold")
        for cell in (f"{lead[o]['share']:.0%}", f"[{lead[o]['ci95'][0]:.0%}–{lead[o]['ci95'][1]:.0%}]")
    ]
    assert rows["lead"] == ["lead", str(lead["n"]), *shares, fmt(lead["sign_test_p"], 3)]


def test_demo_step_prints_the_error_profile_of_its_systems_without_intervals_under_ten_answers(
    tmp_path, capsys
):
    src = real_examples_path()
    import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "real-examples")
    examples = DatasetFolder(tmp_path / "real-examples").examples()
    (tmp_path / "real-examples" / "predictions").mkdir()
    for system, cut in (("bm25+lead", 1), ("llm-passages", 2)):
        write_predictions(
            tmp_path / "real-examples" / "predictions" / f"{system}.jsonl",
            [Prediction(e.article_id, system, ". ".join(e.answer.split(". ")[:cut]) + ".") for e in examples],
        )
    human_evaluation(DemoContext(out=tmp_path))
    printed = capsys.readouterr().out
    result = json.loads((tmp_path / "real-examples" / "study" / "analysis.json").read_text())
    errors = result["error_spans"]
    assert errors["simulated"] is True
    assert "Error profile: errors per 100 answer words (simulated assessors)" in printed
    assert "no interval for" in printed and "fewer than 10 answers" in printed
    for part, p in errors["parts"].items():
        for system in ("bm25+lead", "llm-passages"):
            row = p["systems"][system]
            assert row["answers"] < 10  # three real examples: the value alone, no [low, high]
            line = next(x for x in printed.splitlines() if x.split()[:2] == [part, system])
            assert f"{row['errors_per_100_words']['value']:.2f}" in line and "[" not in line


def test_the_demo_s_reference_error_spans_are_the_tests_annotated_fixture():
    from pathlib import Path

    from wikihowqa.demo.run import ERROR_SPANS_FILE

    fixture = Path(__file__).parents[1] / "humaneval" / "data" / "demo_error_spans.jsonl"
    assert (real_examples_path() / ERROR_SPANS_FILE).read_bytes() == fixture.read_bytes()
