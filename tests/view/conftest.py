"""A small real explorer: the three real release instances with categories and splits, two systems'
answers scored by the evaluate stage (ROUGE and grounding: per-sentence passages are the stage's own), a
meta-evaluation of a planted study, and optionally hostile payloads in every text the site shows."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.components import AXE, require
from wikihowqa.core.records import Document, Example, Prediction
from wikihowqa.dataset.folder import write_dataset_folder
from wikihowqa.dataset.readers import read_documents, read_examples
from wikihowqa.dataset.writers import write_predictions
from wikihowqa.demo.paths import real_examples_path
from wikihowqa.evaluate.grounding import GroundingConfig
from wikihowqa.evaluate.pipeline import EvaluationSettings, evaluate
from wikihowqa.evaluate.report import write_report
from wikihowqa.metaeval.agreement import MetaSettings
from wikihowqa.metaeval.report import write_report as write_meta
from wikihowqa.metaeval.stage import meta_evaluate_folders
from wikihowqa.parse import split_passages
from wikihowqa.view import build_site

from ..cli.conftest import cli  # noqa: F401  the command runner, for test_site
from ..metaeval.planted import write_study

CATEGORIES = {1366001: "Food and Entertaining", 704295: "Home and Garden", 930014: "Family Life"}
SPLITS = {1366001: "test", 704295: "test", 930014: "train"}
#: What hostile text could hold; if any of it ran, it would set window.__pwned or open a dialog.
PAYLOAD = (
    '<script>window.__pwned = "script"; alert(1)</script> '
    "<img src=x onerror=\"window.__pwned = 'onerror'; alert(2)\"> "
    "<a href=\"javascript:window.__pwned='link'\">click me</a> "
    "<svg onload=\"window.__pwned='svg'\"></svg> "
)
URL_PAYLOAD = "javascript:window.__pwned='url';alert(3)"
MD_PAYLOAD = (
    f"# {PAYLOAD}\n\n[click](javascript:window.__pwned='md-link') and ![x](javascript:alert(4))\n\n"
    "<script>window.__pwned='md-script'</script>\n\n<img src=x onerror=\"window.__pwned='md-img'\">\n\n"
)
#: The site's title is the dataset folder's name: a name can be hostile too (no "/" in it).
HOSTILE_FOLDER = "<img src=x onerror=alert(5)>"


def _head(text: str, limit: int) -> str:
    """The text's whole paragraphs within ``limit`` characters (the first ``limit`` if none ends there)."""
    cut = text.rfind("\n", 0, limit)
    return text[:cut] if cut > 0 else text[:limit]


def _lead(doc: Document, words: int) -> str:
    return " ".join(doc.parsed_text.split()[:words]) + "."


def build_inputs(root: Path, *, payloads: bool) -> dict[str, Path]:
    """Dataset, predictions, evaluate report and meta-evaluation under ``root``; their paths by name."""
    src = real_examples_path()
    prefix = PAYLOAD if payloads else ""
    examples = [
        Example(
            e.article_id,
            prefix + e.question,
            prefix + e.answer,
            e.related_document_urls_wayback_snapshots,
            split=SPLITS[e.article_id],
            category=prefix + CATEGORIES[e.article_id],
        )
        for e in read_examples(src / "qa.jsonl")
    ]
    documents = []
    kept: dict[int, int] = {}
    for d in read_documents(src / "documents.jsonl"):
        kept[d.article_id] = kept.get(d.article_id, 0) + 1
        if kept[d.article_id] > 3:  # three documents a question, their first 1,200 characters: lean
            continue
        k = len(documents)
        text = prefix + _head(d.parsed_text, 1200)
        hostile = payloads and k % 5 == 0
        documents.append(
            Document(
                d.article_id,
                URL_PAYLOAD if hostile else d.original_url,
                URL_PAYLOAD if hostile else d.archive_url,
                text,
                (MD_PAYLOAD if payloads else "")
                + "## Steps\n\n- one *item*\n- [a link](https://example.org)\n",
                prefix + (d.title or "a page"),
                tuple(split_passages(text)),
                {"parse": {"page_type": "article" if k % 2 else prefix + "forum"}},
            )
        )
    manifest = {
        "stage": "build",
        "funnel": {"articles": {"seen": 5, prefix + "kept": 3}, "references": {"cited": 20, "kept": 16}},
        "rejections": {prefix + "reference_no_snapshot": 4},
    }
    name = HOSTILE_FOLDER if payloads else "dataset"
    dataset = write_dataset_folder(root / name, examples, documents, manifest).path
    by_article: dict[int, list[Document]] = {}
    for d in documents:
        by_article.setdefault(d.article_id, []).append(d)
    systems = {"lead-60": 60, "lead-15": 15}
    if payloads:
        systems = {prefix + "lead-60": 60, "lead-15": 15}
    paths = []
    for system, words in systems.items():
        path = root / f"predictions-{words}.jsonl"
        write_predictions(
            path,
            [
                Prediction(e.article_id, system, prefix + _lead(by_article[e.article_id][0], words))
                for e in examples
            ],
        )
        paths.append(path)
    settings = EvaluationSettings(split="all", bertscore=None, grounding=GroundingConfig(), resamples=100)
    report = root / "report"
    write_report(evaluate(dataset, paths, settings, cache_dir=report), report)
    study, scores = write_study(root / "planted", n=30, ab_questions=10)
    meta = root / "meta-evaluation"
    write_meta(meta_evaluate_folders(study, scores, MetaSettings(resamples=100, seed=0)), meta)
    return {"dataset": dataset, "report": report, "meta": meta, "predictions": paths[0]}


def build_explorer(root: Path, *, payloads: bool) -> Path:
    inputs = build_inputs(root, payloads=payloads)
    site = root / "site"
    build_site(inputs["dataset"], site, report=inputs["report"], study=inputs["meta"])
    return site


@pytest.fixture(scope="session")
def explorer_inputs(tmp_path_factory) -> dict[str, Path]:
    return build_inputs(tmp_path_factory.mktemp("explorer-inputs"), payloads=False)


@pytest.fixture(scope="session")
def explorer_site(explorer_inputs, tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("explorer") / "site"
    build_site(
        explorer_inputs["dataset"], site, report=explorer_inputs["report"], study=explorer_inputs["meta"]
    )
    return site


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory) -> Path:
    return build_explorer(tmp_path_factory.mktemp("hostile"), payloads=True)


@pytest.fixture(scope="session")
def axe_source(tmp_path_factory) -> str:
    """axe-core's axe.min.js, from the npm registry at test time (``npm pack``), not vendored."""
    npm = shutil.which("npm")
    require(
        AXE,
        None if npm else "npm is not installed (apt-get install npm): axe-core comes from the npm registry",
    )
    assert npm is not None
    where = tmp_path_factory.mktemp("axe")
    done = subprocess.run(
        [npm, "pack", "axe-core@4", "--silent", "--pack-destination", str(where)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    tarballs = list(where.glob("axe-core-*.tgz"))
    if done.returncode != 0 or not tarballs:
        require(AXE, f"npm pack axe-core failed: {done.stderr.strip()[-300:]}")
    with tarfile.open(tarballs[0]) as tar:
        member = tar.extractfile("package/axe.min.js")
        assert member is not None
        return member.read().decode("utf-8")


def per_question_rows(report: Path) -> list[dict]:
    return [
        json.loads(line) for line in (report / "per_question.jsonl").read_text(encoding="utf-8").splitlines()
    ]
