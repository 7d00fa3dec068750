"""The ``error_spans`` section as tables (Markdown, the demo's terminal table) and a figure.

Intervals are shown only where a row rests on at least :data:`MIN_CI_ANSWERS` answers: a percentile
bootstrap over fewer clusters is too rough to read, and the table says so. Every table and the figure
of simulated judgments carries the word "simulated".
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

MIN_CI_ANSWERS = 10


def _num(value: Any, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def estimate_cell(e: Mapping[str, Any] | None, answers: int, digits: int = 2) -> str:
    """``value [low, high]``; the value alone where fewer than MIN_CI_ANSWERS answers or no interval."""
    if not e or e.get("value") is None:
        return "–"
    if answers < MIN_CI_ANSWERS or e.get("low") is None:
        return _num(e["value"], digits)
    return f"{_num(e['value'], digits)} [{_num(e['low'], digits)}, {_num(e['high'], digits)}]"


def profile_rows(part: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of one part's error profile: per system, answers, judgments, errors per 100 words
    (all, minor, major, critical), the share of judgments with a major error and the top types."""
    header = ["system", "answers", "judgments", "errors/100 words", "minor", "major", "critical",
              "≥1 major", "most marked types"]  # fmt: skip
    rows = []
    for system, p in part["systems"].items():
        n = p["answers"]
        sev = p["by_severity"]
        top = sorted(p["by_type"].items(), key=lambda kv: -(kv[1]["value"] or 0))[:3]
        rows.append(
            [
                system,
                str(n),
                str(p["judgments"]),
                estimate_cell(p["errors_per_100_words"], n),
                *(estimate_cell(sev.get(v), n) for v in ("minor", "major", "critical")),
                estimate_cell(p["major_share"], n),
                ", ".join(f"{t} {_num(e['value'], 1)}" for t, e in top) or "–",
            ]
        )
    return header, rows


def ci_note(section: Mapping[str, Any]) -> str:
    """What the table's intervals are, and where there are none."""
    small = sorted(
        {
            s
            for part in section["parts"].values()
            for s, p in part["systems"].items()
            if p["answers"] < MIN_CI_ANSWERS
        }
    )
    b = section["bootstrap"]
    note = f"[low, high]: {b['confidence']:.0%} {b['interval']}, {b['resamples']} resamples"
    if small:
        note += f"; no interval for {', '.join(small)}: fewer than {MIN_CI_ANSWERS} answers"
    return note


def _share(p: Mapping[str, Any]) -> str:
    return f"{_num(p['share'])} ({p['count']}/{p['n']})"


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|---" * len(header) + "|",
        *("| " + " | ".join(r) + " |" for r in rows),
    ]


def error_spans_markdown(section: Mapping[str, Any]) -> list[str]:
    """The report's ``## Error spans`` section."""
    title = "## Error spans" + (" (simulated assessors)" if section.get("simulated") else "")
    lines = [title, ""]
    if section.get("simulated"):
        lines += [f"Every figure here is simulated: {section['note']}.", ""]
    for name, part in section["parts"].items():
        header, rows = profile_rows(part)
        lines += [
            f"### {name}: errors per 100 answer words",
            "",
            *_md_table(header, rows),
            "",
            ci_note(section),
            "",
        ]
        a = part["agreement"]
        lines += [
            f"Agreement ({a['pairs']} pairs of assessors on one answer): token-level span F1"
            f" {_num(a['span_f1'])},"
            f" typed {_num(a['typed_span_f1'])}; Krippendorff's alpha {_num(a['krippendorff_alpha'])}"
            f" ({a['alpha_variant']}; {a['units']} units), error vs none {_num(a['alpha_binary'])}.",
            "",
        ]
        if a["per_type"]:
            lines += _md_table(
                ["type", "F1", "marked words"],
                [[t, _num(v["f1"]), str(v["marked_words"])] for t, v in a["per_type"].items()],
            )
            lines.append("")
        if part.get("planted"):
            rows = [
                [
                    t,
                    str(v["edits"]),
                    _share(v["recall"]),
                    _share(v["type_accuracy"]),
                ]
                for t, v in part["planted"].items()
            ]
            lines += ["Planted edits (positive control):", "", *_md_table(["edit type", "edits", "recall",
                      "type accuracy"], rows), ""]  # fmt: skip
        cov = part["coverage"]
        if cov["spans"]:
            rows = [
                [t, str(v["spans"]), _num(v["share"]), ", ".join(v["planted_by"]) or "none (not covered)"]
                for t, v in cov["by_type"].items()
            ]
            lines += [
                f"Real answers' spans by type against the deteriorations: {cov['spans']} spans,"
                f" {_num(cov['uncovered']['share'])} of a type no deterioration plants"
                f" ({', '.join(cov['uncovered_types']) or 'none'}).",
                "",
                *_md_table(["type", "spans", "share", "planted by"], rows),
                "",
            ]
    return lines


def error_profile_figure(section: Mapping[str, Any], path: Path) -> Path:
    """Errors per 100 words by type, one bar group per system, one panel per part."""
    from wikihowqa.humaneval.figures import _pyplot

    plt = _pyplot()  # type: ignore[no-untyped-call]
    parts = list(section["parts"])
    fig, axes = plt.subplots(len(parts), 1, figsize=(10, 3.4 * len(parts)), squeeze=False)
    for ax, name in zip(axes[:, 0], parts, strict=True):
        systems = section["parts"][name]["systems"]
        types = sorted({t for p in systems.values() for t in p["by_type"]})
        width = 0.8 / max(len(systems), 1)
        for k, (system, p) in enumerate(systems.items()):
            xs = [x + (k - (len(systems) - 1) / 2) * width for x in range(len(types))]
            values = [p["by_type"].get(t, {}).get("value") or 0.0 for t in types]
            ax.bar(xs, values, width, label=system)
        ax.set_xticks(range(len(types)), types, rotation=25, ha="right", fontsize=8)
        ax.set_ylabel("errors per 100 words")
        ax.set_title(f"{name}" + (" (simulated assessors)" if section.get("simulated") else ""))
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


__all__ = ["MIN_CI_ANSWERS", "ci_note", "error_profile_figure", "error_spans_markdown", "estimate_cell",
           "profile_rows"]  # fmt: skip
