"""Describe a dataset: the paper's Tables 1–2, categories, coverage/density/compression, figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEMO_DATASET = "dataset"
DEMO_REAL_EXAMPLES = "real-examples"
DEMO_REPORT = "report"


def demo_step(ctx: Any) -> None:
    """Demo: split the demo corpus (``ctx.out/dataset``), then describe it into ``ctx.out/report``.

    The imported real instances (``ctx.out/real-examples``, already split by their authors) are
    described too, into ``ctx.out/report/real-examples``.
    """
    from wikihowqa.errors import DatasetError
    from wikihowqa.io import DatasetFolder
    from wikihowqa.split import SplitSettings, split_dataset
    from wikihowqa.stats.report import REPORT_MD, describe

    dataset = DatasetFolder(Path(ctx.out) / DEMO_DATASET)
    if not dataset.path.is_dir():
        raise DatasetError(f"{dataset.path}: no demo dataset to split (the build step makes it)")
    result = split_dataset(dataset, SplitSettings())
    counts = result.counts
    ctx.record(
        "leakage-free split (HDBSCAN clusters to train)",
        dataset.qa_path,
        f"{result.clusters} clusters; train {counts['train']}, validation {counts['validation']}, "
        f"test {counts['test']}",
    )
    report_dir = Path(ctx.out) / DEMO_REPORT
    report = describe(dataset, report_dir)
    audit = report["audit"]["splits"]["all"] if report["audit"] else None
    ctx.record(
        "dataset statistics (Tables 1–2, fragments, audit, figures)",
        report_dir / REPORT_MD,
        f"{report['table1']['all']['questions']} questions"
        + (f", {audit['above_threshold']} evaluation questions above the audit threshold" if audit else ""),
    )
    real = Path(ctx.out) / DEMO_REAL_EXAMPLES
    if real.is_dir():
        real_report = describe(DatasetFolder(real), report_dir / DEMO_REAL_EXAMPLES)
        ctx.record(
            "statistics of the real release instances",
            report_dir / DEMO_REAL_EXAMPLES / REPORT_MD,
            f"{real_report['table1']['all']['questions']} questions",
        )
