"""The evaluate stage as one call: predictions files in, the report folder written, the report returned.

The command line (``wikihowqa evaluate``) adds progress bars, an executor and the terminal table around
the same three steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from wikihowqa.evaluate.pipeline import EvaluationSettings, check_request, evaluate
from wikihowqa.evaluate.report import EvaluationReport, write_report

#: Where the report goes inside the dataset folder when no ``out`` is given.
REPORT_DIR = "report"


def evaluate_predictions(
    dataset: Path,
    predictions: Sequence[Path],
    settings: EvaluationSettings | None = None,
    *,
    out: Path | None = None,
) -> EvaluationReport:
    """Score ``predictions`` (files of one or more systems) on ``dataset``'s questions; write the report
    (``evaluation.json``, ``per_question.jsonl``, Markdown, chart) to ``out`` (default ``DATASET/report``)."""
    settings = settings or EvaluationSettings()
    paths = [Path(p) for p in predictions]
    check_request(paths, settings)
    target = Path(out) if out is not None else Path(dataset) / REPORT_DIR
    return write_report(evaluate(Path(dataset), paths, settings, cache_dir=target), target)
