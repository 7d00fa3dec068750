"""The study analysis report: its typed objects, its Markdown and its files.

The report is :class:`StudyAnalysis`, a tree of pydantic models that serialises to exactly the
``analysis.json`` the analysis has always written (:meth:`Report.to_dict`: the fields that were set, in
order). A report also reads like that JSON (``report["trials"]["trial_a"]["idr"]["mean"]``), so the
renderers here and the figures work on either the object or a loaded ``analysis.json``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from wikihowqa.core.files import atomic_write, write_json
from wikihowqa.humaneval.analysis.errorreport import error_profile_figure, error_spans_markdown
from wikihowqa.humaneval.deteriorate import REVIEW_TYPES
from wikihowqa.humaneval.figures import write_figures


class Report(BaseModel):
    """A part of the report: typed fields, and read access by key like the JSON it becomes (a key is
    there when its field was set: sections a study has no judgments for are left out, as in the file)."""

    model_config = ConfigDict(extra="forbid")

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True)

    def __getitem__(self, key: str) -> Any:
        if key not in self.model_fields_set:
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key: object) -> bool:
        return key in self.model_fields_set

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]  # keys, like the JSON object
        return (k for k in type(self).model_fields if k in self.model_fields_set)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key) if key in self.model_fields_set else default

    def keys(self) -> list[str]:
        return list(self)

    def items(self) -> list[tuple[str, Any]]:
        return [(k, getattr(self, k)) for k in self]


class Summary(Report):
    """n, mean, sd, median and quartiles of a sample (``statistics.summarise``); n and mean when empty."""

    n: int
    mean: float | None
    sd: float | None = None
    median: float | None = None
    p25: float | None = None
    p75: float | None = None


class Proportion(Report):
    """k of n with its 95% Wilson interval."""

    count: int
    n: int
    share: float | None
    ci95: list[float] | None


class TTest(Report):
    t: float
    p: float
    df: int


class TypeIDR(Summary):
    """IDR of one edit type: the per-judgment summary, and found/edits pooled over judgments."""

    pooled: Proportion


class TrialReport(Report):
    idr: Summary
    pooled: Proportion
    by_type: dict[str, TypeIDR]
    by_familiarity: dict[str, Summary]
    by_passage_opened: dict[str, Proportion]
    false_positives: Proportion
    spurious_misleading_spans: Proportion
    usefulness: dict[str, Summary]
    familiarity: Summary


class TrialTests(Report):
    """Student's t-tests of trial B against trial A (set only when both trials have judgments)."""

    idr: TTest | None = None
    by_type: dict[str, TTest | None] | None = None
    by_familiarity: dict[str, TTest | None] | None = None


class Agreement(Report):
    cohen_kappa: float | None
    cohen_kappa_pairs: int
    cohen_kappa_quadratic: float | None
    krippendorff_alpha_ordinal: float | None
    krippendorff_alpha_nominal: float | None


class Trials(Report):
    trial_a: TrialReport | None = None
    trial_b: TrialReport | None = None
    t_test_b_vs_a: TrialTests
    usefulness_agreement: dict[str, Agreement]
    misleading_span_overlap: dict[str, Summary]


class Relevance(Report):
    rating: Summary
    distribution: dict[str, int]
    cohen_kappa: float | None
    cohen_kappa_pairs: int
    cohen_kappa_quadratic: float | None
    krippendorff_alpha_ordinal: float | None
    krippendorff_alpha_nominal: float | None
    highlight_overlap: Summary


class Preference(Report):
    """One system against gold: who won, with the sign test of model against gold wins."""

    n: int
    model: Proportion
    gold: Proportion
    tie: Proportion
    sign_test_p: float | None


class PassageUse(Report):
    judgments_with_log: int
    judgments_without_log: int
    opened_any: Proportion
    sentences_opened_share: Summary
    passage_views: Summary


class ClockCheck(Report):
    checked: int
    disagreeing: Proportion
    tolerance: dict[str, int | float]
    flagged: list[dict[str, Any]]


