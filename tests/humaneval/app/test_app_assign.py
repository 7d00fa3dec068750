"""Dynamic assignment (crowd workers): N judgments per task, never the same task or question twice for
one assessor, inattentive judgments do not count, abandoned tasks go out again."""

from __future__ import annotations

import random
from collections import Counter

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
