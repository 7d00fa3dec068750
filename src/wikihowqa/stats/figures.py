"""PNG figures of the report (matplotlib, Agg backend): categories, lengths, audit similarities."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from wikihowqa.core.files import atomic_write

SPLIT_COLOURS = {"train": "#4C72B0", "validation": "#DD8452", "test": "#55A868", "unsplit": "#8172B3"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> Path:
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=120, bbox_inches="tight")
    _pyplot().close(fig)
    return path


def category_bars(counts: Mapping[str, int], path: Path) -> Path:
    """Horizontal bars of questions per category, most frequent on top."""
    plt = _pyplot()
    items = sorted(counts.items(), key=lambda kv: kv[1])
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(items) + 1.2))
    ax.barh([k for k, _ in items], [v for _, v in items], color="#4C72B0")
    total = sum(counts.values()) or 1
    for y, (_, v) in enumerate(items):
        ax.text(v, y, f" {v} ({100 * v / total:.1f}%)", va="center", fontsize=8)
    ax.set_xlabel("questions")
    ax.set_title("Questions per category")
    ax.margins(x=0.18)
    return _save(fig, path)


def length_histogram(
    values: Mapping[str, Sequence[int]], path: Path, *, title: str, xlabel: str, log: bool = False
) -> Path:
    """Overlaid histograms of lengths per split (share of each split's items per bin)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    data = [np.asarray(v, dtype=float) for v in values.values() if len(v)]
    if data:
        both = np.concatenate(data)
        low, high = max(both.min(), 1.0), max(both.max(), 2.0)
        bins = np.geomspace(low, high, 40) if log else np.linspace(both.min(), high, 40)
        for name, v in values.items():
            if len(v):
                arr = np.asarray(v, dtype=float)
                ax.hist(
                    arr,
                    bins=bins,
                    weights=np.full(len(arr), 100 / len(arr)),
                    histtype="step",
                    linewidth=1.6,
                    label=f"{name} (n={len(arr)})",
                    color=SPLIT_COLOURS.get(name),
                )
        if log:
            ax.set_xscale("log")
        ax.legend(fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("% of items")
    ax.set_title(title)
    return _save(fig, path)


def similarity_histogram(
    similarities: Mapping[str, Sequence[float]], threshold: float, path: Path, *, edges: Sequence[float]
) -> Path:
    """Histogram of each evaluation question's similarity to its nearest train question."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, sims in similarities.items():
        if len(sims):
            ax.hist(
                np.clip(np.asarray(sims, dtype=float), 0, 1),
                bins=np.asarray(edges),
                histtype="step",
                linewidth=1.6,
                label=f"{name} (n={len(sims)})",
                color=SPLIT_COLOURS.get(name),
            )
    ax.axvline(threshold, color="#C44E52", linestyle="--", label=f"threshold {threshold:g}")
    ax.set_xlabel("cosine similarity to the nearest train question")
    ax.set_ylabel("questions")
    ax.set_title("Leakage audit")
    ax.legend(fontsize=8)
    return _save(fig, path)
