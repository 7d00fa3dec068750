"""The human-evaluation commands end to end on the three real release instances."""

from __future__ import annotations

import json

import pytest

from wikihowqa.demo.paths import real_examples_path
from wikihowqa.release.importer import import_release


def test_deteriorate_tasks_simulate_and_analyze_run_end_to_end(cli, tmp_path):
    src = real_examples_path()
    dataset, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "ds")
    det = tmp_path / "h" / "deteriorated.jsonl"
    r = cli("deteriorate", dataset.path, "--out", det, "--seed", "1")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "h" / "review.csv").is_file() and len(det.read_text().splitlines()) == 3
    study = tmp_path / "h" / "study"
    r = cli(
        "tasks", dataset.path, "--out", study, "--deteriorated", det,
        "--review", tmp_path / "h" / "review.csv", "--allow-unreviewed",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    r = cli("simulate-judgments", study)
    assert r.exit_code == 0, r.output
    r = cli("analyze", study / "judgments.jsonl")
    assert r.exit_code == 0, r.output
    result = json.loads((study / "analysis.json").read_text())
    assert result["judgments"]["total"] > 0 and "trial_a" in result["trials"]
    assert (study / "idr_by_type.png").stat().st_size > 0


def test_a_missing_review_decision_is_one_clear_error(cli, tmp_path):
    src = real_examples_path()
    dataset, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "ds")
    det = tmp_path / "deteriorated.jsonl"
    cli("deteriorate", dataset.path, "--out", det)
    r = cli(
        "tasks", dataset.path, "--out", tmp_path / "s", "--deteriorated", det,
        "--review", tmp_path / "review.csv",
    )  # fmt: skip
    assert r.exit_code == 2 and len(r.lines) == 1 and "no decision yet" in r.stderr
    assert not (tmp_path / "s").exists()


def test_deteriorate_writes_inside_the_dataset_by_default_and_says_where_it_wrote_before(
    cli, tmp_path, monkeypatch
):
    src = real_examples_path()
    dataset, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "ds")
    monkeypatch.chdir(tmp_path)
    r = cli("deteriorate", dataset.path)
    assert r.exit_code == 0, r.output
    assert (dataset.path / "deteriorated.jsonl").is_file() and (dataset.path / "review.csv").is_file()
    assert not (tmp_path / "deteriorated.jsonl").exists()
    assert "before this release: ./deteriorated.jsonl" in r.output
    again = cli("deteriorate", dataset.path)
    assert again.exit_code == 2 and "use --overwrite" in again.stderr
    old = cli("deteriorate", dataset.path, "--out", "deteriorated.jsonl")
    assert old.exit_code == 0, old.output
    assert (tmp_path / "deteriorated.jsonl").is_file() and "before this release" not in old.output


def _simulated(study_dir):
    from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
    from wikihowqa.humaneval.tasks import read_study

    return simulate_judgments(read_study(study_dir), SimulationSettings(inattentive=0.0, seed=0))


def test_analyze_refuses_another_studys_judgments_naming_both_studies(cli, study_dir, tmp_path):
    from wikihowqa.dataset.writers import write_jsonl

    judgments = [{**j, "study_id": "other-study"} for j in _simulated(study_dir)]
    write_jsonl(tmp_path / "judgments.jsonl", judgments)
    r = cli("analyze", tmp_path / "judgments.jsonl", "--study", study_dir)
    assert r.exit_code == 2 and len(r.lines) == 1, r.output
    assert "'other-study'" in r.stderr and "'test-study'" in r.stderr
    assert not (tmp_path / "analysis.json").exists()