class JudgmentCounts(Report):
    total: int
    accepted: int
    rejected: int
    unknown_task: int = 0  # of the rejected: judgments naming a task the study lacks (0 in older files)
    rejected_by_reason: dict[str, int]
    accepted_by_part: dict[str, int]
    rejected_by_part: dict[str, int]
    assessors_by_part: dict[str, int]
    rejections: list[dict[str, Any]]


class StudyAnalysis(Report):
    """The whole analysis of a study (``analysis.json``)."""

    format: str = "wikihowqa-analysis"
    format_version: int = 1
    study_id: str | None
    judgments: JudgmentCounts
    trials: Trials | None = None
    relevance: Relevance | None = None
    preference: dict[str, Preference] | None = None
    error_spans: dict[str, Any] | None = None  # errors parts (analysis/errorprofile.py)
    time_s: dict[str, Summary]
    passages: dict[str, PassageUse]
    clock_check: ClockCheck


def fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def idr_rows(trials: Mapping[str, Any], parts: Sequence[str]) -> list[tuple[str, list[str], Any]]:
    """IDR rows of a report: all edits, then each edit type present, as (name, cells per part, t-test)."""
    tests = trials.get("t_test_b_vs_a") or {}
    rows: list[tuple[str, list[str], Any]] = [
        (
            "all edits",
            [f"{fmt(trials[p]['idr']['mean'])} (n={trials[p]['idr']['n']})" for p in parts],
            tests.get("idr"),
        )
    ]
    for t in REVIEW_TYPES:
        if any(t in trials[p]["by_type"] for p in parts):
            cells = [fmt(trials[p]["by_type"].get(t, {}).get("mean")) for p in parts]
            rows.append((t, cells, (tests.get("by_type") or {}).get(t)))
    return rows


