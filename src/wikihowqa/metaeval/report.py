"""The meta-evaluation report: ``meta_evaluation.json``, ``meta_evaluation.md``, ``meta_evaluation.png``
and the terminal table of the metric agreement."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wikihowqa.core.files import atomic_write, write_json

FILES = ("meta_evaluation.json", "meta_evaluation.md", "meta_evaluation.png")
_PART_NAMES = {"trial_a": "trial A (answer only)", "trial_b": "trial B (with passages)"}
_FLAG = "†"
_ABOVE = "▲"
_SHORTER = "control: shorter answer"
_CEILING = "human ceiling (leave one assessor out)"


def _v(e: Mapping[str, Any] | None, digits: int = 2) -> str:
    if not e or e.get("value") is None:
        return "–"
    return f"{e['value']:.{digits}f}"


def _ci(e: Mapping[str, Any] | None, digits: int = 2) -> str:
    if not e or e.get("value") is None:
        return "–"
    return f"{e['value']:.{digits}f} [{e['low']:.{digits}f}, {e['high']:.{digits}f}]"


def _draws(result: Mapping[str, Any]) -> int:
    return next((m.get("draws", 1) for m in result["metrics"] if m.get("draws", 1) > 1), 1)


def _label(metric: Mapping[str, Any]) -> str:
    return metric["label"] + (_FLAG if metric["reference_based"] else "")


def _floor(result: Mapping[str, Any], *path: str) -> Mapping[str, Any] | None:
    """The length-rule comparison of one statistic (``agreement.floor``), or None."""
    node: Any = result.get("floor") or {}
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else None


def _mark(cell: str, floor: Mapping[str, Any] | None, label: str) -> str:
    """The cell, with ▲ when the metric's interval lies above the better length rule."""
    return cell + _ABOVE if floor and (floor.get("above") or {}).get(label) else cell


def _shown(metric: Mapping[str, Any], floors: list[Mapping[str, Any] | None]) -> bool:
    """The shorter-answer rule is shown only where it is the better length rule."""
    return metric["label"] != _SHORTER or any(f and f.get("rule") == _SHORTER for f in floors)


def agreement_rows(result: Mapping[str, Any]) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """Column names and one row per metric: tau with usefulness and with fewer errors found per trial,
    pair AUC, A/B agreement and system tau — the values, without intervals (the Markdown has them)."""
    parts = list(result["answer_level"])
    short = [p[-1].upper() for p in parts]
    columns = [
        *(f"τ use\n{t}" for t in short),
        *(f"τ err\n{t}" for t in short),
        "pair\nAUC",
        "A/B\nagree",
        "sys\nτ",
    ]
    floors = [
        *(_floor(result, "answer_level", p, "usefulness", "kendall") for p in parts),
        *(_floor(result, "answer_level", p, "fewer_errors_found", "kendall") for p in parts),
        _floor(result, "pairs", "auc"),
        _floor(result, "preference", "pair_agreement"),
        _floor(result, "preference", "kendall"),
    ]
    rows = []
    for metric in result["metrics"]:
        if not _shown(metric, floors):
            continue
        label = metric["label"]
        cells = [
            *(_v(result["answer_level"][p][label]["usefulness"]["kendall"]) for p in parts),
            *(_v(result["answer_level"][p][label]["fewer_errors_found"]["kendall"]) for p in parts),
            _v(result["pairs"][label]["auc"]),
            _v(result["preference"]["pair_agreement"][label]),
            _v(result["preference"]["kendall"].get(label)),
        ]
        rows.append((_label(metric), [_mark(c, f, label) for c, f in zip(cells, floors, strict=True)]))
    ceiling = result.get("ceiling")
    if ceiling:
        levels = ceiling["answer_level"]
        rows.append(
            (
                _CEILING,
                [
                    *(_v(levels[p]["usefulness"]["kendall"]) for p in parts),
                    *(_v(levels[p]["fewer_errors_found"]["kendall"]) for p in parts),
                    "–",
                    _v(ceiling["pair_agreement"]),
                    "–",
                ],
            )
        )
    return columns, rows


