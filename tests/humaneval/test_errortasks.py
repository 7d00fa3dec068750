"""The errors parts of a study: systems' answers with deteriorated controls mixed in, the key kept apart,
the same answers without and with passages; simulated assessors with set recall and type confusion; the
Label Studio round trip giving the app's judgment."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from wikihowqa.core.records import Example, Prediction
from wikihowqa.humaneval.app import submission
from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
from wikihowqa.humaneval.errorspans import error_spans_problem, normalised
from wikihowqa.humaneval.judgment import judgment_problem
from wikihowqa.humaneval.labelstudio import judgments_from_export, labelstudio_task
from wikihowqa.humaneval.rank import BM25Ranker
from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
from wikihowqa.humaneval.simulate_errors import ErrorSimulation, read_reference
from wikihowqa.humaneval.tasks import ERROR_PARTS, StudySettings, build_study, plan_problems
from wikihowqa.humaneval.taxonomy import DEFAULT_TAXONOMY, SEVERITIES


@pytest.fixture(scope="module")
def study(dataset, predictions):
    examples, documents = dataset
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=2))
    return build_study(
        answers,
        examples,
        documents,
        predictions,
        BM25Ranker(),
        StudySettings(parts=ERROR_PARTS, error_questions=5, error_controls=4, seed=2),
        study_id="t",
    )


def test_both_parts_show_the_same_answers_systems_and_controls_without_and_with_passages(study):
    key = study.key_by_id()
    by_part = {p: [t for t in study.tasks if t["part"] == p] for p in ERROR_PARTS}
    assert len(by_part["errors_a"]) == len(by_part["errors_b"]) == 2 * 5 + 4
    a = {t["task_id"].split(":", 1)[1]: t for t in by_part["errors_a"]}
    b = {t["task_id"].split(":", 1)[1]: t for t in by_part["errors_b"]}
    assert a.keys() == b.keys()
    for suffix, ta in a.items():
        assert ta["answer"] == b[suffix]["answer"] and ta["passages"] is None and b[suffix]["passages"]
        assert {t["name"] for t in ta["error_types"]} == {t.name for t in DEFAULT_TAXONOMY.offered(False)}
    sources = Counter((key[t["task_id"]]["source"], key[t["task_id"]]["system"]) for t in by_part["errors_a"])
    assert sources == {("system", "lead"): 5, ("system", "lead-copy"): 5, ("control", None): 4}
    assert study.manifest["error_systems"] == ["lead", "lead-copy"]
    assert study.manifest["error_taxonomy"]["name"] == DEFAULT_TAXONOMY.name
    assert ["errors_a", "errors_b"] in study.manifest["exclusive_parts"]
    assert plan_problems(study.tasks, study.assignments, study.manifest["exclusive_parts"]) == []


def test_nothing_of_the_key_is_in_the_tasks_and_controls_carry_their_edits_as_typed_spans(study):
    dumped = json.dumps(study.tasks)
    for secret in ('"edits"', '"source"', '"system"', "lead-copy", '"deteriorated"', '"planted"'):
        assert secret not in dumped
    for task in study.tasks:
        k = study.key_by_id()[task["task_id"]]
        if k["source"] == "control":
            assert k["edits"] and k["deteriorated"]
            for edit, names in zip(k["edits"], k["edit_error_types"], strict=True):
                assert task["answer"]["text"][edit["start"] : edit["end"]] == edit["new"]
                assert names and all(
                    DEFAULT_TAXONOMY.get(n).offered(task["passages"] is not None) for n in names
                )


def _trim(text, s, e):
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def test_simulated_assessors_with_full_recall_and_accuracy_mark_every_planted_edit_with_a_right_type(study):
    perfect = SimulationSettings(
        errors=ErrorSimulation(recall={"errors_a": 1.0, "errors_b": 1.0}, type_accuracy=1.0), inattentive=0.0
    )
    tasks, key = study.tasks_by_id(), study.key_by_id()
    rows = simulate_judgments(study, perfect)
    n_expected = n_marked = 0
    assert rows and all(r["format_version"] == 2 for r in rows)
    for r in rows:
        task, k = tasks[r["task_id"]], key[r["task_id"]]
        assert judgment_problem(r, task) is None
        text = task["answer"]["text"]
        if k["source"] == "system":
            assert r["error_spans"] == []  # no reference annotation given: a real answer gets nothing
            continue
        expected = {_trim(text, e["start"], e["end"]) for e in k["edits"]}
        marked = {(s["start"], s["end"]) for s in r["error_spans"]}
        assert marked <= expected
        n_expected, n_marked = n_expected + len(expected), n_marked + len(marked)
        for s in r["error_spans"]:
            edit = next(e for e in k["edits"] if _trim(text, e["start"], e["end"]) == (s["start"], s["end"]))
            assert s["type"] in DEFAULT_TAXONOMY.names_for_edit(edit["type"], task["passages"] is not None)
    # all but the few whose drawn type needs an antecedent a one-sentence answer cannot give
    assert n_marked >= 0.9 * n_expected > 0


def test_simulated_recall_and_type_confusion_match_the_set_rates(study):
    settings = SimulationSettings(
        errors=ErrorSimulation(recall={"errors_a": 0.5, "errors_b": 0.5}, type_accuracy=0.6), inattentive=0.0
    )
    rows = simulate_judgments(study, settings)
    tasks, key = study.tasks_by_id(), study.key_by_id()
    found = planted = right = 0
    for r in rows:
        task, k = tasks[r["task_id"]], key[r["task_id"]]
        if k["source"] != "control":
            continue
        text = task["answer"]["text"]
        planted += len(k["edits"])
        for e in k["edits"]:
            span = _trim(text, e["start"], e["end"])
            hit = [s for s in r["error_spans"] if (s["start"], s["end"]) == span]
            found += bool(hit)
            right += any(
                s["type"] in DEFAULT_TAXONOMY.names_for_edit(e["type"], task["passages"] is not None)
                for s in hit
            )
    from scipy.stats import binomtest

    assert planted >= 30
    assert binomtest(found, planted, 0.5).pvalue > 0.001
    assert binomtest(right, found, 0.6).pvalue > 0.001  # a wrong pick is drawn from the other types only


def test_the_label_studio_round_trip_gives_the_app_s_judgment(study):
    task = next(t for t in study.tasks if t["part"] == "errors_b" and len(t["answer"]["sentences"]) >= 2)
    s0, s1 = task["answer"]["sentences"][:2]
    entry = next(e for e in task["passages"] if e["groups"])
    passage = entry["groups"][0]["passages"][0]
    h = passage["highlight"]
    body = {
        "judgment_id": "j-12345678",
        "task_id": task["task_id"],
        "duration_ms": 1000,
        "events": [],
        "attention": task["attention_check"]["options"][0] if task["attention_check"] else None,
        "error_spans": [
            {
                "start": s1["start"],
                "end": s1["start"] + 5,
                "type": "self_contradiction",
                "severity": "major",
                "note": "opposite",
                "antecedent": {"source": "answer", "start": s0["start"], "end": s0["start"] + 4},
            },
            {
                "start": s0["start"],
                "end": s0["start"] + 4,
                "type": "contradicts_passages",
                "severity": "minor",
                "antecedent": {
                    "source": "passage",
                    "passage_id": passage["passage_id"],
                    "start": h["start"],
                    "end": h["end"],
                },
            },
        ],
    }
    app_row = submission.build_judgment(
        task,
        body,
        study_id="t",
        assessor_id="x",
        started_at=None,
        submitted_at="2024-01-01T00:00:00Z",
        elapsed_ms=1000,
    )
    data = labelstudio_task(task)["data"]
    flat = data["passages"]
    base = next(p0 for p0, _, pid in data["passage_spans"] if pid == passage["passage_id"])
    assert flat[base + h["start"] : base + h["end"]] == passage["text"][h["start"] : h["end"]]
    rng = random.Random(0)
    result = [  # what Label Studio's JSON export holds for these regions, severities, note and relations
        {
            "id": "e1",
            "from_name": "error_spans",
            "to_name": "answer",
            "type": "labels",
            "value": {"start": s1["start"], "end": s1["start"] + 5, "labels": ["self_contradiction"]},
        },
        {
            "id": "e1",
            "from_name": "severity",
            "to_name": "answer",
            "type": "choices",
            "value": {"start": s1["start"], "end": s1["start"] + 5, "choices": ["major"]},
        },
        {
            "id": "e1",
            "from_name": "note",
            "to_name": "answer",
            "type": "textarea",
            "value": {"start": s1["start"], "end": s1["start"] + 5, "text": ["opposite"]},
        },
        {
            "id": "a1",
            "from_name": "error_spans",
            "to_name": "answer",
            "type": "labels",
            "value": {"start": s0["start"], "end": s0["start"] + 4, "labels": ["Antecedent"]},
        },
        {
            "id": "e2",
            "from_name": "error_spans",
            "to_name": "answer",
            "type": "labels",
            "value": {"start": s0["start"], "end": s0["start"] + 4, "labels": ["contradicts_passages"]},
        },
        {
            "id": "e2",
            "from_name": "severity",
            "to_name": "answer",
            "type": "choices",
            "value": {"choices": ["minor"]},
        },
        {
            "id": "a2",
            "from_name": "marked_passages",
            "to_name": "passages",
            "type": "labels",
            "value": {"start": base + h["start"], "end": base + h["end"], "labels": ["Antecedent"]},
        },
        {"type": "relation", "from_id": "e1", "to_id": "a1", "direction": "right", "labels": ["antecedent"]},
        {"type": "relation", "from_id": "e2", "to_id": "a2", "direction": "right", "labels": ["antecedent"]},
    ]
    rng.shuffle(result)
    export = [
        {
            "data": data,
            "annotations": [
                {
                    "id": 7,
                    "completed_by": 3,
                    "result": result,
                    "created_at": "2024-01-01T00:00:00Z",
                    "lead_time": 1.0,
                }
            ],
        }
    ]
    (row,) = judgments_from_export(export, "t")
    assert judgment_problem(row, task) is None
    assert normalised(row["error_spans"], task) == app_row["error_spans"]


REFERENCE = Path(__file__).parent / "data" / "demo_error_spans.jsonl"


def _reference_study():
    rows = [json.loads(line) for line in REFERENCE.read_text(encoding="utf-8").splitlines() if line]
    examples = [
        Example(r["article_id"], f"How to do {r['article_id']}", "Gold answer.", ("u",), "test", -1, "Travel")
        for r in rows
    ]
    predictions = [Prediction(r["article_id"], r["system"], r["answer"]) for r in rows]
    study = build_study(
        [], examples, {}, predictions, BM25Ranker(),
        StudySettings(parts=ERROR_PARTS, error_questions=len(rows), error_controls=0), study_id="ref",
    )  # fmt: skip
    return rows, study


def test_the_reference_spans_read_from_the_demo_answers_are_valid_error_spans():
    rows, study = _reference_study()
    assert len(rows) >= 4 and sum(len(r["spans"]) for r in rows) >= 15
    by_answer = {t["answer"]["text"]: t for t in study.tasks if t["part"] == "errors_a"}
    for r in rows:
        task = by_answer[r["answer"]]
        assert error_spans_problem(r["spans"], task) is None
        assert all(r["answer"][s["start"] : s["end"]] == s["text"] for s in r["spans"])


def test_simulated_assessors_mark_on_real_answers_only_the_reference_spans():
    rows, study = _reference_study()
    tasks, key = study.tasks_by_id(), study.key_by_id()
    ref = read_reference(REFERENCE)
    full = SimulationSettings(
        errors=ErrorSimulation(recall={"errors_a": 1.0, "errors_b": 1.0}, type_accuracy=1.0),
        reference=ref,
        inattentive=0.0,
    )
    by_key = {(r["system"], r["article_id"]): r for r in rows}
    judged = simulate_judgments(study, full)
    assert judged
    for j in judged:
        task = tasks[j["task_id"]]
        r = by_key[(key[j["task_id"]]["system"], task["article_id"])]
        assert j["error_spans"] == normalised(r["spans"], task)
    none = simulate_judgments(
        study, SimulationSettings(reference=ref, inattentive=0.0, errors=ErrorSimulation(recall={}))
    )
    assert all(j["error_spans"] == [] for j in none)
    unseen = simulate_judgments(study, SimulationSettings(inattentive=0.0))  # no reference given
    assert all(j["error_spans"] == [] for j in unseen)


def test_the_label_studio_configuration_offers_the_part_s_types_severities_note_and_relation(study, tmp_path):
    from xml.etree import ElementTree

    from wikihowqa.humaneval.labelstudio import write_labelstudio

    counts = write_labelstudio(study, tmp_path)
    assert counts == {"errors_a": 14, "errors_b": 14}
    for part, passages in (("errors_a", False), ("errors_b", True)):
        root = ElementTree.fromstring((tmp_path / f"{part}.xml").read_text())
        labels = [x.get("value") for x in root.find(".//Labels[@name='error_spans']")]
        assert labels == [t.name for t in DEFAULT_TAXONOMY.offered(passages)] + ["Antecedent"]
        severity = root.find(".//Choices[@name='severity']")
        assert severity.get("perRegion") == "true" and [c.get("value") for c in severity] == list(SEVERITIES)
        assert root.find(".//TextArea[@name='note']").get("perRegion") == "true"
        assert root.find(".//Relations/Relation").get("value") == "antecedent"
        assert (root.find(".//Text[@name='passages']") is not None) == passages
        tasks = json.loads((tmp_path / f"{part}.json").read_text())
        assert all("edits" not in json.dumps(t) and "system" not in json.dumps(t) for t in tasks)
