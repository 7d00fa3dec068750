"""Build a study: the task files a study server or Label Studio loads (format: docs/humaneval-formats.md).

Four parts, as in the paper: ``relevance`` (section 3.3), ``trial_a`` and ``trial_b`` (section 5.1: the
same answers without and with passages) and ``preference`` (section 5.2: gold vs a system, A/B); and, on
request, the paper's future work: ``errors_a`` and ``errors_b``, typed error spans in systems' answers
with deteriorated answers mixed in as controls, without and with passages (:mod:`.errortasks`).
What assessors may see goes to ``tasks.jsonl``; what they must not (which answers are deteriorated and
where, which side is gold, the true category) goes to ``key.jsonl``, so a server can never leak it by
sending a task as is.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from wikihowqa import __version__
from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.core.files import atomic_folder, write_json
from wikihowqa.core.records import Document, Example, Passage, Prediction
from wikihowqa.dataset.readers import iter_jsonl
from wikihowqa.dataset.writers import write_jsonl
from wikihowqa.humaneval.collected import SERVER_DB, count_judgments
from wikihowqa.humaneval.deteriorate import DeterioratedAnswer
from wikihowqa.humaneval.errortasks import ERROR_PARTS, error_manifest, error_tasks
from wikihowqa.humaneval.labelstudio import write_labelstudio
from wikihowqa.humaneval.lexicon import WIKIHOW_CATEGORIES
from wikihowqa.humaneval.rank import Ranker, Scorer
from wikihowqa.humaneval.taxonomy import DEFAULT_TAXONOMY, Taxonomy
from wikihowqa.humaneval.text import answer_block, sentence_spans
from wikihowqa.parse.passages import split_passages

STUDY_FORMAT = "wikihowqa-study"
#: Written: 2 (added the ``errors`` parts); read: 1 too (a version-1 file is a 2 without them).
FORMAT_VERSION = 2
READ_FORMAT_VERSIONS: tuple[int, ...] = (1, 2)
PARTS: tuple[str, ...] = ("relevance", "trial_a", "trial_b", "preference")  #: by default (the paper's)
ALL_PARTS: tuple[str, ...] = (*PARTS, *ERROR_PARTS)
TASK_TYPES: Mapping[str, str] = {
    "relevance": "relevance",
    "trial_a": "answer",
    "trial_b": "answer",
    "preference": "preference",
    "errors_a": "errors",
    "errors_b": "errors",
}
#: Parts no assessor may work in both of (the paper: "no worker participated in both rounds").
EXCLUSIVE_PARTS: tuple[tuple[str, ...], ...] = (("trial_a", "trial_b"), ("errors_a", "errors_b"))
# One task per article and assessor, in the whole study, keeps the answer key secret across parts:
# relevance shows the gold answer, a trial task the deteriorated one (or the intact one, which is gold),
# an A/B task gold beside a model's answer; any two of them side by side give away the planted errors, an
# answer's being intact, or the gold side. The rule does not look at the key, so which tasks an assessor
# is dealt says nothing about it either. The plan (`plan_problems`), the server's dealing
# (`app/assign.py`) and the analysis' screening (`analysis.screen`) all keep it.

SCALES: Mapping[str, Mapping[str, Any]] = {
    "relevance": {
        "min": 0,
        "max": 4,
        "labels": ["Very irrelevant", "Irrelevant", "Somewhat relevant", "Relevant", "Very relevant"],
    },
    "familiarity": {
        "min": 1,
        "max": 5,
        "labels": ["Very unfamiliar", "Unfamiliar", "Neutral", "Familiar", "Very familiar"],
    },
    "usefulness": {
        "min": 1,
        "max": 5,
        "labels": ["Very useless", "Useless", "Neutral", "Useful", "Very useful"],
    },
}
SPAN_LABELS: tuple[str, ...] = ("useful", "misleading")
CHOICES: tuple[str, ...] = ("A", "B", "tie")
ATTENTION_PROMPT = "Which category does this question belong to?"


@dataclass(frozen=True)
class StudySettings:
    """How a study is built; the defaults follow the paper."""

    assessors_per_item: int = 3
    items_per_assessor: int = 10
    max_chars: int = 5000
    budget_scope: str = "answer"  # "answer": 5,000 chars over all sentences (the issue: "in all"); "sentence"
    max_passages: int | None = None
    relevance_questions: int = 31
    relevance_documents_per_question: int = 1
    preference_questions: int = 100
    parts: tuple[str, ...] = PARTS
    seed: int = 0
    #: ``errors`` parts: questions per system, and deteriorated answers mixed in as controls.
    error_questions: int = 20
    error_controls: int = 10

    def __post_init__(self) -> None:
        if self.assessors_per_item < 1 or self.items_per_assessor < 1:
            raise SettingsError("assessors_per_item and items_per_assessor must be at least 1")
        if self.max_chars < 1:
            raise SettingsError("max_chars must be positive")
        if self.budget_scope not in {"sentence", "answer"}:
            raise SettingsError(f"budget_scope must be 'sentence' or 'answer', not {self.budget_scope!r}")
        unknown = set(self.parts) - set(ALL_PARTS)
        if unknown:
            raise SettingsError(f"unknown study part(s) {sorted(unknown)} (known: {', '.join(ALL_PARTS)})")
        if self.error_questions < 0 or self.error_controls < 0:
            raise SettingsError("error_questions and error_controls must not be negative")


@dataclass
class Study:
    """A built study: the manifest, the tasks, the answer key and the assignment plan."""

    manifest: dict[str, Any]
    tasks: list[dict[str, Any]] = field(default_factory=list)
    key: list[dict[str, Any]] = field(default_factory=list)
    assignments: list[dict[str, Any]] = field(default_factory=list)

    def tasks_by_id(self) -> dict[str, dict[str, Any]]:
        return {t["task_id"]: t for t in self.tasks}

    def key_by_id(self) -> dict[str, dict[str, Any]]:
        return {k["task_id"]: k for k in self.key}


# --------------------------------------------------------------------------- building blocks


def attention_check(category: str | None, rng: random.Random) -> tuple[dict[str, Any] | None, str | None]:
    """Four options, the true category and three random other top-level ones, shuffled; no check when
    the category is unknown."""
    if not category:
        return None, None
    others = rng.sample([c for c in WIKIHOW_CATEGORIES if c != category], 3)
    options = [category, *others]
    rng.shuffle(options)
    return {"prompt": ATTENTION_PROMPT, "options": options}, category


def article_passages(documents: Sequence[Document]) -> list[Passage]:
    """Passages of a question's documents in document then page order (cut from the text when absent)."""
    out = []
    for doc_index, doc in enumerate(documents):
        texts = doc.passages or tuple(split_passages(doc.parsed_text))
        out.extend(
            Passage(doc.article_id, doc_index, position, t, doc.archive_url)
            for position, t in enumerate(texts)
        )
    return out


