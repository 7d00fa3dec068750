"""The meta-evaluation stage: a study folder and an evaluation folder in, agreement data out; and a
study's answers written as predictions files so ``evaluate`` can score them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError
from wikihowqa.dataset.writers import write_predictions
from wikihowqa.humaneval.analysis import read_judgments, refuse_foreign
from wikihowqa.humaneval.tasks import read_study
from wikihowqa.metaeval.agreement import MetaSettings, meta_evaluate
from wikihowqa.metaeval.detectors import detectors, read_grounding
from wikihowqa.metaeval.join import join, read_scores, study_predictions

ANSWERS_DIR = "answers"
EVALUATION_DIR = "evaluation"


def _slug(system: str) -> str:
    return re.sub(r"[^A-Za-z0-9+._-]+", "-", system).strip("-") or "system"


def write_study_predictions(study_dir: Path, out_dir: Path) -> list[Path]:
    """The answers a study showed (and the originals of its deteriorated ones) as predictions files."""
    by_system = study_predictions(read_study(study_dir))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for system, predictions in sorted(by_system.items()):
        path = out_dir / f"{_slug(system)}.jsonl"
        write_predictions(path, predictions)
        paths.append(path)
    return paths


def judgments_path(study_dir: Path, manifest: dict[str, Any], given: Path | None = None) -> Path:
    """The judgments file: given, else the one the study manifest names (``judgments.jsonl``)."""
    if given is not None:
        return Path(given)
    path = Path(study_dir) / manifest.get("files", {}).get("judgments", "judgments.jsonl")
    if not path.is_file():
        hint = (
            " (the study server holds them: run `wikihowqa export-judgments` first)"
            if (Path(study_dir) / "server.sqlite").is_file()
            else ""
        )
        raise DatasetError(f"{path}: no judgments file{hint}")
    return path


def meta_evaluate_folders(
    study_dir: Path,
    report_dir: Path,
    settings: Any = None,
    *,
    judgments: Path | None = None,
) -> dict[str, Any]:
    """Join the study's judgments with the evaluation report's per-answer scores and compute every
    agreement statistic (``agreement.meta_evaluate``)."""
    settings = settings or MetaSettings()
    study = read_study(study_dir)
    path = judgments_path(study_dir, study.manifest, judgments)
    rows = read_judgments(path)
    refuse_foreign(rows, study.manifest.get("study_id"), path)
    scores, columns = read_scores(report_dir)
    joined = join(study, rows, scores, columns, controls=settings.controls, seed=settings.seed)
    found = detectors(study, rows, read_grounding(report_dir), scores, settings)
    if not joined.answers and not joined.preferences and found is None:
        unknown = joined.judgments["unknown_task"]
        lacking = f", {unknown} of tasks the study lacks" if unknown else ""
        raise DatasetError(
            f"{path}: no accepted judgments of answer or A/B tasks to meta-evaluate"
            f" ({joined.judgments['total']} judgment(s){lacking}); study folder: {study_dir}"
        )
    if not any(not m.control for m in joined.metrics):
        raise DatasetError(
            f"{report_dir}: the evaluation report has none of the metrics meta-evaluation knows"
        )
    needed = {(a.article_id, a.text) for a in joined.answers} | {
        (p.article_id, p.model_text) for p in joined.preferences
    }
    if needed and all(k not in scores for k in needed):
        raise DatasetError(
            f"{report_dir}: the evaluation scored none of the study's answers; score them first:"
            f" wikihowqa study-predictions {study_dir} && wikihowqa evaluate DATASET"
            f" {Path(study_dir) / 'predictions'}/*.jsonl --split all --out {report_dir}"
        )
    result = meta_evaluate(joined, settings)
    if found is not None:
        result["detectors"] = found
    result["sources"] = {"study": str(study_dir), "report": str(report_dir)}
    return result
