"""The human-evaluation step of ``wikihowqa demo``: a study from the demo dataset, simulated judgments,
and their analysis, all under ``<demo>/study``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.table import Table


def _dataset(out: Path) -> Path:
    for name in ("dataset", "real-examples"):
        folder = out / name
        if (folder / "qa.jsonl").is_file() or (folder / "qa.parquet").is_file():
            return folder
    from wikihowqa.errors import DatasetError

    raise DatasetError(f"{out}: no dataset/ (or real-examples/) folder to build a study from")


def demo_step(ctx: Any) -> None:
    """Deteriorate (paper protocol), build tasks (BM25 passages), simulate judgments, analyse and
    print the analysis's main tables."""
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
    console = Console()
    for table in analysis_tables(result):
        console.print(table)


def _share(p: Mapping[str, Any]) -> str:
    if p["share"] is None:
        return "–"
    low, high = p["ci95"]
    return f"{p['share']:.0%} [{low:.0%}–{high:.0%}]"


def analysis_tables(result: Mapping[str, Any]) -> list[Table]:
    """The paper's numbers from an analysis, as compact tables for a terminal: IDR by edit type per
    trial with Student's t-test, relevance with its agreement, and preference shares against gold with
    95% Wilson intervals and the sign test. The full report is analysis.md."""
    from rich import box

    from wikihowqa.humaneval.analysis import fmt, idr_rows

    tables = []
    trials = result.get("trials") or {}
    parts = [p for p in ("trial_a", "trial_b") if p in trials]
    if parts:
        idr = Table(title="Inconsistency detection rate (simulated assessors)", box=box.SIMPLE_HEAD)
        idr.add_column("edits")
        for p in parts:
            idr.add_column(f"trial {p[-1].upper()}", justify="right")
        idr.add_column("t (B vs A)", justify="right")
        idr.add_column("p", justify="right")

        def row(name: str, cells: list[str], test: Mapping[str, Any] | None) -> None:
            idr.add_row(name, *cells, fmt(test and test["t"]), fmt(test and test["p"], 3))

        for name, cells, test in idr_rows(trials, parts):
            row(name, cells, test)
        fp = [trials[p]["false_positives"] for p in parts]
        idr.add_row("false positives", *[f"{x['count']}/{x['n']}" for x in fp], "", "")
        tables.append(idr)
    rel = result.get("relevance")
    if rel:
        table = Table(title="Document relevance", box=box.SIMPLE_HEAD)
        for column in ("mean (0–4)", "Cohen's kappa", "Krippendorff's alpha", "highlight overlap"):
            table.add_column(column, justify="right")
        table.add_row(
            f"{fmt(rel['rating']['mean'])} (n={rel['rating']['n']})",
            f"{fmt(rel['cohen_kappa'])} ({rel['cohen_kappa_pairs']} pairs)",
            fmt(rel["krippendorff_alpha_ordinal"]),
            fmt(rel["highlight_overlap"]["mean"]),
        )
        tables.append(table)
    pref = result.get("preference")
    if pref:
        table = Table(title="A/B preference against gold (95% CI)", box=box.SIMPLE_HEAD)
        table.add_column("system")
        table.add_column("n", justify="right")
        for column in ("model", "tie", "gold", "sign test p"):
            table.add_column(column, justify="right")
        for system, r in pref.items():
            table.add_row(
                system,
                str(r["n"]),
                *(_share(r[o]) for o in ("model", "tie", "gold")),
                fmt(r["sign_test_p"], 3),
            )
        tables.append(table)
    return tables