class PassagePicker:
    """Top-ranked passages per answer sentence, within the character budget, grouped by document in
    original order, each with its most relevant sentence marked."""

    def __init__(self, ranker: Ranker, documents: Sequence[Document], settings: StudySettings) -> None:
        self.ranker = ranker
        self.documents = documents
        self.settings = settings
        self.passages = [p for p in article_passages(documents) if p.text.strip()]
        self.scorer = ranker.index([p.text for p in self.passages]) if self.passages else None
        self._markers: dict[int, tuple[list[tuple[int, int]], Scorer]] = {}

    def _ranked(self, query: str) -> list[tuple[int, float]]:
        if self.scorer is None:
            return []
        scores = np.asarray(self.scorer(query), dtype=float)
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [(i, float(scores[i])) for i in order if scores[i] > 0]

    def _mark(self, index: int, query: str) -> dict[str, int]:
        if index not in self._markers:
            text = self.passages[index].text
            spans = sentence_spans(text) or [(0, len(text))]
            self._markers[index] = (spans, self.ranker.index([text[s:e] for s, e in spans]))
        spans, scorer = self._markers[index]
        scores = np.asarray(scorer(query), dtype=float)
        best = int(np.argmax(scores)) if len(scores) else 0
        return {"start": spans[best][0], "end": spans[best][1]}

    def for_answer(self, answer: str) -> list[dict[str, Any]]:
        """One entry per answer sentence: its span and its passage groups."""
        spans = sentence_spans(answer)
        ranked = [self._ranked(answer[s:e]) for s, e in spans]
        limit = self.settings.max_passages or math.inf
        chosen: list[list[tuple[int, int, float]]] = [[] for _ in spans]  # (passage index, rank, score)
        budget = self.settings.max_chars
        if self.settings.budget_scope == "sentence":
            for k, ranking in enumerate(ranked):
                used = 0
                for rank, (i, score) in enumerate(ranking, start=1):
                    size = len(self.passages[i].text)
                    if len(chosen[k]) < limit and used + size < budget:
                        chosen[k].append((i, rank, score))
                        used += size
        else:
            used = 0
            depth = max((len(r) for r in ranked), default=0)
            for r in range(depth):
                for k, ranking in enumerate(ranked):
                    if r < len(ranking) and len(chosen[k]) < limit:
                        i, score = ranking[r]
                        size = len(self.passages[i].text)
                        if used + size < budget:
                            chosen[k].append((i, r + 1, score))
                            used += size
        return [
            {
                "sentence": k,
                "start": s,
                "end": e,
                "chars": sum(len(self.passages[i].text) for i, _, _ in chosen[k]),
                "groups": self._grouped(chosen[k], answer[s:e]),
            }
            for k, (s, e) in enumerate(spans)
        ]

    def _grouped(self, picked: list[tuple[int, int, float]], query: str) -> list[dict[str, Any]]:
        by_doc: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
        for item in picked:
            by_doc[self.passages[item[0]].doc_index].append(item)
        groups = []
        for doc_index in sorted(by_doc):
            doc = self.documents[doc_index]
            items = sorted(by_doc[doc_index], key=lambda t: self.passages[t[0]].position)
            groups.append(
                {
                    "doc_index": doc_index,
                    "title": doc.title or "",
                    "url": doc.archive_url,
                    "passages": [
                        {
                            "passage_id": self.passages[i].id,
                            "position": self.passages[i].position,
                            "rank": rank,
                            "score": round(score, 6),
                            "text": self.passages[i].text,
                            "highlight": self._mark(i, query),
                        }
                        for i, rank, score in items
                    ],
                }
            )
        return groups


