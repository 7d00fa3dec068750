"""The coverage report of a hydration: how much of the release's document part the archive gave back.

Coverage is counted over distinct release URLs, by the year of the capture the release names and by site
(host without ``www.``), and over questions (how many of each question's documents were recovered, and the
questions left with none). Written as ``coverage.json``, ``coverage.md`` and a figure, ``coverage.png``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from wikihowqa.collect.outcomes import KEPT
from wikihowqa.core.files import atomic_write, write_json

COVERAGE_JSON, COVERAGE_MD, COVERAGE_PNG = "coverage.json", "coverage.md", "coverage.png"
#: Sites shown by name in the report and figure; the rest are summed as "other sites".
TOP_SITES = 20


def _site(row: dict[str, Any]) -> str:
    url = row.get("url") or row["archive_url"]
    return (urlsplit(url).hostname or "?").lower().removeprefix("www.")


def _table(named: Counter[str], kept: Counter[str], key: str) -> list[dict[str, Any]]:
    return [
        {key: value, "named": n, "recovered": kept[value], "coverage": kept[value] / n}
        for value, n in (sorted(named.items()) if key == "year" else named.most_common())
    ]


@dataclass
class Tally:
    """Running counts of the coverage report, fed one status row and one question row at a time, so that
    a hydration of any size holds counters by year, site and recovered count, never its rows."""

    urls: int = 0
    kept: int = 0
    year_named: Counter[str] = field(default_factory=Counter)
    year_kept: Counter[str] = field(default_factory=Counter)
    site_named: Counter[str] = field(default_factory=Counter)
    site_kept: Counter[str] = field(default_factory=Counter)
    questions: int = 0
    recovered: Counter[int] = field(default_factory=Counter)
    with_none: list[int] = field(default_factory=list)

    def add_url(self, row: dict[str, Any]) -> None:
        kept = row["status"] == KEPT
        year = row["timestamp"][:4] if row.get("timestamp") else "?"
        site = _site(row)
        self.urls += 1
        self.kept += kept
        self.year_named[year] += 1
        self.year_kept[year] += kept
        self.site_named[site] += 1
        self.site_kept[site] += kept

    def add_question(self, row: dict[str, Any]) -> None:
        self.questions += 1
        self.recovered[row["recovered"]] += 1
        if row["recovered"] == 0:
            self.with_none.append(row["article_id"])


def coverage(tally: Tally) -> dict[str, Any]:
    by_site = _table(tally.site_named, tally.site_kept, "site")
    shown, rest = by_site[:TOP_SITES], by_site[TOP_SITES:]
    if rest:
        n, k = sum(r["named"] for r in rest), sum(r["recovered"] for r in rest)
        shown.append({"site": f"other sites ({len(rest)})", "named": n, "recovered": k, "coverage": k / n})
    return {
        "urls": {
            "named": tally.urls,
            "recovered": tally.kept,
            "coverage": tally.kept / tally.urls if tally.urls else 0.0,
        },
        "questions": {
            "total": tally.questions,
            "recovered_documents": dict(sorted(tally.recovered.items())),
            "with_none": list(tally.with_none),
        },
        "by_year": _table(tally.year_named, tally.year_kept, "year"),
        "by_site": shown,
        "sites": len(by_site),
    }


def _markdown(report: dict[str, Any], funnel: dict[str, Any]) -> str:
    urls = report["urls"]
    lines = [
        "# Hydration coverage",
        "",
        f"{urls['recovered']:,} of {urls['named']:,} distinct release URLs recovered "
        f"({urls['coverage']:.1%}).",
        "",
        "## Funnel",
        "",
        "| step | URLs |",
        "|---|---:|",
        *(f"| {k.replace('_', ' ')} | {v:,} |" for k, v in funnel["urls"].items()),
        "",
        "| capture served | URLs |",
        "|---|---:|",
        *(f"| {k} | {v:,} |" for k, v in funnel["captures"].items()),
        "",
        "| rejection | URLs |",
        "|---|---:|",
        *(f"| {k.replace('_', ' ')} | {v:,} |" for k, v in funnel["rejections"].items() if v),
        *(["| none | 0 |"] if not any(funnel["rejections"].values()) else []),
        "",
        "## Questions",
        "",
        "| documents recovered | questions |",
        "|---:|---:|",
        *(f"| {k} | {v:,} |" for k, v in report["questions"]["recovered_documents"].items()),
        "",
        f"Questions left with none: {len(report['questions']['with_none']):,}"
        + (
            f" ({', '.join(map(str, report['questions']['with_none'][:20]))}"
            + (" …" if len(report["questions"]["with_none"]) > 20 else "")
            + ")"
            if report["questions"]["with_none"]
            else ""
        ),
        "",
    ]
    for key, title in (("by_year", "year"), ("by_site", "site")):
        lines += [
            f"## By capture {title}" if key == "by_year" else "## By site",
            "",
            f"| {title} | named | recovered | coverage |",
            "|---|---:|---:|---:|",
        ]
        lines += [
            f"| {r[title]} | {r['named']:,} | {r['recovered']:,} | {r['coverage']:.1%} |" for r in report[key]
        ]
        lines.append("")
    lines.append(f"![coverage by capture year and by site]({COVERAGE_PNG})")
    return "\n".join(lines) + "\n"


def figure(report: dict[str, Any], path: Path) -> Path:
    """Two panels: coverage by the named capture's year, and by site (the most cited first)."""
    import matplotlib  # heavy: loaded only to draw

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1, 1.6]})
    for ax, rows, key in ((left, report["by_year"], "year"), (right, report["by_site"], "site")):
        labels = [str(r[key]) for r in rows]
        ax.bar(labels, [r["named"] for r in rows], color="#d0d7de", label="named")
        ax.bar(labels, [r["recovered"] for r in rows], color="#2f81f7", label="recovered")
        ax.set_title(f"by capture {key}" if key == "year" else "by site")
        ax.tick_params(axis="x", rotation=60 if key == "site" else 0, labelsize=7)
        if key == "site":
            plt.setp(ax.get_xticklabels(), ha="right", rotation_mode="anchor")
        ax.set_ylabel("release URLs")
    left.legend()
    fig.tight_layout()
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)
    return path


def write_report(folder: Path, tally: Tally, funnel: dict[str, Any]) -> dict[str, Any]:
    """``coverage.json``, ``coverage.md`` and ``coverage.png`` in ``folder``; returns the report."""
    folder.mkdir(parents=True, exist_ok=True)
    report = coverage(tally)
    write_json(folder / COVERAGE_JSON, report)
    with atomic_write(folder / COVERAGE_MD) as fh:
        fh.write(_markdown(report, funnel))
    figure(report, folder / COVERAGE_PNG)
    return report
