"""The explorer's folder: pages, their scripts and styles, and the data files, written as one set.

The site is staged beside ``--out`` and swapped in whole, so a failed build leaves the previous site; an
existing folder is replaced only with ``overwrite``. ``site.json`` records what the site was built from.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from wikihowqa import __version__
from wikihowqa.core.errors import SettingsError
from wikihowqa.core.files import atomic_folder, write_json
from wikihowqa.core.progress import QUIET, Progress
from wikihowqa.view.pages import render_pages
from wikihowqa.view.shards import data_files
from wikihowqa.view.sources import read_sources

MARKER = "site.json"
ASSETS = ("style.css", "common.js", "leaderboard.js", "questions.js", "question.js", "compare.js")
#: The progress phase of the data files.
WRITING = "data files"


@dataclass(frozen=True)
class SiteSummary:
    """What was written: the folder, its files and bytes, the largest file, and the seconds it took."""

    out: Path
    files: int
    bytes: int
    largest: tuple[str, int]
    seconds: float
    questions: int
    systems: int


def check_target(out: Path, overwrite: bool) -> None:
    """A folder that holds anything (an earlier site too) is replaced only with ``overwrite``."""
    out = Path(out)
    if out.is_file():
        raise SettingsError(f"--out {out}: is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        what = "an explorer site" if (out / MARKER).is_file() else "files"
        raise SettingsError(f"--out {out}: already holds {what} (use --overwrite to replace it)")


def _summary(out: Path, seconds: float, questions: int, systems: int) -> SiteSummary:
    sizes = {
        str(Path(root, name).relative_to(out)): os.path.getsize(Path(root, name))
        for root, _, names in os.walk(out)
        for name in names
    }
    largest = max(sizes.items(), key=lambda kv: kv[1])
    return SiteSummary(out, len(sizes), sum(sizes.values()), largest, seconds, questions, systems)


def build_site(
    dataset: Path,
    out: Path,
    *,
    report: Path | None = None,
    predictions: Sequence[Path] = (),
    study: Path | None = None,
    stats: Path | None = None,
    overwrite: bool = False,
    progress: Progress = QUIET,
) -> SiteSummary:
    """Write the explorer of ``dataset`` (with the evaluate report, predictions and meta-evaluation given)
    into ``out``; returns what was written."""
    started = time.perf_counter()
    out = Path(out)
    check_target(out, overwrite)
    sources = read_sources(dataset, report=report, predictions=predictions, study=study, stats=stats)
    with atomic_folder(out) as staging:
        for name, html in render_pages(sources).items():
            (staging / name).write_text(html, encoding="utf-8")
        assets = staging / "assets"
        assets.mkdir()
        static = files("wikihowqa.view") / "static"
        for name in ASSETS:
            with (static / name).open("rb") as src, (assets / name).open("wb") as dst:
                shutil.copyfileobj(src, dst)
        progress.phase(WRITING, None)
        for data in data_files(sources):
            path = staging / "data" / data.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(data.script(), encoding="utf-8")
            progress.advance(WRITING, 1)
        write_json(
            staging / MARKER,
            {
                "tool": {"name": "wikihowqa", "version": __version__},
                "dataset": str(Path(dataset)),
                "report": None if report is None else str(report),
                "predictions": [str(p) for p in predictions],
                "study": None if study is None else str(study),
                "questions": len(sources.examples),
                "systems": sources.systems,
            },
        )
    return _summary(out, time.perf_counter() - started, len(sources.examples), len(sources.systems))
