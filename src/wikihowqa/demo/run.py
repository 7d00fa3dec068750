"""``wikihowqa demo``: the whole pipeline on the embedded corpus, everything written under one folder.

Layout: ``real-examples/`` (the release instances imported), ``dataset/`` (the demo corpus built from
the replay site), ``predictions/<system>.jsonl``, ``report/`` and ``study/``. Each step is a function
that returns rows for the closing table, so a stage adds itself by adding one step.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from wikihowqa.demo import real_examples_path

#: In the demo's output folder: the names of the subfolders the demo created there, and so may rewrite.
OWNED_FILE = ".wikihowqa-demo.json"


def owned_folders(out: Path) -> set[str]:
    """Names of the folders under ``out`` that a demo run created (none if no run left a record)."""
    try:
        names = json.loads((Path(out) / OWNED_FILE).read_text(encoding="utf-8"))["created"]
    except (FileNotFoundError, json.JSONDecodeError, KeyError, TypeError):
        return set()
    return {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()


def fresh_folder(out: Path, name: str) -> Path:
    """``out/name`` for a step that writes it whole: a folder an earlier demo run created is removed, and a
    new one is recorded as the demo's. A folder the demo did not create is returned untouched, for the step's
    own checks to refuse if it holds anything foreign; a rerun into the same ``out`` thus starts clean
    without ever deleting a user's folder."""
    from wikihowqa.io import write_json

    out = Path(out)
    target = out / name
    owned = owned_folders(out)
    if target.is_symlink() or (target.exists() and name not in owned):
        return target
    if target.exists():
        shutil.rmtree(target)
    else:
        write_json(out / OWNED_FILE, {"created": sorted(owned | {name})})
    return target


@dataclass
class DemoContext:
    out: Path
    settings: dict[str, Any] = field(default_factory=dict)
    produced: list[tuple[str, str, str]] = field(default_factory=list)  # (what, where, how many)

    def record(self, what: str, where: Path, count: str) -> None:
        # Relative to the demo's folder, which the closing table's title names.
        self.produced.append(
            (what, str(where.relative_to(self.out) if where.is_relative_to(self.out) else where), count)
        )


Step = Callable[[DemoContext], None]


def import_real_examples(ctx: DemoContext) -> None:
    from wikihowqa.importer import import_release

    src = real_examples_path()
    folder, manifest = import_release(
        [src / "qa.jsonl"], [src / "documents.jsonl"], ctx.out / "real-examples", overwrite=True
    )
    counts = manifest["counts"]
    ctx.record(
        "real release instances (imported)",
        folder.path,
        f"{counts['questions']} questions, {counts['documents']} documents",
    )


def _build_dataset(ctx: DemoContext) -> None:
    from wikihowqa.collect.demo import demo_step

    demo_step(ctx)


def _check_parser(ctx: DemoContext) -> None:
    from wikihowqa.parse.demo import demo_step

    demo_step(ctx)


def _split_and_describe(ctx: DemoContext) -> None:
    from wikihowqa.stats import demo_step

    demo_step(ctx)


def _answer(ctx: DemoContext) -> None:
    from wikihowqa.answer import demo_step

    demo_step(ctx)


def _evaluate(ctx: DemoContext) -> None:
    from wikihowqa.evaluate import demo_step

    demo_step(ctx)


def _human_evaluation(ctx: DemoContext) -> None:
    from wikihowqa.humaneval import demo_step

    demo_step(ctx)


def _meta_evaluation(ctx: DemoContext) -> None:
    from wikihowqa.metaeval import demo_step

    demo_step(ctx)


STEPS: list[tuple[str, Step]] = [
    ("import the real WikiHowNFQA examples", import_real_examples),
    ("build the demo dataset from the replay site (MediaWiki API + Wayback)", _build_dataset),
    ("check the parser against the corpus's ground truth", _check_parser),
    ("split the dataset without leakage and describe it (Tables 1–2, audit, figures)", _split_and_describe),
    ("answer the questions: BM25 + lead sentences; SmolLM2 + passages (3 questions)", _answer),
    ("human evaluation: deteriorate, build a study, simulate judgments, analyse", _human_evaluation),
    ("meta-evaluation: which metric agrees with the (simulated) assessors", _meta_evaluation),
    ("evaluate the predictions (the leaderboard ends the demo)", _evaluate),
]


def default_out_dir() -> Path:
    return Path.cwd() / f"wikihowqa-demo-{datetime.now():%Y%m%d-%H%M%S}"


def run_demo(out: Path, *, progress: Callable[[str], None] = lambda _: None, **settings: Any) -> DemoContext:
    # Everything the demo needs ships in installed packages: never wait on a model hub lookup.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")  # libraries' own bars would interleave with ours
    out.mkdir(parents=True, exist_ok=True)
    ctx = DemoContext(out=out.resolve(), settings=settings)
    for title, step in STEPS:
        progress(title)
        step(ctx)
    return ctx