def markdown_report(result: StudyAnalysis | Mapping[str, Any]) -> str:
    """The analysis as Markdown: the paper's numbers first, then agreement, time and passage use."""
    j = result["judgments"]
    lines = [
        f"# Human evaluation: {result.get('study_id')}",
        "",
        f"Judgments: {j['total']} ({j['accepted']} accepted, {j['rejected']} rejected: "
        + (", ".join(f"{k} {v}" for k, v in j["rejected_by_reason"].items()) or "none")
        + ").",
        "",
    ]
    trials = result.get("trials")
    if trials:
        parts = [p for p in ("trial_a", "trial_b") if p in trials]
        lines += [
            "## Inconsistency detection rate (IDR)",
            "",
            "| | " + " | ".join(parts) + " | t (B vs A) | p |",
            "|---" * (len(parts) + 3) + "|",
        ]
        tests = trials.get("t_test_b_vs_a", {})

        def row(name: str, cells: list[Any], test: Mapping[str, Any] | None) -> None:
            lines.append(
                f"| {name} | " + " | ".join(cells) + f" | {fmt(test and test['t'])} | "
                f"{fmt(test and test['p'], 4)} |"
            )

        for name, cells, test in idr_rows(trials, parts):
            row(name, cells, test)
        for f in ("high", "low"):
            cells = [fmt(trials[p]["by_familiarity"].get(f, {}).get("mean")) for p in parts]
            row(f"familiarity {f}", cells, tests.get("by_familiarity", {}).get(f))
        lines += ["", "| | " + " | ".join(parts) + " |", "|---" * (len(parts) + 1) + "|"]
        for label, getter in [
            (
                "false positives (intact answers marked misleading)",
                lambda p: f"{trials[p]['false_positives']['count']}/{trials[p]['false_positives']['n']}",
            ),
            (
                "misleading spans touching no edit",
                lambda p: fmt(trials[p]["spurious_misleading_spans"]["share"]),
            ),
            (
                "usefulness, deteriorated",
                lambda p: fmt(trials[p]["usefulness"].get("deteriorated", {}).get("mean")),
            ),
            ("usefulness, intact", lambda p: fmt(trials[p]["usefulness"].get("intact", {}).get("mean"))),
            ("familiarity", lambda p: fmt(trials[p]["familiarity"]["mean"])),
            (
                "IDR where the edit's sentence was opened",
                lambda p: fmt(trials[p]["by_passage_opened"]["opened"]["share"]),
            ),
            (
                "IDR where it was not opened",
                lambda p: fmt(trials[p]["by_passage_opened"]["not_opened"]["share"]),
            ),
        ]:
            lines.append(f"| {label} | " + " | ".join(getter(p) for p in parts) + " |")
        lines.append("")
    rel = result.get("relevance")
    if rel:
        lines += [
            "## Document relevance",
            "",
            f"Mean relevance {fmt(rel['rating']['mean'])} (0–4, n={rel['rating']['n']}); Cohen's kappa "
            f"{fmt(rel['cohen_kappa'])} (mean over {rel['cohen_kappa_pairs']} assessor pairs); "
            "Krippendorff's "
            f"alpha {fmt(rel['krippendorff_alpha_ordinal'])} (ordinal); highlight overlap coefficient "
            f"{fmt(rel['highlight_overlap']['mean'])} (n={rel['highlight_overlap']['n']} pairs).",
            "",
        ]
    pref = result.get("preference")
    if pref:
        lines += [
            "## A/B preference against gold",
            "",
            "| system | n | model | tie | gold | sign test p |",
            "|---|---|---|---|---|---|",
        ]
        for system, r in pref.items():
            cells = [
                f"{fmt(r[o]['share'])} [{fmt(r[o]['ci95'][0])}, {fmt(r[o]['ci95'][1])}]"
                if r[o]["ci95"]
                else "–"
                for o in ("model", "tie", "gold")
            ]
            lines.append(f"| {system} | {r['n']} | " + " | ".join(cells) + f" | {fmt(r['sign_test_p'], 4)} |")
        lines.append("")
    if result.get("error_spans"):
        lines += error_spans_markdown(result["error_spans"])
    lines += ["## Time and passage use", "", "| part | judgments | median s | mean s |", "|---|---|---|---|"]
    for p, t in result["time_s"].items():
        lines.append(f"| {p} | {t['n']} | {fmt(t.get('median'), 1)} | {fmt(t.get('mean'), 1)} |")
    clock = result.get("clock_check") or {}
    if clock.get("flagged"):
        shown = ", ".join(str(f["judgment_id"]) for f in clock["flagged"][:10])
        more = f" and {len(clock['flagged']) - 10} more" if len(clock["flagged"]) > 10 else ""
        lines += [
            "",
            f"Clock check: in {len(clock['flagged'])} of {clock['checked']} judgments the page's own "
            "duration disagrees with the server's by more than "
            f"{clock['tolerance']['ms'] // 1000} s and {clock['tolerance']['share']:.0%} (times above are "
            f"the server's): {shown}{more}.",
        ]
    for p, u in result.get("passages", {}).items():
        lines.append("")
        lines.append(
            f"{p}: {fmt(u['opened_any']['share'])} of logged judgments opened at least one sentence's "
            f"passages; mean share of sentences opened {fmt(u['sentences_opened_share']['mean'])}; "
            f"mean passage views {fmt(u['passage_views']['mean'])} "
            f"({u['judgments_without_log']} without log)."
        )
    return "\n".join(lines) + "\n"


def _clean(obj: Any) -> Any:
    if isinstance(obj, float):
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if isinstance(obj, Mapping):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    return obj


def write_analysis(result: StudyAnalysis | Mapping[str, Any], out: Path) -> list[Path]:
    """``analysis.json``, ``analysis.md`` and the figures into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "analysis.json", _clean(result.to_dict() if isinstance(result, Report) else result))
    with atomic_write(out / "analysis.md") as fh:
        fh.write(markdown_report(result))
    figures = write_figures(result, out)
    if result.get("error_spans"):
        figures.append(error_profile_figure(result["error_spans"], out / "error_profile.png"))
    return [out / "analysis.json", out / "analysis.md", *figures]
