"""The human evaluation's steps on files, as the commands run them (``cli/humaneval.py`` only parses
options and prints): deteriorate a dataset, build a study, simulate judgments, analyze judgment files.

Each step refuses to replace an existing output unless asked (``overwrite``) and returns what it wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.readers import read_predictions
from wikihowqa.dataset.writers import write_jsonl
from wikihowqa.humaneval.analysis import (
    StudyAnalysis,
    analyze,
    find_study,
    read_judgment_files,
    write_analysis,
)
from wikihowqa.humaneval.deteriorate import (
    EDIT_TYPES,
    DeterioratedAnswer,
    DeteriorationSettings,
    deteriorate_examples,
    read_deteriorated,
    write_deteriorated,
)
from wikihowqa.humaneval.rank import Ranker
from wikihowqa.humaneval.review import apply_review, read_review, write_review_template
from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
from wikihowqa.humaneval.tasks import Study, StudySettings, build_study, read_study, write_study
from wikihowqa.humaneval.taxonomy import DEFAULT_TAXONOMY, Taxonomy

#: Where ``deteriorate`` writes when not told: inside the dataset, like every command's default output.
DETERIORATED_FILE = "deteriorated.jsonl"
REVIEW_FILE = "review.csv"


def _refuse_existing(path: Path, overwrite: bool) -> None:
    if Path(path).exists() and not overwrite:
        raise DatasetError(f"{path}: exists (use --overwrite to replace it)")


def edit_types(spec: str) -> tuple[str, ...]:
    """``--types``: comma-separated deterioration types; empty means all."""
    return tuple(t.strip() for t in spec.split(",") if t.strip()) or EDIT_TYPES


@dataclass(frozen=True)
class Deterioration:
    """What ``deteriorate`` wrote: the answers, their file, and the review template (``review_kept``:
    one was there already and is left as it is, since it may hold a reviewer's decisions)."""

    answers: list[DeterioratedAnswer]
    path: Path
    review: Path
    review_kept: bool

    @property
    def deteriorated(self) -> list[DeterioratedAnswer]:
        return [a for a in self.answers if a.is_deteriorated]

    @property
    def edits(self) -> int:
        return sum(len(a.edits) for a in self.answers)


def deteriorate_dataset(
    dataset: Path,
    settings: DeteriorationSettings,
    *,
    out: Path | None = None,
    split: str | None = None,
    overwrite: bool = False,
) -> Deterioration:
    """Deteriorate a dataset's answers into ``out`` (default: ``DATASET/deteriorated.jsonl``), with a
    review template beside it."""
    target = Path(out) if out is not None else Path(dataset) / DETERIORATED_FILE
    _refuse_existing(target, overwrite)
    answers = deteriorate_examples(DatasetFolder(dataset).examples(split), settings)
    write_deteriorated(target, answers)
    review = target.with_name(REVIEW_FILE)
    kept = review.exists()
    if not kept:
        write_review_template(review, answers)
    return Deterioration(answers, target, review, kept)


@dataclass(frozen=True)
class BuiltStudy:
    study: Study
    folder: Path
    review_counts: Any = None


def build_study_folder(
    dataset: Path,
    study_dir: Path,
    ranker: Ranker,
    settings: StudySettings,
    *,
    deteriorated: Path | None = None,
    review: Path | None = None,
    allow_unreviewed: bool = False,
    rejected: str = "drop",
    predictions: Sequence[Path] = (),
    error_predictions: Sequence[Path] = (),
    taxonomy: Taxonomy = DEFAULT_TAXONOMY,
    overwrite: bool = False,
) -> BuiltStudy:
    """The study of a dataset: its (given or freshly seeded) deteriorated answers after the review,
    the systems' predictions for the A/B part, written to ``study_dir``."""
    folder = DatasetFolder(dataset)
    examples = folder.examples()
    answers = (
        read_deteriorated(deteriorated)
        if deteriorated
        else deteriorate_examples(examples, DeteriorationSettings(seed=settings.seed))
    )
    counts = None
    if review:
        answers, counts = apply_review(
            answers,
            read_review(review),
            source=str(review),
            require_all=not allow_unreviewed,
            rejected=rejected,
        )
    preds = [p for path in predictions for p in read_predictions(path)]
    error_preds = [p for path in error_predictions for p in read_predictions(path)]
    study = build_study(
        answers,
        examples,
        folder.documents_by_article(),
        preds,
        ranker,
        settings,
        sources={
            "dataset": str(dataset),
            "deteriorated": str(deteriorated or ""),
            "review": str(review or ""),
            "predictions": [str(p) for p in predictions],
            "error_predictions": [str(p) for p in error_predictions],
        },
        error_predictions=error_preds,
        taxonomy=taxonomy,
    )
    write_study(
        study,
        study_dir,
        overwrite=overwrite,
        extra_files={DETERIORATED_FILE: [a.to_dict() for a in answers]},
    )
    return BuiltStudy(study, Path(study_dir), counts)


def simulate_to(
    study_dir: Path, settings: SimulationSettings, *, out: Path | None = None, overwrite: bool = False
) -> tuple[Path, int]:
    """Simulated judgments of a study into ``out`` (default: ``STUDY/judgments.jsonl``)."""
    target = Path(out) if out is not None else Path(study_dir) / "judgments.jsonl"
    _refuse_existing(target, overwrite)
    judgments = simulate_judgments(read_study(study_dir), settings)
    write_jsonl(target, judgments)
    return target, len(judgments)


def analyze_files(
    judgments: Sequence[Path],
    *,
    study: Path | None = None,
    out: Path | None = None,
    min_common: int = 2,
    overwrite: bool = False,
) -> tuple[StudyAnalysis, list[Path]]:
    """Analyze judgment files (judgments.jsonl and/or Label Studio exports) of one study; the report goes
    to ``out`` (default: the judgments file's folder; with several files, the study folder)."""
    if not judgments:
        raise SettingsError("give at least one judgments file")
    folder = find_study(judgments[0], study)
    loaded = read_study(folder)
    rows = read_judgment_files(judgments, loaded.manifest["study_id"])
    result = analyze(loaded, rows, min_common=min_common)
    counts = result.judgments
    if not counts.accepted:  # an empty analysis with exit 0 would pass for a study nobody judged well
        why = [f"rejected {k}: {v}" for k, v in counts.rejected_by_reason.items()]
        if counts.unknown_task:
            why.append(f"{counts.unknown_task} name a task study {loaded.manifest['study_id']!r} lacks")
        raise DatasetError(
            f"{', '.join(str(p) for p in judgments)}: no judgment left to analyze of {counts.total}"
            f" ({'; '.join(why) or 'no judgments'}); study folder: {folder}"
        )
    target = out or (Path(judgments[0]).parent if len(judgments) == 1 else folder)
    _refuse_existing(Path(target) / "analysis.json", overwrite)
    return result, write_analysis(result, target)


__all__ = [
    "DETERIORATED_FILE",
    "BuiltStudy",
    "Deterioration",
    "analyze_files",
    "build_study_folder",
    "deteriorate_dataset",
    "edit_types",
    "simulate_to",
]
