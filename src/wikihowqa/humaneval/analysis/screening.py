"""Which judgments count: the format (one :class:`~wikihowqa.humaneval.judgment.Judgment` model, shared
with the study server), then the study's rules, each rejection with its reason; the clock check, which
flags and does not reject; and reading judgment files (``judgments.jsonl``, Label Studio exports).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError
from wikihowqa.dataset.readers import iter_jsonl
from wikihowqa.humaneval.analysis.report import ClockCheck, Proportion
from wikihowqa.humaneval.analysis.statistics import proportion
from wikihowqa.humaneval.judgment import judgment_problem
from wikihowqa.humaneval.labelstudio import judgments_from_export, read_export
from wikihowqa.humaneval.tasks import EXCLUSIVE_PARTS, Study

#: A page's own duration may differ from the server's by network time and retried submits; beyond this
#: much (both at once: 10 s and 10 % of the server's measure) the page's clock, or the page, is suspect.
CLOCK_TOLERANCE_MS = 10_000
CLOCK_TOLERANCE_SHARE = 0.10


@dataclass(frozen=True)
class Rejection:
    judgment_id: str
    task_id: str | None
    assessor_id: str | None
    reason: str


def screen(
    judgments: Sequence[Mapping[str, Any]], study: Study
) -> tuple[list[Mapping[str, Any]], list[Rejection]]:
    """Accepted judgments and the rejected ones with their reasons, in file order."""
    tasks, key = study.tasks_by_id(), study.key_by_id()
    accepted: list[Mapping[str, Any]] = []
    rejected: list[Rejection] = []
    seen: set[tuple[str, str]] = set()
    # Every part an assessor has judged in: with one part per assessor (the first seen), a trial A and
    # trial B pair after a relevance judgment went through (merged Label Studio exports reuse ids).
    parts_of_assessor: dict[str, set[str]] = defaultdict(set)
    exclusive = {p: set(group) - {p} for group in EXCLUSIVE_PARTS for p in group}
    # The first task of each article an assessor judged: a later trial or A/B task of that article is
    # judged knowing another version of its answer (the gold one, or a deteriorated one).
    articles_of_assessor: dict[str, dict[int, Mapping[str, Any]]] = defaultdict(dict)
    for n, j in enumerate(judgments):
        jid = str(j.get("judgment_id") or f"#{n + 1}")
        task = tasks.get(j.get("task_id"))  # type: ignore[arg-type]
        problem = judgment_problem(j, task)
        if problem:
            rejected.append(Rejection(jid, j.get("task_id"), j.get("assessor_id"), f"invalid: {problem}"))
            continue
        assert task is not None
        pair = (task["task_id"], j["assessor_id"])
        if pair in seen:
            rejected.append(
                Rejection(jid, pair[0], pair[1], "duplicate: the assessor judged this task before")
            )
            continue
        seen.add(pair)
        part = task["part"]
        clash = sorted(parts_of_assessor[j["assessor_id"]] & exclusive.get(part, set()))
        if clash:
            rejected.append(
                Rejection(jid, pair[0], pair[1], f"exclusive: the assessor already judged {clash[0]}")
            )
            continue
        parts_of_assessor[j["assessor_id"]].add(part)
        earlier = articles_of_assessor[j["assessor_id"]].setdefault(task["article_id"], task)
        if earlier is not task and task["type"] != "relevance":  # a relevance task hides nothing
            rejected.append(
                Rejection(
                    jid,
                    pair[0],
                    pair[1],
                    f"contaminated: the assessor judged article {task['article_id']} before "
                    f"({earlier['task_id']}), which gives away this task's key",
                )
            )
            continue
        truth = key[task["task_id"]].get("attention_answer")
        if truth is not None and j.get("attention") != truth:
            rejected.append(Rejection(jid, pair[0], pair[1], "inattentive: wrong category"))
            continue
        accepted.append(j)
    return accepted, rejected


def unknown_tasks(judgments: Iterable[Mapping[str, Any]], study: Study) -> int:
    """How many judgments name a task the study does not have (rejected by :func:`screen`; counted apart
    because many of them mean the wrong study or the wrong judgments file)."""
    tasks = study.tasks_by_id()
    return sum(1 for j in judgments if not isinstance(j.get("task_id"), str) or j["task_id"] not in tasks)


def refuse_foreign(judgments: Iterable[Mapping[str, Any]], study_id: Any, source: Any) -> None:
    """Refuse judgments that say they belong to another study. Task ids (``part:article:index``) repeat
    across studies built from one dataset, so another study's judgments would join this study's answers
    silently. A judgment without a ``study_id`` (a script's) is not refused."""
    if study_id is None:
        return
    foreign = Counter(
        str(j["study_id"]) for j in judgments if j.get("study_id") is not None and j["study_id"] != study_id
    )
    if foreign:
        other, n = foreign.most_common(1)[0]
        raise DatasetError(
            f"{source}: {n} judgment(s) of study {other!r}, not of study {study_id!r};"
            " give the judgments of this study, or the study folder they belong to"
        )


def clock_disagrees(server_ms: float, client_ms: float) -> bool:
    """Whether a page's duration is off the server's by more than the tolerance (both bounds)."""
    gap = abs(client_ms - server_ms)
    return gap > CLOCK_TOLERANCE_MS and gap > CLOCK_TOLERANCE_SHARE * server_ms


def clock_check(judgments: Iterable[Mapping[str, Any]]) -> ClockCheck:
    """Judgments whose page-measured ``client_duration_ms`` disagrees with the server's ``duration_ms``
    (written by ``wikihowqa serve``; other sources have no ``client_duration_ms`` and are not checked)."""
    checked, flagged = 0, []
    for j in judgments:
        server, client = j.get("duration_ms"), j.get("client_duration_ms")
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (server, client)):
            continue
        checked += 1
        if clock_disagrees(server, client):
            flagged.append(
                {
                    "judgment_id": j.get("judgment_id"),
                    "assessor_id": j.get("assessor_id"),
                    "task_id": j.get("task_id"),
                    "duration_ms": server,
                    "client_duration_ms": client,
                }
            )
    return ClockCheck(
        checked=checked,
        disagreeing=Proportion(**proportion(len(flagged), checked)),
        tolerance={"ms": CLOCK_TOLERANCE_MS, "share": CLOCK_TOLERANCE_SHARE},
        flagged=flagged,
    )


