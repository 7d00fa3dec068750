"""The ``errors`` parts' tasks: systems' real answers, with deteriorated answers mixed in as controls.

Both parts show the same answers, ``errors_a`` without passages and ``errors_b`` with the paper's
highlighted supporting passages (as trial A and B do). A task's id ends in a keyed digest of where its
answer came from (a system, or a planted control), so neither the id nor anything else the page gets says
which answers are controls; that, the system's name and the planted edits (known spans of known types: the
positive control) are in ``key.jsonl`` only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from wikihowqa.core.records import Example, Prediction
from wikihowqa.humaneval.deteriorate import DeterioratedAnswer
from wikihowqa.humaneval.errorspans import task_error_types
from wikihowqa.humaneval.taxonomy import Taxonomy
from wikihowqa.humaneval.text import answer_block

#: The error-span parts (issue 35), built when asked for: the same answers without and with passages.
ERROR_PARTS: tuple[str, ...] = ("errors_a", "errors_b")
#: ``tasks.StudySettings`` and ``tasks.PassagePicker``, which build on this module (so it names them only)
StudySettings = Any
PassagePicker = Any

#: ``key.jsonl``'s ``source`` of an errors task: a system's answer, or a deteriorated control.
SYSTEM, CONTROL = "system", "control"

ErrorTask = tuple[str, str, int, str, str | None, dict[str, Any], dict[str, Any]]


def errors_secret(
    seed: int, answers: Sequence[DeterioratedAnswer], predictions: Sequence[Prediction]
) -> bytes:
    """The key of the errors tasks' ids: a digest of the seed and every answer shown, so the same inputs
    rebuild the same study while an assessor, who sees a few answers, cannot recompute it."""
    h = hashlib.sha256(f"wikihowqa-errors:{seed}".encode())
    for p in sorted(predictions, key=lambda p: (p.system, p.article_id)):
        h.update(json.dumps([p.system, p.article_id, p.answer]).encode())
    for a in sorted(answers, key=lambda a: a.article_id):
        h.update(json.dumps([a.article_id, a.deteriorated]).encode())
    return h.digest()


def errors_task_id(secret: bytes, part: str, article_id: int, source: str) -> str:
    """``<part>:<article>:<12 hex>``; the same digest in both parts, so one answer's two tasks pair up."""
    digest = hmac.new(secret, f"{article_id}:{source}".encode(), hashlib.sha256).hexdigest()
    return f"{part}:{article_id}:{digest[:12]}"


def pick_error_answers(
    answers: Sequence[DeterioratedAnswer],
    examples: Mapping[int, Example],
    predictions: Sequence[Prediction],
    settings: StudySettings,
) -> tuple[list[Prediction], list[DeterioratedAnswer]]:
    """The systems' answers (``error_questions`` questions, the same for every system where they share
    them) and the controls (``error_controls`` deteriorated answers), seeded, part-independent."""
    rng = random.Random(f"{settings.seed}:errors")
    answered: dict[str, dict[int, Prediction]] = defaultdict(dict)
    for p in predictions:
        if p.article_id in examples and p.answer.strip():
            answered[p.system][p.article_id] = p
    chosen: list[Prediction] = []
    if answered:
        common = sorted(set.intersection(*(set(v) for v in answered.values())))
        shared = rng.sample(common, min(settings.error_questions, len(common)))
        for system in sorted(answered):
            own = sorted(set(answered[system]) - set(shared))
            extra = rng.sample(own, min(max(settings.error_questions - len(shared), 0), len(own)))
            chosen.extend(answered[system][a] for a in sorted([*shared, *extra]))
    planted = sorted((a for a in answers if a.is_deteriorated), key=lambda a: a.article_id)
    controls = rng.sample(planted, min(settings.error_controls, len(planted)))
    return chosen, sorted(controls, key=lambda a: a.article_id)


def error_tasks(
    answers: Sequence[DeterioratedAnswer],
    examples: Mapping[int, Example],
    predictions: Sequence[Prediction],
    picker: Callable[[int], PassagePicker],
    taxonomy: Taxonomy,
    settings: StudySettings,
) -> Iterator[ErrorTask]:
    """``(part, task_id, article_id, question, category, body, key)`` of each task of the errors parts in
    ``settings.parts``; ``errors_b`` shows ``picker``'s passages."""
    chosen, controls = pick_error_answers(answers, examples, predictions, settings)
    secret = errors_secret(settings.seed, controls, chosen)
    for part in (p for p in ERROR_PARTS if p in settings.parts):
        passages = part == "errors_b"
        types = task_error_types(taxonomy, passages)

        def body(article_id: int, text: str) -> dict[str, Any]:
            shown = picker(article_id).for_answer(text) if passages else None  # noqa: B023 - used at once
            return {"answer": answer_block(text), "passages": shown, "error_types": types}  # noqa: B023

        for p in chosen:
            ex = examples[p.article_id]
            task_id = errors_task_id(secret, part, p.article_id, f"{SYSTEM}:{p.system}")
            key = {"source": SYSTEM, "system": p.system, "deteriorated": False, "edits": []}
            yield part, task_id, p.article_id, ex.question, ex.category, body(p.article_id, p.answer), key
        for a in controls:
            task_id = errors_task_id(secret, part, a.article_id, CONTROL)
            key = {
                "source": CONTROL,
                "system": None,
                "deteriorated": True,
                "edits": [e.to_dict() for e in a.edits],
                "edit_error_types": [list(taxonomy.names_for_edit(e.type, passages)) for e in a.edits],
            }
            yield part, task_id, a.article_id, a.question, a.category, body(a.article_id, a.deteriorated), key


def error_manifest(
    predictions: Sequence[Prediction], taxonomy: Taxonomy, settings: StudySettings
) -> dict[str, Any]:
    """What ``study.json`` adds for the errors parts: the taxonomy in force and the systems shown."""
    if not any(p in settings.parts for p in ERROR_PARTS):
        return {}
    return {"error_taxonomy": taxonomy.to_dict(), "error_systems": sorted({p.system for p in predictions})}


__all__ = [
    "CONTROL",
    "SYSTEM",
    "error_manifest",
    "error_tasks",
    "errors_secret",
    "errors_task_id",
    "pick_error_answers",
]
