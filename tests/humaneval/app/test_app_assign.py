"""Dynamic assignment (crowd workers): N judgments per task, never the same task or question twice for
one assessor, inattentive judgments do not count, abandoned tasks go out again."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter, defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from wikihowqa.humaneval.app.assign import Assigner, TaskSlot


def _assigner(articles: int, per_article: int, n: int, lease_s: float = 100.0) -> Assigner:
    tasks = {}
    for a in range(articles):
        for d in range(per_article):
            tid = f"relevance:{a}:{d}"
            tasks[tid] = TaskSlot(tid, "relevance", a, len(tasks))
    return Assigner(tasks, {}, {"relevance": n}, lease_s)


@settings(max_examples=40, deadline=None)
@given(
    articles=st.integers(1, 6),
    per_article=st.integers(1, 3),
    n=st.integers(1, 4),
    quota=st.integers(1, 5),
    inattentive=st.floats(0, 0.4),
    seed=st.integers(0, 10_000),
)
def test_workers_arriving_in_any_order_fill_every_task_exactly_n_times(
    articles, per_article, n, quota, inattentive, seed
):
    rng = random.Random(seed)
    assigner = _assigner(articles, per_article, n)
    judged: dict[str, list[str]] = {}
    counted: Counter[str] = Counter()
    active: list[str] = []
    worker = 0
    now = 0.0
    for _ in range(5000):
        now += 1.0
        if not active or rng.random() < 0.3:
            worker += 1
            active.append(f"w{worker}")
        who = rng.choice(active)
        task = assigner.next_dynamic(who, "relevance", quota, now)
        if task is None:
            active.remove(who)
            if all(counted[t] >= n for t in assigner.tasks):
                break
            continue
        assigner.mark_shown(who, task, now)
        # at any time: judgments that count plus open leases never exceed N
        assert counted[task] + sum(1 for _ in assigner.leases[task]) <= n
        ok = rng.random() >= inattentive
        assigner.mark_judged(who, task, ok)
        counted[task] += ok
        judged.setdefault(who, []).append(task)
    assert all(counted[t] == n for t in assigner.tasks), "every task ends with exactly N counted judgments"
    for tasks in judged.values():
        assert len(tasks) == len(set(tasks)) <= quota
        assert len({assigner.tasks[t].article_id for t in tasks}) == len(tasks)  # one task per question


def test_a_task_shown_and_abandoned_goes_to_someone_else_after_the_lease():
    assigner = _assigner(1, 1, 1, lease_s=60)
    assert assigner.next_dynamic("w1", "relevance", 5, 0.0) == "relevance:0:0"
    assigner.mark_shown("w1", "relevance:0:0", 0.0)
    assert assigner.next_dynamic("w2", "relevance", 5, 30.0) is None  # leased to w1
    assert assigner.next_dynamic("w2", "relevance", 5, 61.0) == "relevance:0:0"
    assert assigner.next_dynamic("w1", "relevance", 5, 61.0) == "relevance:0:0"  # w1 still sees theirs


def test_an_inattentive_judgment_sends_the_task_out_again():
    assigner = _assigner(1, 1, 1)
    assigner.mark_shown("w1", "relevance:0:0", 0.0)
    assigner.mark_judged("w1", "relevance:0:0", counts=False)
    assert assigner.next_dynamic("w2", "relevance", 5, 1.0) == "relevance:0:0"
    assert assigner.next_dynamic("w1", "relevance", 5, 1.0) is None  # never the same task twice


def test_a_plan_assessor_works_through_their_list_in_order():
    assigner = _assigner(3, 1, 1)
    assigner.plan = {"p1": ["relevance:2:0", "relevance:0:0"]}
    assert assigner.next_planned("p1") == "relevance:2:0"
    assigner.mark_shown("p1", "relevance:2:0", 0.0)
    assigner.mark_judged("p1", "relevance:2:0", True)
    assert assigner.next_planned("p1") == "relevance:0:0"
    assigner.mark_judged("p1", "relevance:0:0", True)
    assert assigner.next_planned("p1") is None


# --------------------------------------------------------------------------- one article per person


def test_a_person_linked_to_several_assessors_is_dealt_each_article_once():
    tasks = {
        "relevance:1:0": TaskSlot("relevance:1:0", "relevance", 1, 0),
        "trial_a:1": TaskSlot("trial_a:1", "trial_a", 1, 1),
        "trial_a:2": TaskSlot("trial_a:2", "trial_a", 2, 2),
    }
    assigner = Assigner(tasks, {}, {"relevance": 1, "trial_a": 1})
    assigner.link("r", "worker:W")
    assigner.link("t", "worker:W")
    assigner.mark_shown("r", assigner.next_dynamic("r", "relevance", 5, 0.0), 0.0)
    assert assigner.open_need("trial_a", 0.0) == 2 and assigner.open_need("trial_a", 0.0, "worker:W") == 1
    assert assigner.next_dynamic("t", "trial_a", 5, 0.0) == "trial_a:2"
    assert assigner.next_dynamic("other", "trial_a", 5, 0.0) == "trial_a:1"  # someone else: both open


GOLD, BAD, MODEL = "gold", "deteriorated", "model"


def _write_study(folder, articles, per_item, quota):
    """A study folder from ``articles``: per article (relevance docs, trial state, A/B systems), with
    answer texts that say what they are (``gold:7``, ``deteriorated:7``, ``model:s1:7``) and the plan
    `wikihowqa tasks` would make."""
    from wikihowqa.core.files import write_json
    from wikihowqa.dataset.writers import write_jsonl
    from wikihowqa.humaneval.tasks import StudySettings, plan_assignments

    tasks, key, items = [], [], {"relevance": [], "trial_a": [], "trial_b": [], "preference": []}

    def block(text):
        return {"text": text, "sentences": [{"start": 0, "end": len(text)}]}

    for a, (docs, trial, systems) in enumerate(articles):
        gold = f"{GOLD}:{a}"
        common = {"article_id": a, "question": f"q{a}", "attention_check": None}
        for d in range(docs):
            tid = f"relevance:{a}:{d}"
            document = {"doc_index": d, "title": "t", "url": "u", "text": f"document {a} {d}"}
            tasks.append(
                {
                    "task_id": tid,
                    "part": "relevance",
                    "type": "relevance",
                    **common,
                    "answer": block(gold),
                    "document": document,
                }
            )
            key.append(
                {
                    "task_id": tid,
                    "part": "relevance",
                    "article_id": a,
                    "attention_answer": None,
                    "doc_index": d,
                }
            )
            items["relevance"].append((tid, a))
        if trial is not None:  # True: deteriorated, False: intact (shows the gold text)
            for part in ("trial_a", "trial_b"):
                tid = f"{part}:{a}"
                text = f"{BAD}:{a}" if trial else gold
                tasks.append(
                    {
                        "task_id": tid,
                        "part": part,
                        "type": "answer",
                        **common,
                        "answer": block(text),
                        "passages": [] if part == "trial_b" else None,
                    }
                )
                key.append(
                    {
                        "task_id": tid,
                        "part": part,
                        "article_id": a,
                        "attention_answer": None,
                        "deteriorated": trial,
                        "edits": [],
                    }
                )
                items[part].append((tid, a))
        for s in range(systems):
            tid = f"preference:{a}:{s}"
            sides = {"A": gold, "B": f"{MODEL}:{s}:{a}"} if s % 2 else {"A": f"{MODEL}:{s}:{a}", "B": gold}
            tasks.append(
                {
                    "task_id": tid,
                    "part": "preference",
                    "type": "preference",
                    **common,
                    "answers": {k: block(v) for k, v in sides.items()},
                    "passages": {"A": [], "B": []},
                }
            )
            key.append(
                {
                    "task_id": tid,
                    "part": "preference",
                    "article_id": a,
                    "attention_answer": None,
                    "gold_side": "A" if s % 2 else "B",
                    "system": f"s{s}",
                }
            )
            items["preference"].append((tid, a))
    settings = StudySettings(assessors_per_item=per_item, items_per_assessor=quota)
    plan = plan_assignments(items, settings)
    parts = {p: {"tasks": len(v), "assessors_per_item": per_item} for p, v in items.items() if v}
    manifest = {
        "format": "wikihowqa-study",
        "format_version": 1,
        "study_id": "property",
        "settings": {"assessors_per_item": per_item, "items_per_assessor": quota},
        "parts": parts,
        "exclusive_parts": [["trial_a", "trial_b"]],
    }
    folder.mkdir()
    write_json(folder / "study.json", manifest)
    write_jsonl(folder / "tasks.jsonl", tasks)
    write_jsonl(folder / "key.jsonl", key)
    write_jsonl(folder / "assignments.jsonl", plan)
    return tasks, plan


def _body(task, n):
    body = {"judgment_id": f"judgment-{n:06d}", "task_id": task["task_id"], "attention": None, "events": []}
    if task["type"] == "relevance":
        body.update(relevance=2, highlights=[])
    elif task["type"] == "answer":
        body.update(familiarity=3, usefulness=3, spans=[])
    else:
        body["choice"] = "tie"
    return body


def _texts(task):
    if task["type"] == "preference":
        return {task["answers"][s]["text"] for s in "AB"}
    return {task["answer"]["text"]}


article = st.tuples(
    st.integers(0, 2),  # relevance documents
    st.sampled_from([None, True, False]),  # no trial tasks / deteriorated / intact
    st.integers(0, 2),  # A/B tasks (systems)
)


@settings(max_examples=60, deadline=None)
@given(
    articles=st.lists(article, min_size=1, max_size=5),
    per_item=st.integers(1, 3),
    quota=st.integers(1, 4),
    steps=st.lists(
        st.tuples(
            st.integers(0, 3),  # which worker
            st.sampled_from([None, "relevance", "trial_a", "trial_b", "preference"]),  # None: any part
            st.integers(0, 3),  # tasks to judge now
            st.booleans(),  # then look at one more and leave it on screen
        ),
        min_size=1,
        max_size=14,
    ),
)
def test_for_any_study_and_join_order_no_worker_receives_gold_and_a_non_gold_answer_of_one_article(
    articles, per_item, quota, steps
):
    """Workers join parts in any order (also without naming one), judge some tasks, leave some on
    screen. From what the server sends them, whatever the key: no worker gets, in two tasks of one
    article, its gold answer in one and a deteriorated or model answer in the other; in fact no worker
    gets two tasks of one article at all. The plan's slots keep the same rule."""
    import tempfile
    from pathlib import Path

    from wikihowqa.humaneval.app import ServerSettings, StudyService
    from wikihowqa.humaneval.app.state import ApiError
    from wikihowqa.humaneval.tasks import plan_problems

    if not any(docs or trial is not None or systems for docs, trial, systems in articles):
        return  # nothing to put in a study
    with tempfile.TemporaryDirectory() as tmp:
        tasks, plan = _write_study(Path(tmp) / "study", articles, per_item, quota)
        assert plan_problems(tasks, plan) == []
        by_id = {t["task_id"]: t for t in tasks}
        service = StudyService(Path(tmp) / "study", ServerSettings(crowd=True, items_per_assessor=quota))
        try:
            received: dict[str, list[str]] = defaultdict(list)
            n = 0
            for worker, part, judge, peek in steps:
                try:
                    row = service.join(f"W{worker}", part)
                except ApiError as exc:
                    assert exc.status in (403, 404, 409)
                    continue
                for k in range(judge + peek):
                    answer = json.loads(service.next_task(row))
                    task = answer.get("task")
                    if task is None:
                        break
                    if task["task_id"] not in received[f"W{worker}"]:
                        received[f"W{worker}"].append(task["task_id"])
                    assert _texts(task) == _texts(by_id[task["task_id"]])
                    if k < judge:
                        n += 1
                        assert service.submit(row, _body(task, n))[0] == 201
        finally:
            service.close()
    for slot in plan:  # each slot is one person too
        received[slot["assessor_id"]] = list(slot["task_ids"])
    for who, task_ids in received.items():
        per_article = defaultdict(list)
        for t in task_ids:
            per_article[by_id[t]["article_id"]].append(_texts(by_id[t]))
        for a, shown in per_article.items():
            gold = f"{GOLD}:{a}"
            for i, j in itertools.permutations(range(len(shown)), 2):
                assert not (gold in shown[i] and shown[j] - {gold}), (who, a, shown)
            assert len(shown) == 1, (who, a, shown)


def test_the_server_refuses_a_plan_edited_to_give_one_slot_two_tasks_of_an_article(study_dir):
    """A hand-edited assignments.jsonl that gives trial_a-001 the relevance task of its own article
    would show that slot the gold answer beside the deteriorated one: refused at start, nothing served."""
    import pytest

    from wikihowqa.core.errors import DatasetError
    from wikihowqa.humaneval.app import StudyService
    from wikihowqa.humaneval.tasks import read_study

    study = read_study(study_dir)
    by_id = study.tasks_by_id()
    plan = [dict(a) for a in study.assignments]
    slot = next(a for a in plan if a["part"] == "trial_a")
    article = by_id[slot["task_ids"][0]]["article_id"]
    relevance = next(t for t in study.tasks if t["part"] == "relevance" and t["article_id"] == article)
    slot["task_ids"] = [*slot["task_ids"], relevance["task_id"]]
    (study_dir / "assignments.jsonl").write_text("".join(json.dumps(a) + "\n" for a in plan))
    with pytest.raises(
        DatasetError, match=f"assignments.jsonl: assessor {slot['assessor_id']} of part trial_a"
    ):
        StudyService(study_dir)
    assert not (study_dir / "server.sqlite").exists()
