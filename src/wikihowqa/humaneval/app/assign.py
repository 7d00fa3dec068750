"""Which task an assessor gets next (docs/humaneval-formats.md §3.4), in memory, rebuilt from the
database at start.

Two kinds of assessor:

* a **plan** assessor is a slot of ``assignments.jsonl`` and works through its list in order; the plan
  already guarantees N assessors per task, no task twice, no two tasks of one question in a part, and
  disjoint pools for the two trials;
* a **dynamic** assessor (a crowd worker who joined, or one the admin added) gets, one at a time, a task
  of its part that still *needs* judgments, that it has never been shown, and whose question its
  *person* has not been shown in any part. ``need = N - counted judgments - live leases``, where a
  judgment counts unless the key says its attentiveness answer was wrong (the analysis rejects those, so
  the task goes out again), and a lease is a task shown but not yet judged within ``lease_s`` seconds. A
  task can therefore end with more than N judgments (a lease expires, then its holder submits after all)
  but never with fewer while assessors keep coming. Which parts a crowd worker may join (never both
  trials) is decided by the server.

A *person* is what one human holds: a crowd worker has one assessor per part they joined, all linked to
the worker (:meth:`Assigner.link`); every other assessor is a person of its own. One article per person
keeps the answer key secret: relevance tasks show an article's gold answer, trial tasks its deteriorated
(or intact) one and A/B tasks gold beside a model's answer, so a worker who saw two of them could diff
them (docs/humaneval-formats.md §3.4).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TaskSlot:
    task_id: str
    part: str
    article_id: int
    order: int


@dataclass
class Assigner:
    tasks: Mapping[str, TaskSlot]
    plan: Mapping[str, list[str]]
    per_item: Mapping[str, int]
    lease_s: float = 1800.0
    part_tasks: dict[str, list[str]] = field(default_factory=dict)
    judged: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    shown: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    counted: Counter[str] = field(default_factory=Counter)
    judgments: Counter[str] = field(default_factory=Counter)
    leases: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    persons: dict[str, str] = field(default_factory=dict)  # assessor -> person; absent: itself
    articles_seen: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))  # per person

    def __post_init__(self) -> None:
        if not self.part_tasks:
            by_part: dict[str, list[TaskSlot]] = defaultdict(list)
            for slot in self.tasks.values():
                by_part[slot.part].append(slot)
            self.part_tasks = {
                p: [s.task_id for s in sorted(v, key=lambda s: s.order)] for p, v in by_part.items()
            }

    # ------------------------------------------------------------------ state changes

    def person(self, assessor_id: str) -> str:
        return self.persons.get(assessor_id, assessor_id)

    def link(self, assessor_id: str, person: str) -> None:
        """Count ``assessor_id`` as one of ``person``'s assessors (before anything is shown to it)."""
        self.persons[assessor_id] = person
        for task_id in self.shown[assessor_id]:
            self.articles_seen[person].add(self.tasks[task_id].article_id)

    def mark_shown(self, assessor_id: str, task_id: str, at: float) -> None:
        if task_id in self.shown[assessor_id]:
            return
        self.shown[assessor_id][task_id] = at
        self.articles_seen[self.person(assessor_id)].add(self.tasks[task_id].article_id)
        if task_id not in self.judged[assessor_id]:
            self.leases[task_id][assessor_id] = at

    def mark_judged(self, assessor_id: str, task_id: str, counts: bool) -> None:
        self.judged[assessor_id].add(task_id)
        self.leases[task_id].pop(assessor_id, None)
        self.judgments[task_id] += 1
        if counts:
            self.counted[task_id] += 1

    # ------------------------------------------------------------------ queries

    def need(self, task_id: str, now: float) -> int:
        live = sum(1 for t in self.leases[task_id].values() if now - t < self.lease_s)
        return self.per_item[self.tasks[task_id].part] - self.counted[task_id] - live

    def current(self, assessor_id: str) -> str | None:
        """The task shown to the assessor and not judged yet (they reloaded the page: same task)."""
        for task_id in self.shown[assessor_id]:
            if task_id not in self.judged[assessor_id]:
                return task_id
        return None

    def next_planned(self, assessor_id: str) -> str | None:
        done = self.judged[assessor_id]
        return next((t for t in self.plan[assessor_id] if t not in done), None)

    def next_dynamic(self, assessor_id: str, part: str, quota: int, now: float) -> str | None:
        current = self.current(assessor_id)
        if current is not None:
            return current
        if len(self.judged[assessor_id]) >= quota:
            return None
        seen = self.shown[assessor_id]
        articles = self.articles_seen[self.person(assessor_id)]
        best: tuple[int, int] | None = None
        choice = None
        for task_id in self.part_tasks.get(part, ()):
            if task_id in seen or self.tasks[task_id].article_id in articles:
                continue
            need = self.need(task_id, now)
            if need <= 0:
                continue
            rank = (-need, self.judgments[task_id])
            if best is None or rank < best:
                best, choice = rank, task_id
        return choice

    def open_need(self, part: str, now: float, person: str | None = None) -> int:
        """Judgments the part still needs; with ``person``, only of articles that person has not seen."""
        seen = self.articles_seen.get(person, set()) if person is not None else set()
        return sum(
            max(self.need(t, now), 0)
            for t in self.part_tasks.get(part, ())
            if self.tasks[t].article_id not in seen
        )

    def may_take(self, assessor_id: str, task_id: str) -> bool:
        """A submission is for a task this assessor was shown (a plan slot is only ever shown its own)."""
        return task_id in self.shown[assessor_id]


def slots_from_tasks(tasks: Iterable[Mapping[str, object]]) -> dict[str, TaskSlot]:
    return {
        str(t["task_id"]): TaskSlot(str(t["task_id"]), str(t["part"]), int(t["article_id"]), k)  # type: ignore[call-overload]
        for k, t in enumerate(tasks)
    }


__all__ = ["Assigner", "TaskSlot", "slots_from_tasks"]