def test_analyze_warns_with_a_count_of_judgments_of_unknown_tasks(cli, study_dir, tmp_path):
    from wikihowqa.dataset.writers import write_jsonl

    own = _simulated(study_dir)
    strays = [{**j, "judgment_id": f"stray-{n}", "task_id": f"trial_a:9{n}:0"} for n, j in enumerate(own[:3])]
    write_jsonl(tmp_path / "judgments.jsonl", own + strays)
    r = cli("analyze", tmp_path / "judgments.jsonl", "--study", study_dir)
    assert r.exit_code == 0, r.output
    assert f"warning: 3 of {len(own) + 3} judgments name a task" in " ".join(r.stderr.split())
    assert json.loads((tmp_path / "analysis.json").read_text())["judgments"]["unknown_task"] == 3


@pytest.mark.parametrize("kind", ["unknown tasks", "empty file"])
def test_analyze_with_no_judgment_left_fails_in_one_line(cli, study_dir, tmp_path, kind):
    from wikihowqa.dataset.writers import write_jsonl

    strays = [{**j, "task_id": f"trial_a:9{n}:0"} for n, j in enumerate(_simulated(study_dir)[:4])]
    write_jsonl(tmp_path / "judgments.jsonl", strays if kind == "unknown tasks" else [])
    r = cli("analyze", tmp_path / "judgments.jsonl", "--study", study_dir)
    assert r.exit_code == 2 and len(r.lines) == 1, r.output
    assert "no judgment left to analyze" in r.stderr
    if kind == "unknown tasks":
        assert "4 name a task study 'test-study' lacks" in r.stderr
    assert not (tmp_path / "analysis.json").exists()


def test_tasks_builds_the_error_span_parts_from_predictions_and_simulate_marks_them(cli, tmp_path):
    src = real_examples_path()
    dataset, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "ds")
    preds = tmp_path / "lead.jsonl"
    qa = [json.loads(x) for x in (src / "qa.jsonl").read_text().splitlines() if x]
    rows = [
        {"article_id": q["article_id"], "system": "lead", "answer": q["answer"].split(". ")[0] + "."}
        for q in qa
    ]
    preds.write_text("".join(json.dumps(row) + "\n" for row in rows))
    taxonomy = tmp_path / "taxonomy.toml"
    taxonomy.write_text(
        'name = "tiny"\n[[types]]\nname = "wrong"\nlabel = "Wrong"\ndefinition = "It is wrong."\n'
        'example = "The sky is green."\nplanted = ["negation", "number", "unit", "antonym", "swap", "order", '
        '"unsupported"]\n'
    )
    study = tmp_path / "study"
    r = cli("tasks", dataset.path, study, "--error-predictions", preds, "--taxonomy", taxonomy,
            "--error-questions", 3, "--error-controls", 2)  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "errors_a 5" in r.output and "errors_b 5" in r.output
    manifest = json.loads((study / "study.json").read_text())
    assert manifest["format_version"] == 2 and manifest["error_taxonomy"]["name"] == "tiny"
    assert (study / "labelstudio" / "errors_b.xml").read_text().count('<Label value="wrong"') == 1
    r = cli("simulate-judgments", study, "--error-recall-a", 1, "--error-recall-b", 1, "--type-accuracy", 1,
            "--inattentive", 0)  # fmt: skip
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in (study / "judgments.jsonl").read_text().splitlines()]
    marked = [s for j in rows if j["task_id"].startswith("errors_") for s in j["error_spans"]]
    assert marked and {s["type"] for s in marked} == {"wrong"}
    r = cli("analyze", study / "judgments.jsonl")
    assert r.exit_code == 0, r.output


def test_a_bad_taxonomy_file_is_one_line_naming_it(cli, tmp_path):
    src = real_examples_path()
    dataset, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "ds")
    bad = tmp_path / "taxonomy.yaml"
    bad.write_text("name: x\ntypes:\n  - {name: a, label: A, definition: d, example: e, shown: sometimes}\n")
    r = cli("tasks", dataset.path, "--out", tmp_path / "s", "--taxonomy", bad, "--error-predictions", bad)
    assert r.exit_code == 2 and len(r.lines) == 1, r.output
    assert str(bad) in r.stderr and "types.0.shown" in r.stderr
    assert not (tmp_path / "s").exists()
