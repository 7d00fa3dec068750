"""Label Studio exports read back as judgments: the JSON and JSON_MIN formats as Label Studio writes them,
one project per part (so a study is several files), and the duplicate regions restored drafts leave."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from typer.testing import CliRunner

from wikihowqa.cli import app
from wikihowqa.core.errors import DatasetError
from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
from wikihowqa.humaneval.labelstudio import judgments_from_export, read_export
from wikihowqa.humaneval.rank import BM25Ranker
from wikihowqa.humaneval.tasks import StudySettings, build_study, write_study

SUBMITTED = datetime(2024, 3, 1, 10, 0)  # annotation n was submitted n minutes later


@pytest.fixture(scope="module")
def study_folder(dataset, tmp_path_factory):
    examples, documents = dataset
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=5))
    settings = StudySettings(relevance_questions=4, parts=("relevance", "trial_a", "trial_b"), seed=5)
    study = build_study(answers, examples, documents, [], BM25Ranker(), settings, study_id="ls")
    return write_study(study, tmp_path_factory.mktemp("ls") / "study"), study


def _misleading_over_first_edit(study, task_id):
    edit = study.key_by_id()[task_id]["edits"][0]
    return edit["start"], edit["end"]


def _annotation(study, ls_task, n, annotator, *, duplicate=False, category=None):
    """What Label Studio stores for one submitted annotation of one of our tasks (full JSON format):
    choices carry the scale aliases, the span a ``labels`` region."""
    task_id = ls_task["data"]["task_id"]
    key = study.key_by_id()[task_id]
    result = [
        {
            "id": f"c{n}",
            "from_name": "category",
            "to_name": "question",
            "type": "choices",
            "value": {"choices": [category or key["attention_answer"]]},
            "origin": "manual",
        }
    ]
    if task_id.startswith("relevance:"):
        result.append(
            {
                "id": f"r{n}",
                "from_name": "relevance",
                "to_name": "document",
                "type": "choices",
                "value": {"choices": ["3"]},
                "origin": "manual",
            }
        )
        region = {"start": 0, "end": 5, "text": ls_task["data"]["document"][:5], "labels": ["Relevant"]}
        result.append(
            {
                "id": f"h{n}",
                "from_name": "highlights",
                "to_name": "document",
                "type": "labels",
                "value": region,
                "origin": "manual",
            }
        )
    else:
        start, end = _misleading_over_first_edit(study, task_id)
        result += [
            {
                "id": f"f{n}",
                "from_name": "familiarity",
                "to_name": "question",
                "type": "choices",
                "value": {"choices": ["2"]},
                "origin": "manual",
            },
            {
                "id": f"u{n}",
                "from_name": "usefulness",
                "to_name": "answer",
                "type": "choices",
                "value": {"choices": ["4"]},
                "origin": "manual",
            },
            {
                "id": f"s{n}",
                "from_name": "spans",
                "to_name": "answer",
                "type": "labels",
                "value": {
                    "start": start,
                    "end": end,
                    "text": ls_task["data"]["answer"][start:end],
                    "labels": ["misleading"],
                },
                "origin": "manual",
            },
        ]
    if duplicate:  # a restored draft: the same regions again, under new region ids
        result += [dict(r, id=r["id"] + "-draft") for r in result if r["type"] == "labels"]
    return {
        "id": n,
        "completed_by": annotator,
        "result": result,
        "was_cancelled": False,
        "ground_truth": False,
        "created_at": f"{SUBMITTED + timedelta(minutes=n):%Y-%m-%dT%H:%M:%S.%fZ}",
        "updated_at": f"{SUBMITTED + timedelta(minutes=n, seconds=5):%Y-%m-%dT%H:%M:%S.%fZ}",
        "lead_time": 42.5,
        "result_count": 0,
        "task": 1000 + n,
        "project": 7,
    }


def _json_export(study, folder, part, annotators, *, start, duplicate=False):
    """A Label Studio JSON export of the part's project: the imported tasks, each with annotations."""
    ls_tasks = json.loads((folder / "labelstudio" / f"{part}.json").read_text())
    rows, n = [], start
    key = study.key_by_id()
    usable = [t for t in ls_tasks if part == "relevance" or key[t["data"]["task_id"]]["deteriorated"]]
    for k, ls_task in enumerate(usable[:4]):
        anns = []
        for who in annotators:
            n += 1
            anns.append(_annotation(study, ls_task, n, who, duplicate=duplicate and k == 0))
        rows.append(
            {
                "id": 1000 + k,
                "data": ls_task["data"],
                "annotations": anns,
                "predictions": [],
                "drafts": [],
                "created_at": "2024-03-01T09:00:00Z",
                "project": 7,
            }
        )
    return rows


def _json_min(export):
    """The same export as Label Studio's JSON_MIN: one flat record per annotation, data fields first, a
    single choice as a string, regions as a list (label_studio_converter's ``convert_to_json_min``)."""
    records = []
    for task in export:
        for ann in task["annotations"]:
            record = {**task["data"], "id": task["id"]}
            by_name: dict = {}
            for r in ann["result"]:
                by_name.setdefault(r["from_name"], []).append((r["type"], r["value"]))
            for name, values in by_name.items():
                if values[0][0] == "choices" and len(values) == 1 and len(values[0][1]["choices"]) == 1:
                    record[name] = values[0][1]["choices"][0]
                else:
                    record[name] = [v for _, v in values]
            record.update(
                annotator=ann["completed_by"],
                annotation_id=ann["id"],
                created_at=ann["created_at"],
                updated_at=ann["updated_at"],
                lead_time=ann["lead_time"],
            )
            records.append(record)
    return records