# --------------------------------------------------------------------------- A/B: the source stays hidden


def preference_secret(seed: int, answered: Mapping[str, Mapping[int, Prediction]]) -> bytes:
    """The key of a study's A/B task ids and sides: a digest of the seed and every system's every answer.
    The same inputs give the same study, yet no assessor can recompute it (each sees a few of the answers
    of one system), so neither the id nor the side gives away which system, or which side, is which."""
    h = hashlib.sha256(f"wikihowqa-preference:{seed}".encode())
    for system in sorted(answered):
        for article_id in sorted(answered[system]):
            h.update(json.dumps([system, article_id, answered[system][article_id].answer]).encode())
    return h.digest()


def preference_task_id(secret: bytes, article_id: int, system: str) -> str:
    """``preference:<article>:<12 hex>``, a keyed digest of the system's name: opaque to the assessor
    (the id reaches the browser and Label Studio); ``key.jsonl`` maps it back to the system."""
    digest = hmac.new(secret, f"{article_id}:{system}".encode(), hashlib.sha256).hexdigest()
    return f"preference:{article_id}:{digest[:12]}"


# --------------------------------------------------------------------------- assignment


def plan_assignments(
    items: Mapping[str, Sequence[tuple[str, int]]], settings: StudySettings
) -> list[dict[str, Any]]:
    """Assessors per part so that every task gets ``assessors_per_item`` distinct assessors, no assessor
    gets two tasks of the same question, and parts have disjoint assessor pools (so no one is in both
    trials, and no one sees an article's gold answer in one part and its deteriorated or model answer in
    another). Tasks of one question sit in consecutive slots dealt round-robin, which is what keeps them
    apart."""
    n = settings.assessors_per_item
    rng = random.Random(f"{settings.seed}:assign")
    plan = []
    for part, part_items in items.items():
        if not part_items:
            continue
        by_article: dict[int, list[str]] = defaultdict(list)
        for task_id, article_id in part_items:
            by_article[article_id].append(task_id)
        articles = sorted(by_article)
        rng.shuffle(articles)
        slots = [task_id for a in articles for task_id in by_article[a] for _ in range(n)]
        widest = max(len(v) for v in by_article.values())
        assessors = max(n * widest, math.ceil(len(slots) / settings.items_per_assessor))
        queues: list[list[str]] = [[] for _ in range(assessors)]
        for k, task_id in enumerate(slots):
            queues[k % assessors].append(task_id)
        for k, queue in enumerate(queues):
            rng.shuffle(queue)
            plan.append({"assessor_id": f"{part}-{k + 1:03d}", "part": part, "task_ids": queue})
    return plan


