"""The human-evaluation step of ``wikihowqa demo``: a study from the demo dataset, simulated judgments,
and their analysis, all under ``<demo>/study``."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _dataset(out: Path) -> Path:
    for name in ("dataset", "real-examples"):
        folder = out / name
        if (folder / "qa.jsonl").is_file() or (folder / "qa.parquet").is_file():
            return folder
    from wikihowqa.errors import DatasetError

    raise DatasetError(f"{out}: no dataset/ (or real-examples/) folder to build a study from")


def demo_step(ctx: Any) -> None:
    """Deteriorate (paper protocol), build tasks (BM25 passages), simulate judgments, analyse."""
    from rich.console import Console

    from wikihowqa.humaneval.analysis import analyse, write_analysis
    from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
    from wikihowqa.humaneval.rank import make_ranker
    from wikihowqa.humaneval.review import write_review_template
    from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
    from wikihowqa.humaneval.tasks import StudySettings, build_study, write_study
    from wikihowqa.io import DatasetFolder, read_predictions, write_jsonl

    settings = ctx.settings
    seed = int(settings.get("seed", 0))
    folder = DatasetFolder(_dataset(ctx.out))
    examples = folder.examples()
    documents = folder.documents_by_article()
    predictions = []
    pred_dir = ctx.out / "predictions"
    if pred_dir.is_dir():
        for path in sorted(pred_dir.glob("*.jsonl")):
            predictions.extend(read_predictions(path))
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=seed))
    study = build_study(
        answers,
        examples,
        documents,
        predictions,
        make_ranker(settings.get("humaneval_ranker", "bm25")),
        StudySettings(seed=seed),
        study_id="wikihowqa-demo",
        sources={"dataset": str(folder.path), "predictions": str(pred_dir) if predictions else None},
    )
    target = ctx.out / "study"
    write_study(
        study, target, overwrite=True, extra_files={"deteriorated.jsonl": [a.to_dict() for a in answers]}
    )
    write_review_template(target / "review.csv", answers)
    judgments = simulate_judgments(study, SimulationSettings(seed=seed))
    write_jsonl(target / "judgments.jsonl", judgments)
    result = analyse(study, judgments)
    write_analysis(result, target)

    edits = sum(len(a.edits) for a in answers)
    ctx.record(
        "human-evaluation study (tasks, key, plan, Label Studio)",
        target,
        ", ".join(f"{p} {v['tasks']}" for p, v in study.manifest["parts"].items()) + " tasks",
    )
    ctx.record(
        "deteriorated answers",
        target / "deteriorated.jsonl",
        f"{sum(a.is_deteriorated for a in answers)} of {len(answers)}, {edits} edits",
    )
    ctx.record("simulated judgments + analysis", target / "analysis.json", f"{len(judgments)} judgments")
    trials = result.get("trials", {})
    line = "human evaluation (simulated assessors): "
    if "trial_a" in trials and "trial_b" in trials:
        test = trials["t_test_b_vs_a"].get("idr")
        line += (
            f"IDR trial A {trials['trial_a']['idr']['mean']:.2f}, "
            f"trial B {trials['trial_b']['idr']['mean']:.2f}"
            + (f" (t={test['t']:.2f}, p={test['p']:.3g})" if test else "")
        )
    if result.get("relevance"):
        rel = result["relevance"]
        line += f"; relevance {rel['rating']['mean']:.2f}, kappa {rel['cohen_kappa'] or 0:.2f}"
    for system, r in (result.get("preference") or {}).items():
        line += f"; {system} preferred {r['model']['share']:.0%} vs gold {r['gold']['share']:.0%}"
    Console().print(line, highlight=False)
