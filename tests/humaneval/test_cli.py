"""The commands end to end on the three real release instances, and the demo step."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from wikihowqa.cli import app
from wikihowqa.demo import real_examples_path
from wikihowqa.demo.run import DemoContext, human_evaluation
from wikihowqa.humaneval.analysis import fmt
from wikihowqa.importer import import_release
from wikihowqa.io import DatasetFolder, write_predictions
from wikihowqa.records import Prediction


def test_deteriorate_tasks_simulate_and_analyze_run_end_to_end(tmp_path):
    src = real_examples_path()
    dataset, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "ds")
    runner = CliRunner()
    det = tmp_path / "h" / "deteriorated.jsonl"
    r = runner.invoke(app, ["deteriorate", str(dataset.path), "--out", str(det), "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "h" / "review.csv").is_file() and len(det.read_text().splitlines()) == 3
    study = tmp_path / "h" / "study"
    r = runner.invoke(
        app,
        [
            "tasks",
            str(dataset.path),
            str(study),
            "--deteriorated",
            str(det),
            "--review",
            str(tmp_path / "h" / "review.csv"),
            "--allow-unreviewed",
        ],
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["simulate-judgments", str(study)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["analyze", str(study / "judgments.jsonl")])
    assert r.exit_code == 0, r.output
    result = json.loads((study / "analysis.json").read_text())
    assert result["judgments"]["total"] > 0 and "trial_a" in result["trials"]
    assert (study / "idr_by_type.png").stat().st_size > 0


def test_a_missing_review_decision_is_one_clear_error(tmp_path):
    src = real_examples_path()
    dataset, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "ds")
    det = tmp_path / "deteriorated.jsonl"
    CliRunner().invoke(app, ["deteriorate", str(dataset.path), "--out", str(det)])
    r = CliRunner().invoke(
        app,
        [
            "tasks",
            str(dataset.path),
            str(tmp_path / "s"),
            "--deteriorated",
            str(det),
            "--review",
            str(tmp_path / "review.csv"),
        ],
    )
    assert r.exit_code != 0 and "no decision yet" in str(r.exception)
    assert not (tmp_path / "s").exists()


def test_demo_step_builds_simulates_and_analyses_a_study_and_prints_its_tables(tmp_path, capsys):
    src = real_examples_path()
    import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "real-examples")
    examples = DatasetFolder(tmp_path / "real-examples").examples()
    (tmp_path / "predictions").mkdir()
    write_predictions(
        tmp_path / "predictions" / "lead.jsonl",
        [Prediction(e.article_id, "lead", e.answer.split(". ")[0] + ".") for e in examples],
    )
    ctx = DemoContext(out=tmp_path)
    human_evaluation(ctx)
    study = tmp_path / "study"
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


def test_deteriorate_writes_inside_the_dataset_by_default_and_says_where_it_wrote_before(
    tmp_path, monkeypatch
):
    src = real_examples_path()
    dataset, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "ds")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["deteriorate", str(dataset.path)])
    assert r.exit_code == 0, r.output
    assert (dataset.path / "deteriorated.jsonl").is_file() and (dataset.path / "review.csv").is_file()
    assert not (tmp_path / "deteriorated.jsonl").exists()
    assert "before this release: ./deteriorated.jsonl" in r.output
    again = CliRunner().invoke(app, ["deteriorate", str(dataset.path)])
    assert again.exit_code != 0 and "use --overwrite" in str(again.exception)
    old = CliRunner().invoke(app, ["deteriorate", str(dataset.path), "--out", "deteriorated.jsonl"])
    assert old.exit_code == 0, old.output
    assert (tmp_path / "deteriorated.jsonl").is_file() and "before this release" not in old.output