def read_judgments(path: Path) -> list[dict[str, Any]]:
    path = Path(path)
    if path.is_file() and path.stat().st_size == 0:
        return []
    return [row for _, row in iter_jsonl(path)]


def _moment(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def merge_judgments(sources: Sequence[Sequence[Mapping[str, Any]]]) -> list[Mapping[str, Any]]:
    """Judgments of several files as one list. The screening keeps the first of two judgments that
    conflict (a repeat, the other trial, a second task of an article), so merged files are put in
    submission order when every judgment says when it was submitted; else they stay in the order given."""
    rows = [j for source in sources for j in source]
    if len(sources) < 2:
        return rows
    moments = [_moment(j.get("submitted_at")) for j in rows]
    if any(m is None for m in moments):
        return rows
    order = sorted(range(len(rows)), key=lambda k: moments[k])  # type: ignore[arg-type,return-value]
    return [rows[k] for k in order]


def read_judgment_files(paths: Sequence[Path], study_id: str) -> list[Mapping[str, Any]]:
    """``judgments.jsonl`` files and Label Studio exports (``.json``: JSON or JSON_MIN; one project per
    part, so a whole study is several files), merged by :func:`merge_judgments`; a file with another
    study's judgments is refused (:func:`refuse_foreign`)."""
    sources = []
    for path in paths:
        if Path(path).suffix == ".json":
            sources.append(judgments_from_export(read_export(path), study_id, source=path))
        else:
            rows = read_judgments(path)
            refuse_foreign(rows, study_id, path)
            sources.append(rows)
    return merge_judgments(sources)


def find_study(judgments_path: Path, study: Path | None) -> Path:
    """The study folder: given, or the judgments file's folder (or its parent) holding study.json."""
    if study is not None:
        return Path(study)
    for candidate in (Path(judgments_path).parent, Path(judgments_path).parent.parent):
        if (candidate / "study.json").is_file():
            return candidate
    raise DatasetError(f"{judgments_path}: no study.json next to it; name the study folder with --study")