def plan_problems(
    tasks: Iterable[Mapping[str, Any]],
    assignments: Iterable[Mapping[str, Any]],
    exclusive: Iterable[Iterable[str]] = EXCLUSIVE_PARTS,
) -> list[str]:
    """What breaks the plan's rules (an empty list when nothing does): an assessor listed twice, a task
    that is unknown, listed twice, of another part than its assessor's, or a second task of one article
    for one assessor (which would give away the answer key); an assessor in two exclusive parts."""
    by_id = {str(t["task_id"]): t for t in tasks}
    groups = [set(g) for g in exclusive]
    problems: list[str] = []
    parts_of: dict[str, set[str]] = defaultdict(set)
    for a in assignments:
        who, part = str(a["assessor_id"]), str(a["part"])
        if parts_of[who]:
            problems.append(f"assessor {who} is listed more than once")
        parts_of[who].add(part)
        articles: dict[int, str] = {}
        seen: set[str] = set()
        for task_id in a["task_ids"]:
            task = by_id.get(task_id)
            if task is None:
                problems.append(f"assessor {who} lists unknown task {task_id!r}")
                continue
            if task_id in seen:
                problems.append(f"assessor {who} lists task {task_id} twice")
            seen.add(task_id)
            if task["part"] != part:
                problems.append(f"assessor {who} of part {part} lists task {task_id} of part {task['part']}")
            article = int(task["article_id"])
            if article in articles and articles[article] != task_id:
                problems.append(
                    f"assessor {who} lists two tasks of article {article} ({articles[article]}, {task_id}): "
                    "one would give away the other's answer key"
                )
            articles.setdefault(article, task_id)
    for who, parts in parts_of.items():
        for group in groups:
            if len(group & parts) > 1:
                problems.append(f"assessor {who} is in exclusive parts {', '.join(sorted(group & parts))}")
    return problems


# --------------------------------------------------------------------------- the study


