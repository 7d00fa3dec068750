"""What an export checks in the gold data before it publishes it.

An empty gold answer makes every model score ROUGE 0 on that question (lm-eval averages it in silently),
so an export refuses it unless asked; a question with no documents gets no passages in its prompt and
nothing to be grounded in, which is allowed but counted, so that the user hears of both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.records import Example

ALLOW_OPTION = "--allow-empty-answers"


@dataclass(frozen=True)
class GoldCheck:
    empty_answers: tuple[int, ...]  # article ids of questions whose gold answer is empty or blank
    without_documents: tuple[int, ...]  # article ids of questions with no document in the document part

    def warnings(self) -> list[str]:
        """One line per finding, with its count (empty when all is well)."""
        lines = []
        if self.empty_answers:
            lines.append(
                f"{_questions(self.empty_answers)} an empty gold answer ({_ids(self.empty_answers)}): "
                "every model scores 0 on them"
            )
        if self.without_documents:
            lines.append(
                f"{_questions(self.without_documents)} no documents ({_ids(self.without_documents)}): "
                "no passages to prompt with or ground in"
            )
        return lines


def _questions(ids: Sequence[int]) -> str:
    return "1 question has" if len(ids) == 1 else f"{len(ids)} questions have"


def _ids(ids: Sequence[int], shown: int = 5) -> str:
    more = f", … {len(ids) - shown} more" if len(ids) > shown else ""
    return "article_id " + ", ".join(map(str, ids[:shown])) + more


def check_gold(examples: Iterable[Example], documents: Mapping[int, Sequence[Any]]) -> GoldCheck:
    """The questions among ``examples`` with an empty gold answer, and those without documents."""
    examples = list(examples)
    return GoldCheck(
        empty_answers=tuple(e.article_id for e in examples if not e.answer.strip()),
        without_documents=tuple(e.article_id for e in examples if not documents.get(e.article_id)),
    )


def refuse_empty_answers(check: GoldCheck, dataset: Path, *, allow: bool) -> None:
    """Stop an export that would publish an empty gold answer, unless the user allowed it."""
    if check.empty_answers and not allow:
        ids = check.empty_answers
        raise DatasetError(
            f"{dataset}: {_questions(ids)} an empty gold answer ({_ids(ids)}); every model would score 0 "
            f"on them: fix the dataset, or pass {ALLOW_OPTION} to export them anyway"
        )


__all__ = ["ALLOW_OPTION", "GoldCheck", "check_gold", "refuse_empty_answers"]
