"""Evaluating the QA part alone: the public release has no documents, and ROUGE and BERTScore need none.

Grounding scores answers against the documents; on a dataset without them it is left out with one line
that says so and how to get them (``wikihowqa hydrate``), instead of failing on the missing file. A metric
the user asked for by name (the judge, the lower bounds' copied passages) still needs them: an error.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.dataset.folder import DatasetFolder

if TYPE_CHECKING:
    from wikihowqa.evaluate.pipeline import EvaluationSettings


def has_documents(dataset: Path) -> bool:
    """Whether the dataset folder holds a document part (documents.jsonl or .parquet): ``import --qa``
    alone writes an empty documents.jsonl, which holds none."""
    try:
        path = DatasetFolder(Path(dataset)).documents_path
        return path.is_file() and path.stat().st_size > 0
    except DatasetError:
        if not Path(dataset).is_dir():
            raise
        return False


def scorable(dataset: Path, settings: EvaluationSettings) -> tuple[EvaluationSettings, str | None]:
    """``settings`` with what needs documents left out when ``dataset`` has none, and the line saying so
    (None when nothing was left out)."""
    if has_documents(dataset):
        return settings, None
    named = (("--judge", settings.judge), ("--lower-bounds", settings.lower_bounds))
    asked = [name for name, on in named if on]
    if asked:
        raise SettingsError(
            f"{dataset}: no documents.jsonl, which {' and '.join(asked)} need (the passages): "
            f"`wikihowqa hydrate {dataset}` fetches them"
        )
    if settings.grounding is None:
        return settings, None
    kept = "ROUGE and BERTScore" if settings.bertscore is not None else "ROUGE"
    note = (
        f"{dataset} has no documents: scored {kept}; skipped grounding, which needs them "
        f"(`wikihowqa hydrate {dataset}` fetches them; --no-grounding silences this note)"
    )
    return replace(settings, grounding=None), note