def build_study(
    answers: Sequence[DeterioratedAnswer],
    examples: Sequence[Example],
    documents: Mapping[int, Sequence[Document]],
    predictions: Sequence[Prediction],
    ranker: Ranker,
    settings: StudySettings = StudySettings(),
    *,
    study_id: str | None = None,
    sources: Mapping[str, Any] | None = None,
    error_predictions: Sequence[Prediction] | None = None,
    taxonomy: Taxonomy = DEFAULT_TAXONOMY,
) -> Study:
    """All tasks, the key and the assignment plan of a study; errors parts show ``error_predictions``."""
    rng = random.Random(settings.seed)
    by_id = {e.article_id: e for e in examples}
    pickers: dict[int, PassagePicker] = {}

    def picker(article_id: int) -> PassagePicker:
        if article_id not in pickers:
            pickers[article_id] = PassagePicker(ranker, documents.get(article_id, ()), settings)
        return pickers[article_id]

    tasks: list[dict[str, Any]] = []
    key: list[dict[str, Any]] = []
    items: dict[str, list[tuple[str, int]]] = {p: [] for p in settings.parts}

    def add(
        part: str,
        task_id: str,
        article_id: int,
        question: str,
        category: str | None,
        body: dict[str, Any],
        secret: dict[str, Any],
    ) -> None:
        check, truth = attention_check(category, random.Random(f"{settings.seed}:{task_id}"))
        tasks.append(
            {
                "task_id": task_id,
                "part": part,
                "type": TASK_TYPES[part],
                "article_id": article_id,
                "question": question,
                "attention_check": check,
                **body,
            }
        )
        key.append(
            {"task_id": task_id, "part": part, "article_id": article_id, "attention_answer": truth, **secret}
        )
        items[part].append((task_id, article_id))

    if "relevance" in settings.parts:
        candidates = [
            e
            for e in sorted(examples, key=lambda e: e.article_id)
            if any(d.parsed_text.strip() for d in documents.get(e.article_id, ()))
        ]
        for ex in rng.sample(candidates, min(settings.relevance_questions, len(candidates))):
            usable = [(i, d) for i, d in enumerate(documents[ex.article_id]) if d.parsed_text.strip()]
            for doc_index, doc in rng.sample(
                usable, min(settings.relevance_documents_per_question, len(usable))
            ):
                add(
                    "relevance",
                    f"relevance:{ex.article_id}:{doc_index}",
                    ex.article_id,
                    ex.question,
                    ex.category,
                    {
                        "answer": answer_block(ex.answer),
                        "document": {
                            "doc_index": doc_index,
                            "title": doc.title or "",
                            "url": doc.archive_url,
                            "text": doc.parsed_text,
                        },
                    },
                    {"doc_index": doc_index},
                )

    for part in ("trial_a", "trial_b"):
        if part not in settings.parts:
            continue
        for ans in answers:
            block = answer_block(ans.deteriorated)
            passages = picker(ans.article_id).for_answer(ans.deteriorated) if part == "trial_b" else None
            add(
                part,
                f"{part}:{ans.article_id}",
                ans.article_id,
                ans.question,
                ans.category,
                {"answer": block, "passages": passages},
                {"deteriorated": ans.is_deteriorated, "edits": [e.to_dict() for e in ans.edits]},
            )

    systems = sorted({p.system for p in predictions})
    if "preference" in settings.parts and systems:
        answered: dict[str, dict[int, Prediction]] = defaultdict(dict)
        for p in predictions:
            answered[p.system][p.article_id] = p
        common = sorted(set.intersection(*(set(v) for v in answered.values())) & set(by_id))
        secret = preference_secret(settings.seed, answered)
        for article_id in rng.sample(common, min(settings.preference_questions, len(common))):
            ex = by_id[article_id]
            for system in systems:
                model = answered[system][article_id].answer
                task_id = preference_task_id(secret, article_id, system)
                gold_side = random.Random(f"{secret.hex()}:{task_id}:side").choice("AB")
                sides = {gold_side: ex.answer, ("B" if gold_side == "A" else "A"): model}
                add(
                    "preference",
                    task_id,
                    article_id,
                    ex.question,
                    ex.category,
                    {
                        "answers": {s: answer_block(sides[s]) for s in "AB"},
                        "passages": {s: picker(article_id).for_answer(sides[s]) for s in "AB"},
                    },
                    {"gold_side": gold_side, "system": system},
                )

    error_preds = predictions if error_predictions is None else error_predictions
    for item in error_tasks(answers, by_id, error_preds, picker, taxonomy, settings):
        add(*item)

    if not tasks:
        raise DatasetError(
            "nothing to put in the study: no answers, no documents for relevance, no predictions"
        )
    plan = plan_assignments(items, settings)
    broken = plan_problems(tasks, plan)
    if broken:  # pragma: no cover - plan_assignments keeps these rules by construction
        raise AssertionError(f"the assignment plan breaks its rules: {broken[0]}")
    counts = {p: len(v) for p, v in items.items()}
    manifest = {
        "format": STUDY_FORMAT,
        "format_version": FORMAT_VERSION,
        "study_id": study_id or f"study-{datetime.now(UTC):%Y%m%dT%H%M%SZ}",
        "created": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "tool": f"wikihowqa {__version__}",
        "settings": {**asdict(settings), "parts": list(settings.parts), "ranker": ranker.name},
        "sources": dict(sources or {}),
        "categories": list(WIKIHOW_CATEGORIES),
        "scales": SCALES,
        "span_labels": list(SPAN_LABELS),
        "choices": list(CHOICES),
        "parts": {
            p: {
                "task_type": TASK_TYPES[p],
                "tasks": counts.get(p, 0),
                "assessors_per_item": settings.assessors_per_item,
                "passages": p in {"trial_b", "preference", "errors_b"},
                "assessors": sum(1 for a in plan if a["part"] == p),
            }
            for p in settings.parts
        },
        "exclusive_parts": [list(x) for x in EXCLUSIVE_PARTS],
        "systems": systems,
        **error_manifest(error_preds, taxonomy, settings),
        "files": {
            "tasks": "tasks.jsonl",
            "key": "key.jsonl",
            "assignments": "assignments.jsonl",
            "judgments": "judgments.jsonl",
        },
    }
    return Study(manifest, tasks, key, plan)