def agreement_table(result: Mapping[str, Any], where: Path | str) -> Any:
    """The metric-agreement table for a terminal (``where``: the folder with the full report)."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    columns, rows = agreement_rows(result)
    table = Table(
        title=escape(f"Metric agreement with the assessors (CIs in {where}/meta_evaluation.md)"),
        box=box.SIMPLE_HEAD,
        caption=escape(
            "τ use / τ err: Kendall's tau of the score with the answer's usefulness / with fewer errors"
            " found, in trial A (answer only) and B (with passages); pair AUC: original above its"
            " deteriorated version; A/B agree: the assessors' A/B choices the metric makes too; sys τ:"
            f" system ranking; random: mean of {_draws(result)} draws; longer/shorter answer: the length"
            f" rules, the floor; {_ABOVE}: the metric's interval lies above the better length rule; human"
            f" ceiling: each assessor against the others. {_FLAG} reference-based: the"
            " originals are its references, so its trial, pair and A/B cells agree by construction."
        ),
        caption_justify="left",
    )
    table.add_column("metric")  # a long label wraps, so an 80-column terminal keeps every value whole
    for name in columns:
        table.add_column(name, justify="right", no_wrap=True)
    for label, cells in rows:
        table.add_row(escape(label), *cells)
    return table


def render_markdown(result: Mapping[str, Any]) -> str:
    s = result["settings"]
    pct = round(s["confidence"] * 100)
    j = result["judgments"]
    lines = [
        f"# Meta-evaluation: {result.get('study_id')}",
        "",
        f"Which automatic metric agrees with the assessors? Judgments: {j.get('accepted')} accepted of"
        f" {j.get('total')}. Every cell: value [{pct}% CI], {s['interval']} ({s['resamples']} resamples)."
        f" {_FLAG} marks a reference-based metric: it scores against the dataset's answer, which is the"
        " original of every trial answer and the gold side of every A/B task, so its trial, pair and A/B"
        " cells are agreement by construction (an intact answer is its own reference); only its"
        " system-level row is a fair test. Controls: *−edits (key)* is minus the number of edits the key"
        " records (what the assessors were asked to catch: a metric that knew the planted errors);"
        " *random* is a seeded random score, drawn"
        f" {_draws(result)} times: its cells give the draws' mean and their central {pct}% range, the"
        " spread a metric unrelated to the answers has at this sample size. The floor: *longer answer*"
        " scores an answer by its word count (*shorter answer*, its negative, is shown where it is the"
        f" better rule); {_ABOVE} marks a metric whose interval lies above the better length rule's value,"
        " the only place a metric tells more than length does. The ceiling: the assessors against each"
        " other, leave one assessor out (each judgment against the mean of the other judgments of the same"
        " answer, resampling answers; each A/B choice against the other assessors' majority). Ties, as"
        " Xu et al. (ACL 2023) count them on binary pairs: a pair the assessors judged a tie has no"
        " preferred side and is left out; a metric's tie counts one half.",
        "",
    ]
    if result["unscored_answers"]:
        lines += [
            f"**{len(result['unscored_answers'])} study answers have no scores in the evaluation report**"
            " and are left out; score them with `wikihowqa study-predictions` and"
            " `wikihowqa evaluate --split all`.",
            "",
        ]
    for part, by_metric in result["answer_level"].items():
        info = result["answers"][part]
        lines += [
            f"## Answer level, {_PART_NAMES.get(part, part)}",
            "",
            f"{info['answers']} answers ({info['deteriorated']} deteriorated), {info['judgments']} judgments."
            " Usefulness: the mean over the answer's judgments; errors found: the mean number of its edits"
            " marked misleading, negated so that agreement is positive.",
            "",
            "| metric | τ usefulness | ρ usefulness | τ −errors found | ρ −errors found |",
            "|---|---:|---:|---:|---:|",
        ]
        cells = [(t, m) for t in ("usefulness", "fewer_errors_found") for m in ("kendall", "spearman")]
        floors = [_floor(result, "answer_level", part, t, m) for t, m in cells]
        for metric in result["metrics"]:
            if not _shown(metric, floors):
                continue
            r, label = by_metric[metric["label"]], metric["label"]
            values = [_mark(_ci(r[t][m]), f, label) for (t, m), f in zip(cells, floors, strict=True)]
            lines.append(f"| {_label(metric)} | " + " | ".join(values) + " |")
        ceiling = (result.get("ceiling") or {}).get("answer_level", {}).get(part)
        if ceiling:
            lines.append(f"| {_CEILING} | " + " | ".join(_ci(ceiling[t][m]) for t, m in cells) + " |")
        lines.append("")
    first = next(iter(result["pairs"].values()), None)
    lines += [
        "## Original above its deteriorated version (the IDR setting)",
        "",
        f"{first['accuracy']['n'] if first else 0} pairs (a deteriorated answer and its original). Accuracy:"
        " the original scores higher (ties one half; chance 0.5); AUC: originals against deteriorated"
        " answers pooled over questions.",
        "",
        "| metric | pairwise accuracy | AUC | tied pairs |",
        "|---|---:|---:|---:|",
    ]
    floors = [_floor(result, "pairs", "accuracy"), _floor(result, "pairs", "auc")]
    for metric in result["metrics"]:
        if not _shown(metric, floors):
            continue
        r, label = result["pairs"][metric["label"]], metric["label"]
        accuracy, area = (
            _mark(_ci(r[k]), f, label) for k, f in zip(("accuracy", "auc"), floors, strict=True)
        )
        lines.append(f"| {_label(metric)} | {accuracy} | {area} | {r['ties']:.0%} |")
    refs = result.get("human_reference") or {}
    if refs:
        lines += [
            "",
            "For reference, the assessors' own AUC of mean usefulness, intact against deteriorated"
            " answers (different questions):",
        ]
        for part, ref in refs.items():
            lines.append(f"- {_PART_NAMES.get(part, part)}: {_ci(ref['usefulness_auc'])}")
    pref = result["preference"]
    lines += [
        "",
        "## A/B preferences against gold",
        "",
        f"{result['preference_tasks']} A/B tasks over {pref.get('questions', 0)} questions. Agreement: of"
        " the assessors' non-tie choices, the share the metric makes too (it prefers the higher-scored"
        " side; a tie counts one half), averaged over tasks. System τ: Kendall's tau between the systems'"
        " preference scores (wins + ties/2) and their mean metric scores over the A/B questions"
        f" ({len(pref['systems'])} systems"
        + (": too few for a ranking to mean much" if len(pref["systems"]) < 3 else "")
        + ").",
        "",
        "| metric | A/B agreement | system τ |",
        "|---|---:|---:|",
    ]
    floors = [_floor(result, "preference", "pair_agreement"), _floor(result, "preference", "kendall")]
    for metric in result["metrics"]:
        if not _shown(metric, floors):
            continue
        label = metric["label"]
        lines.append(
            f"| {_label(metric)} | {_mark(_ci(pref['pair_agreement'][label]), floors[0], label)}"
            f" | {_mark(_ci(pref['kendall'].get(label)), floors[1], label)} |"
        )
    if result.get("ceiling"):
        lines.append(f"| {_CEILING} | {_ci(result['ceiling']['pair_agreement'])} | – |")
    if pref["systems"]:
        labels = [m["label"] for m in result["metrics"] if not m["control"]]
        lines += [
            "",
            "| system | judgments | preference score | " + " | ".join(labels) + " |",
            "|---|---:|---:|" + "---:|" * len(labels),
        ]
        for name, row in pref["systems"].items():
            means = [
                "–" if row["metric_means"].get(lb) is None else f"{row['metric_means'][lb]:.3f}"
                for lb in labels
            ]
            score = "–" if row["preference_score"] is None else f"{row['preference_score']:.2f}"
            lines.append(f"| {name} | {row['judgments']} | {score} | " + " | ".join(means) + " |")
    if result.get("detectors"):
        from wikihowqa.metaeval.detectors import detectors_markdown

        lines += ["", *detectors_markdown(result["detectors"])]
    return "\n".join(lines) + "\n"


def render_chart(result: Mapping[str, Any], path: Path) -> None:
    """Two panels: answer-level tau vs usefulness per trial, and the pair AUC; whiskers: the CIs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    metrics = result["metrics"]
    labels = [_label(m) for m in metrics]
    y = np.arange(len(metrics))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.45 * len(metrics) + 1.8), dpi=120, sharey=True)
    parts = list(result["answer_level"])
    height = 0.8 / max(len(parts), 1)

    def bars(ax, entries, offset, name):
        vals = np.array([np.nan if e.get("value") is None else e["value"] for e in entries])
        low = np.array([np.nan if e.get("low") is None else e["low"] for e in entries])
        high = np.array([np.nan if e.get("high") is None else e["high"] for e in entries])
        err = np.vstack([np.nan_to_num(vals - low), np.nan_to_num(high - vals)])
        ax.barh(y + offset, np.nan_to_num(vals), height, xerr=err, capsize=2, label=name)

    for k, part in enumerate(parts):
        entries = [result["answer_level"][part][m["label"]]["usefulness"]["kendall"] for m in metrics]
        bars(left, entries, (k - (len(parts) - 1) / 2) * height, _PART_NAMES.get(part, part))
    left.axvline(0, color="grey", lw=0.8)
    left.set_xlabel("Kendall's τ with mean usefulness")
    left.set_yticks(y, labels)
    left.invert_yaxis()
    if parts:
        left.legend(fontsize=7)
    bars(right, [result["pairs"][m["label"]]["auc"] for m in metrics], 0.0, "pair AUC")
    right.axvline(0.5, color="grey", lw=0.8)
    right.set_xlim(0, 1)
    right.set_xlabel("AUC: original above its deteriorated version")
    pct = round(result["settings"]["confidence"] * 100)
    fig.suptitle(
        f"Metric agreement with the assessors (whiskers: {pct}% CI; {_FLAG} reference-based)", fontsize=9
    )
    fig.tight_layout()
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png")
    plt.close(fig)


def write_report(result: Mapping[str, Any], out_dir: Path) -> list[Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / "meta_evaluation.json", result)
    with atomic_write(out_dir / "meta_evaluation.md") as fh:
        fh.write(render_markdown(result))
    render_chart(result, out_dir / "meta_evaluation.png")
    return [out_dir / f for f in FILES]
