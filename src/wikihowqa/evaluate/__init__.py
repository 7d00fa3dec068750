"""The evaluate stage: ROUGE and BERTScore as their references compute them, grounding against the
question's documents, paired significance tests, lower-bound systems, and the report.

Modules: ``rouge``, ``bertscore``, ``grounding``, ``significance``, ``lower_bounds`` (metrics and
systems, pure functions); ``pipeline`` (files in, per-question scores out, cached); ``report`` (files).
"""

from __future__ import annotations

from typing import Any

#: Support at which an answer sentence counts as grounded (how it was chosen: ``grounding.GroundingConfig``).
#: Here, not in ``grounding``, so the CLI's help can quote it without importing numpy at startup.
GROUNDING_THRESHOLD = 0.37


def demo_step(ctx: Any) -> None:
    """Demo: score every ``predictions/*.jsonl`` plus the two lower bounds; write ``report/evaluation.*``.

    Uses the bundled MiniLM for BERTScore (the demo runs offline); the report says so.
    """
    from rich.console import Console

    from wikihowqa.evaluate.bertscore import BertScoreConfig
    from wikihowqa.evaluate.pipeline import EvaluationSettings, evaluate
    from wikihowqa.evaluate.report import leaderboard_table, write_report
    from wikihowqa.io import DatasetFolder

    dataset = ctx.out / "dataset"
    if not dataset.is_dir():  # the demo corpus is not built yet: the imported real instances stand in
        dataset = ctx.out / "real-examples"
    splits = {e.split for e in DatasetFolder(dataset).examples()}
    split = next((s for s in ("test", "validation", "train") if s in splits), "test")
    predictions = sorted((ctx.out / "predictions").glob("*.jsonl"))
    settings = EvaluationSettings(split=split, bertscore=BertScoreConfig(model="minilm"), lower_bounds=True)
    report_dir = ctx.out / "report"
    evaluation = evaluate(dataset, predictions, settings, cache_dir=report_dir)
    report = write_report(evaluation, report_dir)
    ctx.record(
        "evaluation report (leaderboard, per-question scores, chart)",
        report_dir / "evaluation.md",
        f"{len(report['leaderboard'])} systems × {report['questions']} {split} questions",
    )
    console = Console()
    console.print(leaderboard_table(report, report_dir))
    note = (report["metrics"].get("bertscore") or {}).get("note")
    if note:
        console.print(f"BERTScore: {note}", markup=False, highlight=False)