# --------------------------------------------------------------------------- files


def write_study(
    study: Study,
    folder: Path,
    *,
    overwrite: bool = False,
    extra_files: Mapping[str, Iterable[Mapping[str, Any]]] | None = None,
) -> Path:
    """Write the study folder through a staging folder and a rename; never over judgments by accident."""
    folder = Path(folder)
    if folder.exists() and any(folder.iterdir()) and not overwrite:
        raise DatasetError(f"{folder}: folder exists and is not empty (use --overwrite to replace it)")
    collected = count_judgments(folder / SERVER_DB)
    if collected:
        raise DatasetError(
            f"{folder}: the study server has collected {collected} judgment(s) here (server.sqlite); "
            "export them (wikihowqa export-judgments) and move the folder away before rebuilding the study"
        )
    with atomic_folder(folder) as staging:
        write_json(staging / "study.json", study.manifest)
        write_jsonl(staging / "tasks.jsonl", study.tasks)
        write_jsonl(staging / "key.jsonl", study.key)
        write_jsonl(staging / "assignments.jsonl", study.assignments)
        for name, rows in (extra_files or {}).items():
            write_jsonl(staging / name, rows)
        write_labelstudio(study, staging / "labelstudio")
    return folder


def read_study(folder: Path) -> Study:
    """A study folder as written by :func:`write_study`; checks the format and version."""
    folder = Path(folder)
    path = folder / "study.json"
    if not path.is_file():
        raise DatasetError(f"{folder}: not a study folder (no study.json)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    if manifest.get("format") != STUDY_FORMAT:
        raise DatasetError(f"{path}: not a wikihowqa study (format {manifest.get('format')!r})")
    if manifest.get("format_version") not in READ_FORMAT_VERSIONS:
        raise DatasetError(
            f"{path}: study format version {manifest.get('format_version')!r} is not supported "
            f"(this wikihowqa reads versions {', '.join(map(str, READ_FORMAT_VERSIONS))})"
        )
    files = manifest.get("files", {})

    def rows(name: str, default: str) -> list[dict[str, Any]]:
        p = folder / files.get(name, default)
        if p.is_file() and p.stat().st_size == 0:
            return []
        return [row for _, row in iter_jsonl(p)]

    return Study(
        manifest,
        rows("tasks", "tasks.jsonl"),
        rows("key", "key.jsonl"),
        rows("assignments", "assignments.jsonl"),
    )
