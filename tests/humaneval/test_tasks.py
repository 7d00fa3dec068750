"""Study tasks: the 5,000-character budget, grouping and order of passages, the key kept apart, the plan."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict

import numpy as np
import pytest

from wikihowqa.core.records import Document, Prediction
from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
from wikihowqa.humaneval.lexicon import WIKIHOW_CATEGORIES
from wikihowqa.humaneval.rank import BM25Ranker
from wikihowqa.humaneval.tasks import (
    PassagePicker,
    StudySettings,
    article_passages,
    build_study,
    read_study,
    write_study,
)
from wikihowqa.humaneval.text import sentence_spans


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
        StudySettings(relevance_questions=10, preference_questions=8, seed=2),
        study_id="t",
    )


def _long_documents(article_id: int) -> list[Document]:
    words = ["oven", "heat", "bake", "bread", "flour", "salt", "cool", "rack", "minutes", "golden", "door"]
    rng = np.random.default_rng(article_id)
    docs = []
    for d in range(3):
        passages = tuple(" ".join(rng.choice(words, size=rng.integers(20, 160))) + "." for _ in range(25))
        docs.append(Document(article_id, f"u{d}", f"a{d}", "\n\n".join(passages), None, f"t{d}", passages))
    return docs


@pytest.mark.parametrize("scope", ["sentence", "answer"])
def test_passages_fit_the_budget_and_are_the_top_ranked_that_fit(scope):
    answer = "Preheat the oven and bake the bread. Let it cool on a rack for ten minutes. Keep the door shut."
    docs = _long_documents(7)
    settings = StudySettings(budget_scope=scope, max_chars=5000)
    ranker = BM25Ranker()
    per_sentence = PassagePicker(ranker, docs, settings).for_answer(answer)
    passages = article_passages(docs)
    scorer = ranker.index([p.text for p in passages])
    totals = [sum(len(p["text"]) for g in e["groups"] for p in g["passages"]) for e in per_sentence]
    if scope == "sentence":
        assert all(t < 5000 for t in totals) and all(
            t == e["chars"] for t, e in zip(totals, per_sentence, strict=True)
        )
    else:
        assert sum(totals) < 5000
    for entry in per_sentence:
        chosen = {p["passage_id"] for g in entry["groups"] for p in g["passages"]}
        if scope == "sentence":  # independent greedy: walk the ranking, take what still fits
            scores = scorer(answer[entry["start"] : entry["end"]])
            expected, used = set(), 0
            for i in sorted(range(len(passages)), key=lambda i: (-scores[i], i)):
                if scores[i] > 0 and used + len(passages[i].text) < 5000:
                    expected.add(passages[i].id)
                    used += len(passages[i].text)
            assert chosen == expected
        assert chosen


def test_passages_are_grouped_by_document_in_original_order_with_a_marked_sentence(study):
    trial_b = [t for t in study.tasks if t["part"] == "trial_b"]
    assert trial_b
    for task in trial_b:
        assert [e["sentence"] for e in task["passages"]] == list(range(len(task["answer"]["sentences"])))
        for entry in task["passages"]:
            docs = [g["doc_index"] for g in entry["groups"]]
            assert docs == sorted(docs) and len(set(docs)) == len(docs)
            for g in entry["groups"]:
                positions = [p["position"] for p in g["passages"]]
                assert positions == sorted(positions)
                for p in g["passages"]:
                    s, e = p["highlight"]["start"], p["highlight"]["end"]
                    assert (s, e) in sentence_spans(p["text"]) or (s, e) == (0, len(p["text"]))


def test_every_task_kind_is_built_and_the_key_holds_the_secrets(study):
    parts = Counter(t["part"] for t in study.tasks)
    assert (
        parts["trial_a"] == parts["trial_b"] == 95 and parts["relevance"] == 10 and parts["preference"] == 16
    )
    dumped = json.dumps(study.tasks)
    assert '"edits"' not in dumped and "gold_side" not in dumped and "attention_answer" not in dumped
    key = study.key_by_id()
    for task in study.tasks:
        check = task["attention_check"]
        truth = key[task["task_id"]]["attention_answer"]
        assert len(check["options"]) == 4 and len(set(check["options"])) == 4 and truth in check["options"]
        assert set(check["options"]) <= set(WIKIHOW_CATEGORIES)
        if task["type"] == "preference":
            assert key[task["task_id"]]["gold_side"] in "AB"
    sides = Counter(key[t["task_id"]]["gold_side"] for t in study.tasks if t["type"] == "preference")
    assert sides["A"] > 0 and sides["B"] > 0


def test_gold_sits_on_its_recorded_side(study, dataset):
    examples, _ = dataset
    gold = {e.article_id: e.answer for e in examples}
    key = study.key_by_id()
    for task in study.tasks:
        if task["type"] == "preference":
            side = key[task["task_id"]]["gold_side"]
            assert task["answers"][side]["text"] == gold[task["article_id"]]


def test_plan_gives_each_task_n_distinct_assessors_and_no_one_both_trials(study):
    per_task = defaultdict(list)
    parts_of = defaultdict(set)
    for a in study.assignments:
        articles = [study.tasks_by_id()[t]["article_id"] for t in a["task_ids"]]
        assert len(articles) == len(set(articles)), "an assessor sees one question once per part"
        for t in a["task_ids"]:
            per_task[t].append(a["assessor_id"])
            parts_of[a["assessor_id"]].add(a["part"])
        assert len(a["task_ids"]) <= 10
    assert set(per_task) == {t["task_id"] for t in study.tasks}
    assert all(len(v) == 3 and len(set(v)) == 3 for v in per_task.values())
    assert not any({"trial_a", "trial_b"} <= p for p in parts_of.values())


def test_study_folder_round_trips_with_label_studio_files(tmp_path, study):
    folder = write_study(study, tmp_path / "study")
    again = read_study(folder)
    assert again.tasks == json.loads(json.dumps(study.tasks)) and again.key == study.key
    ls = json.loads((folder / "labelstudio" / "trial_b.json").read_text())
    assert len(ls) == 95 and (folder / "labelstudio" / "trial_b.xml").read_text().startswith("<View>")
    for row in ls:
        for result in row.get("predictions", [{}])[0].get("result", []):
            v = result["value"]
            assert row["data"]["passages"][v["start"] : v["end"]] == v["text"] and result["type"] == "labels"
    with pytest.raises(Exception, match="not empty"):
        write_study(study, folder)


def test_dense_ranker_puts_the_matching_passage_first():
    from wikihowqa.humaneval.rank import DenseRanker

    texts = [
        "Stock markets fell sharply on Monday.",
        "Let the figs dry in a warm oven for a day.",
        "The team won the final match.",
    ]
    scores = DenseRanker().index(texts)("How long should figs dry in the oven?")
    assert int(np.argmax(scores)) == 1


def test_ab_task_ids_name_no_system_anywhere_an_assessor_or_label_studio_sees(tmp_path, dataset):
    """Source hidden: the system's name is only in key.jsonl (and the admin's study.json), never in a task
    id, tasks.jsonl, what the server sends an assessor, or the Label Studio import files."""
    from wikihowqa.humaneval.analysis import analyze
    from wikihowqa.humaneval.app import StudyService
    from wikihowqa.humaneval.app.state import public_task
    from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments

    examples, documents = dataset
    systems = ("dprbartxq", "zetagenkv")
    predictions = [
        Prediction(e.article_id, s, e.answer.split(". ")[0] + ".") for e in examples[:12] for s in systems
    ]
    settings = StudySettings(parts=("preference",), preference_questions=6, seed=4)
    study = build_study([], examples, documents, predictions, BM25Ranker(), settings, study_id="ab")
    folder = write_study(study, tmp_path / "study")
    ids = [t["task_id"] for t in study.tasks]
    assert len(ids) == 12 and len(set(ids)) == 12
    assert all(re.fullmatch(r"preference:\d+:[0-9a-f]{12}", t) for t in ids)
    assert {k["system"] for k in study.key} == set(systems)

    service = StudyService(folder)
    try:
        first = service.assessors[study.assignments[0]["assessor_id"]]
        seen = [service.next_task(first)] + [json.dumps(public_task(t)) for t in service.tasks.values()]
    finally:
        service.close()
    labelstudio = [p.read_text(encoding="utf-8") for p in sorted((folder / "labelstudio").iterdir())]
    assert labelstudio
    for text in [(folder / "tasks.jsonl").read_text(encoding="utf-8"), *seen, *labelstudio]:
        for system in systems:
            assert system not in text
    assert all(system in (folder / "key.jsonl").read_text(encoding="utf-8") for system in systems)

    # The same inputs give the same ids and sides; the analysis still reports per system.
    again = build_study([], examples, documents, predictions, BM25Ranker(), settings, study_id="ab")
    assert again.key == study.key
    result = analyze(study, simulate_judgments(study, SimulationSettings(seed=1)))
    assert set(result["preference"]) == set(systems)


def test_the_plan_never_gives_one_assessor_two_tasks_of_an_article_in_any_part(study):
    """The plan's pools are disjoint per part and one article per list, so no slot sees an article's
    gold answer (relevance, A/B) beside its deteriorated or model answer (trials, A/B)."""
    from wikihowqa.humaneval.tasks import plan_problems

    assert plan_problems(study.tasks, study.assignments) == []
    by_id = study.tasks_by_id()
    for a in study.assignments:
        articles = [by_id[t]["article_id"] for t in a["task_ids"]]
        assert len(articles) == len(set(articles)) and {by_id[t]["part"] for t in a["task_ids"]} == {
            a["part"]
        }


def test_plan_problems_names_each_broken_rule():
    from wikihowqa.humaneval.tasks import plan_problems

    tasks = [
        {"task_id": "relevance:1:0", "part": "relevance", "article_id": 1},
        {"task_id": "trial_a:1", "part": "trial_a", "article_id": 1},
        {"task_id": "trial_a:2", "part": "trial_a", "article_id": 2},
        {"task_id": "trial_b:2", "part": "trial_b", "article_id": 2},
        {"task_id": "preference:1:x", "part": "preference", "article_id": 1},
        {"task_id": "preference:1:y", "part": "preference", "article_id": 1},
    ]
    ok = [{"assessor_id": "t1", "part": "trial_a", "task_ids": ["trial_a:1", "trial_a:2"]}]
    assert plan_problems(tasks, ok) == []
    cases = {
        "of part trial_a lists task relevance:1:0 of part relevance": [
            {"assessor_id": "t1", "part": "trial_a", "task_ids": ["relevance:1:0", "trial_a:1"]}
        ],
        "lists two tasks of article 1 (preference:1:x, preference:1:y)": [
            {"assessor_id": "p1", "part": "preference", "task_ids": ["preference:1:x", "preference:1:y"]}
        ],
        "is listed more than once": [
            {"assessor_id": "x", "part": "trial_a", "task_ids": ["trial_a:2"]},
            {"assessor_id": "x", "part": "trial_b", "task_ids": ["trial_b:2"]},
        ],
        "is in exclusive parts trial_a, trial_b": [
            {"assessor_id": "x", "part": "trial_a", "task_ids": ["trial_a:2"]},
            {"assessor_id": "x", "part": "trial_b", "task_ids": ["trial_b:2"]},
        ],
        "lists unknown task 'trial_a:9'": [
            {"assessor_id": "t1", "part": "trial_a", "task_ids": ["trial_a:9"]}
        ],
        "lists task trial_a:2 twice": [
            {"assessor_id": "t1", "part": "trial_a", "task_ids": ["trial_a:2", "trial_a:2"]}
        ],
    }
    for words, plan in cases.items():
        assert any(words in p for p in plan_problems(tasks, plan)), (words, plan_problems(tasks, plan))
