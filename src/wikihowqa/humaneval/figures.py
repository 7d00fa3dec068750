"""PNG figures of an analysis: IDR by deterioration type per trial (the paper's Figure 4) and A/B
preference shares with their 95 % Wilson intervals."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wikihowqa.humaneval.deteriorate import EDIT_TYPES

TRIAL_LABELS = {"trial_a": "Trial A (no passages)", "trial_b": "Trial B (highlighted passages)"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def idr_figure(trials: Mapping[str, Any], path: Path) -> Path:
    plt = _pyplot()
    parts = [p for p in ("trial_a", "trial_b") if p in trials]
    types = [t for t in EDIT_TYPES if any(t in trials[p]["by_type"] for p in parts)]
    labels = ["all", *types]
    width = 0.8 / max(len(parts), 1)
    fig, ax = plt.subplots(figsize=(1.2 * len(labels) + 2, 3.8))
    for k, p in enumerate(parts):
        values = [trials[p]["idr"]["mean"] or 0.0] + [
            trials[p]["by_type"].get(t, {}).get("mean") or 0.0 for t in types
        ]
        xs = [x + (k - (len(parts) - 1) / 2) * width for x in range(len(labels))]
        bars = ax.bar(xs, values, width, label=TRIAL_LABELS.get(p, p))
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.set_xticks(range(len(labels)), labels, rotation=20)
    ax.set_ylabel("IDR")
    ax.set_ylim(0, 1.05)
    ax.set_title("Inconsistency detection rate by deterioration type")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def preference_figure(preference: Mapping[str, Any], path: Path) -> Path:
    plt = _pyplot()
    systems = list(preference)
    fig, ax = plt.subplots(figsize=(7, 0.7 * len(systems) + 1.6))
    colors = {"model": "#4c72b0", "tie": "#bbbbbb", "gold": "#dd8452"}
    for y, system in enumerate(systems):
        left = 0.0
        for outcome in ("model", "tie", "gold"):
            share = preference[system][outcome]["share"] or 0.0
            ax.barh(y, share, left=left, color=colors[outcome], label=outcome if y == 0 else None)
            if share >= 0.06:
                ax.text(left + share / 2, y, f"{share:.0%}", ha="center", va="center", fontsize=8)
            left += share
        ci = preference[system]["model"]["ci95"]
        share = preference[system]["model"]["share"]
        if ci and share is not None:
            ax.errorbar(share, y, xerr=[[share - ci[0]], [ci[1] - share]], color="black", capsize=3, lw=1)
    ax.set_yticks(range(len(systems)), systems)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of judgments (model preferred · tie · gold preferred); bar: 95% CI of model share")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_figures(result: Mapping[str, Any], out: Path) -> list[Path]:
    written = []
    if result.get("trials"):
        written.append(idr_figure(result["trials"], Path(out) / "idr_by_type.png"))
    if result.get("preference"):
        written.append(preference_figure(result["preference"], Path(out) / "preference.png"))
    return written
