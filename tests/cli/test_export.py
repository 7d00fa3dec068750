"""``wikihowqa export-lm-eval`` and ``export-hub`` at the command line (the exports are tested in export/)."""

from __future__ import annotations

import json

from wikihowqa.export.hub import CROISSANT_FILE
from wikihowqa.io import DatasetFolder, example_to_dict


def test_export_lm_eval_writes_the_task_and_refuses_a_bad_name(cli, small_dataset, tmp_path):
    ok = cli("export-lm-eval", small_dataset, "--out", tmp_path / "t", "--question-only")
    assert ok.exit_code == 0, ok.output
    assert "2 test questions" in ok.output and "0.0 passages per prompt" in ok.output
    bad = cli("export-lm-eval", small_dataset, "--out", tmp_path / "u", "--task", "no-dash")
    assert bad.exit_code == 2 and len(bad.lines) == 1 and "task name" in bad.stderr
    split = cli("export-lm-eval", small_dataset, "--out", tmp_path / "v", "--split", "nope")
    assert split.exit_code == 2 and len(split.lines) == 1 and "unknown split 'nope'" in split.stderr


def test_export_hub_exports_and_refuses_a_non_empty_folder(cli, small_dataset, tmp_path):
    out = tmp_path / "cli-hub"
    first = cli("export-hub", small_dataset, "--out", out, "--name", "Demo QA")
    assert first.exit_code == 0, first.output
    assert "qa: train 3, validation 1, test 2, unsplit 1" in first.output
    assert "documents: parse" in first.output  # the column Croissant cannot describe is named
    again = cli("export-hub", small_dataset, "--out", out)
    assert again.exit_code == 2 and len(again.lines) == 1 and "not empty" in again.stderr
    fields = [f["name"] for f in json.loads((out / CROISSANT_FILE).read_text())["recordSet"][0]["field"]]
    assert fields == [*example_to_dict(DatasetFolder(small_dataset).examples()[0])]


def test_both_exports_warn_with_counts_and_refuse_an_empty_gold_answer_unless_asked(
    cli, small_dataset, tmp_path
):
    from tests.export.conftest import with_flaws

    dataset = with_flaws(small_dataset)
    warnings = [
        "warning: 1 question has an empty gold answer (article_id 104): every model scores 0 on them",
        "warning: 1 question has no documents (article_id 105): no passages to prompt with or ground in",
    ]
    for command, extra in (("export-lm-eval", ["--question-only", "--no-grounding"]), ("export-hub", [])):
        refused = cli(command, dataset, "--out", tmp_path / command, *extra)
        assert refused.exit_code == 2 and len(refused.lines) == 1, refused.output
        assert "1 question has an empty gold answer (article_id 104)" in refused.lines[0]
        assert "--allow-empty-answers" in refused.lines[0] and not (tmp_path / command).exists()
        allowed = cli(command, dataset, "--out", tmp_path / command, *extra, "--allow-empty-answers")
        assert allowed.exit_code == 0, allowed.output
        assert [line for line in allowed.lines if line.startswith("warning:")] == warnings