def test_json_and_json_min_exports_give_the_same_judgments(study_folder):
    folder, study = study_folder
    export = _json_export(study, folder, "trial_a", [3, 4], start=0)
    full = judgments_from_export(export, "ls")
    minimal = judgments_from_export(_json_min(export), "ls")
    assert full == minimal and len(full) == 8
    j = full[0]
    assert j["assessor_id"] == "labelstudio-3" and j["judgment_id"] == "labelstudio-1"
    assert (j["familiarity"], j["usefulness"], j["duration_ms"], j["events"]) == (2, 4, 42500, None)
    assert j["attention"] == study.key_by_id()[j["task_id"]]["attention_answer"]
    assert j["spans"] == [
        {"start": s, "end": e, "label": "misleading"}
        for s, e in [_misleading_over_first_edit(study, j["task_id"])]
    ]


@pytest.mark.parametrize("minimal", [False, True])
def test_regions_a_restored_draft_repeats_count_once(study_folder, minimal):
    folder, study = study_folder
    for part in ("trial_b", "relevance"):
        export = _json_export(study, folder, part, [3], start=100, duplicate=True)
        raw = export[0]["annotations"][0]["result"]
        assert len([r for r in raw if r["type"] == "labels"]) == 2  # the export holds the region twice
        rows = judgments_from_export(_json_min(export) if minimal else export, "ls")
        field = "highlights" if part == "relevance" else "spans"
        assert len(rows[0][field]) == 1, rows[0][field]


def test_analyze_takes_every_parts_export_at_once_and_screens_them_together(study_folder, tmp_path):
    """Label Studio exports one project per part: trial A as JSON, trial B as JSON_MIN and a relevance
    export, analysed in one run. Annotator 3 works in both trials: the later trial's judgments are
    rejected as exclusive although they come from another file."""
    folder, study = study_folder
    a = _json_export(study, folder, "trial_a", [3, 4], start=0)
    b = _json_min(_json_export(study, folder, "trial_b", [3, 5], start=20))
    rel = _json_export(study, folder, "relevance", [6], start=40)
    paths = []
    for name, rows in (("a.json", a), ("b.json", b), ("rel.json", rel)):
        paths.append(tmp_path / name)
        paths[-1].write_text(json.dumps(rows))
    for order in (paths, paths[::-1]):  # merged in submission order: the file order does not matter
        out = tmp_path / f"report-{order[0].stem}"
        args = ["analyze", *map(str, order), "--study", str(folder), "--out", str(out)]
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 0, r.output
        result = json.loads((out / "analysis.json").read_text())
        assert result["judgments"]["total"] == 8 + 8 + 4
        assert result["judgments"]["accepted_by_part"] == {"relevance": 4, "trial_a": 8, "trial_b": 4}
        assert result["judgments"]["rejected_by_reason"] == {"exclusive": 4}
        rejected = {(x["assessor_id"], x["task_id"].split(":")[0]) for x in result["judgments"]["rejections"]}
        assert rejected == {("labelstudio-3", "trial_b")}
        assert result["trials"]["trial_a"]["idr"]["n"] == 8
        assert result["trials"]["t_test_b_vs_a"]["idr"] is not None


def test_several_files_default_to_the_study_folder_for_the_report(study_folder, tmp_path):
    folder, study = study_folder
    paths = []
    for k, part in enumerate(("trial_a", "relevance")):
        paths.append(tmp_path / f"{part}.json")
        paths[-1].write_text(json.dumps(_json_export(study, folder, part, [k], start=200 + 20 * k)))
    r = CliRunner().invoke(app, ["analyze", *map(str, paths), "--study", str(folder)])
    assert r.exit_code == 0, r.output
    assert json.loads((folder / "analysis.json").read_text())["judgments"]["total"] == 8


def test_an_export_in_another_format_is_one_error_naming_the_formats_read(tmp_path):
    csv_like = tmp_path / "export.json"
    csv_like.write_text(json.dumps([{"question": "q", "familiarity": "3"}]))
    with pytest.raises(DatasetError, match="export the project as JSON or JSON_MIN"):
        judgments_from_export(read_export(csv_like), "ls", source=csv_like)
    r = CliRunner().invoke(app, ["analyze", str(csv_like), "--study", str(tmp_path)])
    assert isinstance(r.exception, DatasetError)
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(DatasetError, match="JSON list of objects"):
        judgments_from_export(read_export(tmp_path / "list.json"), "ls")


def test_conflicting_answers_to_one_control_are_rejected_not_picked(study_folder):
    """Two different usefulness choices in one annotation (a draft restored over an edited one): the
    judgment keeps both and the analysis rejects it as invalid, naming the field."""
    from wikihowqa.humaneval.analysis import screen

    folder, study = study_folder
    export = _json_export(study, folder, "trial_a", [3], start=300)
    result = export[0]["annotations"][0]["result"]
    result.append(
        {
            "id": "u-draft",
            "from_name": "usefulness",
            "to_name": "answer",
            "type": "choices",
            "value": {"choices": ["1"]},
        }
    )
    rows = judgments_from_export(export, "ls")
    assert rows[0]["usefulness"] == ["4", "1"]
    _, rejected = screen(rows, study)
    assert [r.reason.split(":")[0] for r in rejected] == ["invalid"] and "usefulness" in rejected[0].reason
