"""The analysis of a study as compact terminal tables (rich): what ``wikihowqa demo`` prints after its
simulated study; the full report is ``analysis.md`` (``humaneval.analysis``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich import box
from rich.table import Table

from wikihowqa.humaneval.analysis import fmt, idr_rows
from wikihowqa.humaneval.analysis.errorreport import ci_note, profile_rows


def _share(p: Mapping[str, Any]) -> str:
    if p["share"] is None:
        return "–"
    low, high = p["ci95"]
    return f"{p['share']:.0%} [{low:.0%}–{high:.0%}]"


def analysis_tables(result: Mapping[str, Any]) -> list[Table]:
    """The paper's numbers from an analysis, as compact tables for a terminal: IDR by edit type per
    trial with Student's t-test, relevance with its agreement, and preference shares against gold with
    95% Wilson intervals and the sign test. The full report is analysis.md."""
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
    errors = result.get("error_spans")
    if errors:
        tables.append(error_profile_table(errors))
    return tables


def error_profile_table(errors: Mapping[str, Any]) -> Table:
    """Errors per 100 answer words by system and part (the ``errors`` parts; n: answers), intervals only
    where a row rests on 10 or more answers; the caption says which rows have none, and if simulated."""
    sim = " (simulated assessors)" if errors.get("simulated") else ""
    table = Table(title=f"Error profile: errors per 100 answer words{sim}", caption=ci_note(errors),
                  box=box.SIMPLE_HEAD)  # fmt: skip
    for column in ("part", "system", "n", "errors", "major", "critical", "≥1 major"):
        left = column in ("part", "system")
        table.add_column(column, justify="left" if left else "right", no_wrap=left)
    for part, p in errors["parts"].items():
        header, rows = profile_rows(p)
        shown = ("system", "answers", "errors/100 words", "major", "critical", "≥1 major")
        for r in rows:
            table.add_row(part, *(r[header.index(c)] for c in shown))
    return table
