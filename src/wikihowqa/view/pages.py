"""The explorer's HTML pages, rendered by Jinja2 with autoescaping: every text is escaped, none is markup.

The overview and the leaderboard are whole here (tables and SVG charts of the stages' numbers); the
questions, question and side-by-side pages are shells their scripts fill from the data files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from wikihowqa.metaeval.report import agreement_rows
from wikihowqa.view.sources import Sources, page_type

#: Scripts and styles from the site's own files only; no inline script, no eval, nothing from elsewhere.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'"
)
PAGES = ("index.html", "leaderboard.html", "questions.html", "question.html", "compare.html")
_DECIMALS = {"BERTScore": 3, "Grounding": 3, "Judge: consistency": 2, "Judge: usefulness": 2}


def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("wikihowqa.view", "templates"),
        autoescape=select_autoescape(["html"], default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = _num
    env.filters["p"] = lambda value: "<0.001" if value < 0.001 else f"{value:.3f}"
    return env


def _num(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def bars(rows: Sequence[tuple[str, int | float]], width: int = 420) -> dict[str, Any]:
    """A horizontal bar chart's geometry (SVG attributes only: the CSP allows no inline styles)."""
    top = max((v for _, v in rows), default=0) or 1
    height = 22
    x0 = round(width * 0.4)
    room = width - x0 - 56  # the value's label after the longest bar
    return {
        "width": width,
        "height": height * len(rows) + 4,
        "bars": [
            {"label": label, "value": value, "y": 2 + k * height, "w": round(room * value / top, 1)}
            for k, (label, value) in enumerate(rows)
        ],
        "x0": x0,
    }


def _cell(metric: Mapping[str, Any] | None, label: str) -> dict[str, Any]:
    d = _DECIMALS.get(label, 1)
    if not metric or metric.get("mean") is None:
        return {"text": "–", "ci": "", "value": ""}
    text = f"{metric['mean']:.{d}f}"
    if metric.get("low") is not None and metric.get("high") is not None:
        ci = f"[{metric['low']:.{d}f}, {metric['high']:.{d}f}]"
    else:
        ci = ""
    return {"text": text, "ci": ci, "value": metric["mean"]}


def leaderboard_context(sources: Sources) -> dict[str, Any]:
    report = sources.evaluation
    if report is None:
        return {"report": None, "meta": _meta(sources.meta)}
    labels = list(report.get("scales") or {})
    rows = [
        {
            "system": row["system"],
            "missing": row.get("missing_predictions", 0),
            "cells": [_cell(row["metrics"].get(label), label) for label in labels],
        }
        for row in report.get("leaderboard", [])
    ]
    gold = report.get("gold_grounding")
    comparisons = [
        {
            **c,
            "d": _DECIMALS.get(c["metric"], 2),
            "significant": c["p_permutation"] < 0.05 and c["p_bootstrap"] < 0.05,
        }
        for c in report.get("comparisons", [])
    ]
    return {
        "report": report,
        "labels": labels,
        "rows": rows,
        "gold": None if not gold else [_cell(gold.get(label), label) for label in labels],
        "comparisons": comparisons,
        "metric_names": list(dict.fromkeys(c["metric"] for c in comparisons)),
        "confidence": round(100 * report.get("settings", {}).get("confidence", 0.95)),
        "meta": _meta(sources.meta),
    }


def _meta(result: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not result:
        return None
    columns, rows = agreement_rows(result)
    return {"columns": [c.replace("\n", " ") for c in columns], "rows": rows}


def _counts(values: Sequence[str]) -> list[tuple[str, int]]:
    found: dict[str, int] = {}
    for v in values:
        found[v] = found.get(v, 0) + 1
    return sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))


def _mapping(value: Any) -> Mapping[str, Any]:
    """A manifest's section, or nothing where a hand-made manifest has another shape."""
    return value if isinstance(value, Mapping) else {}


def overview_context(sources: Sources) -> dict[str, Any]:
    """The dataset card: ``stats.json``'s figures when there is one, else the counts read here."""
    stats = sources.stats or {}
    categories = (stats.get("categories") or {}).get("all")
    category_rows = (
        sorted(categories.items(), key=lambda kv: (-kv[1], kv[0]))
        if categories
        else _counts([e.category or "(none)" for e in sources.examples])
    )
    types = stats.get("page_types") or dict(
        _counts([page_type(d) for e in sources.examples for d in sources.documents.get(e.article_id, [])])
    )
    splits = _counts([e.split or "none" for e in sources.examples])
    manifest = sources.manifest
    funnel = _mapping(manifest.get("funnel"))
    # a build's funnel has stages of steps ({"articles": {...}, "references": {...}}); a flat one is one stage
    stages = {"items": funnel} if any(isinstance(v, int | float) for v in funnel.values()) else funnel
    funnels = [
        {"name": name, "chart": bars([(k, v) for k, v in steps.items() if isinstance(v, int | float)])}
        for name, steps in stages.items()
        if isinstance(steps, Mapping)
    ]
    rejections = _mapping(manifest.get("rejections"))
    documents = sum(len(sources.documents.get(e.article_id, [])) for e in sources.examples)
    return {
        "name": sources.dataset.path.name,
        "questions": len(sources.examples),
        "documents": documents,
        "splits": splits,
        "table1": stats.get("table1"),
        "table2": stats.get("table2"),
        "categories": bars(category_rows[:30]),
        "more_categories": max(0, len(category_rows) - 30),
        "page_types": bars(list(types.items())),
        "funnels": funnels,
        "rejections": sorted(((k, v) for k, v in rejections.items() if v), key=lambda kv: -kv[1]),
        "stage": manifest.get("stage"),
        "tool": _mapping(manifest.get("tool")).get("version"),
        "has_stats": sources.stats is not None,
    }


def render_pages(sources: Sources) -> dict[str, str]:
    """Every page's HTML, by file name."""
    env = environment()
    common = {
        "csp": CSP,
        "title": sources.dataset.path.name,
        "has_report": sources.evaluation is not None,
        "systems": sources.systems,
    }
    contexts: dict[str, dict[str, Any]] = {
        "index.html": overview_context(sources),
        "leaderboard.html": leaderboard_context(sources),
        "questions.html": {},
        "question.html": {},
        "compare.html": {},
    }
    return {
        name: env.get_template(name).render(**{"page": name, **common, **context})
        for name, context in contexts.items()
    }
