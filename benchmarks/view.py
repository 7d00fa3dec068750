"""Benchmark: ``wikihowqa view`` at the paper's size — build time, site size, largest file, and the time
to the first interactive view of each page type in Chromium, opened from disk.

The corpus (11,746 questions, 74,527 documents; ``wikihowqa.synthetic.dataset``) is generated once into
``.benchmarks/`` and reused. Four systems' answers and scores are synthetic (answers stitched from the
question's documents, scores drawn at random, per-sentence grounding pointing at three of the question's
passages), written by the evaluate stage's own report writer (``evaluation.json`` with bootstrap
intervals and paired tests, ``per_question.jsonl``), so the explorer reads exactly what it reads after a
real evaluation. Then the site is built (timed: reading every input, rendering, writing every file) and
each page type is opened in Chromium (Playwright, Debian's chromium) from ``file://``, a fresh context per
load; "interactive" is when the page's script has loaded its data and drawn it (``body[data-ready]``; the
overview and leaderboard are whole HTML: their ``load`` event). The peer, measured in the same run, is
the same browser opening a blank page with the same CSP from the same folder: the floor of any page.

Run: ``PYTHONPATH=src python -m benchmarks.view [--questions N --documents N] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from wikihowqa.core.records import Passage, passages_of
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.evaluate.pipeline import (
    GROUNDING_COLUMNS,
    ROUGE_COLUMNS,
    Evaluation,
    EvaluationSettings,
    SystemResult,
)
from wikihowqa.evaluate.report import write_report
from wikihowqa.synthetic.dataset import PAPER_DOCUMENTS, PAPER_QUESTIONS, ensure_corpus
from wikihowqa.view import build_site
from wikihowqa.view.pages import CSP

CHROMIUM = Path("/usr/bin/chromium")
SYSTEMS = ("bm25+lead", "dense+lead", "llm-passages", "bart-large")
SPLITS = ("train",) * 8 + ("validation", "test")
#: When the page was interactive, in ms since navigation: the scripted pages mark it when drawn.
READY = """() => {
  const mark = performance.getEntriesByName("wikihowqa-ready");
  if (mark.length) return mark[0].startTime;
  const nav = performance.getEntriesByType("navigation")[0];
  return nav && nav.loadEventEnd ? nav.loadEventEnd : performance.now();
}"""


def with_splits(folder: DatasetFolder) -> DatasetFolder:
    """Deterministic splits (80/10/10 by article id), so the filters have something to filter."""
    examples = folder.examples()
    if all(e.split for e in examples):
        return folder
    from dataclasses import replace

    folder.write_examples([replace(e, split=SPLITS[e.article_id % 10]) for e in examples])
    return folder


def _support(passage: Passage, rng: random.Random) -> dict[str, object]:
    """A passage as grounding reports it for a sentence (``PassageSupport``), with random scores."""
    return {
        "id": passage.id,
        "archive_url": passage.archive_url,
        "position": passage.position,
        "score": rng.random(),
        "dense": rng.random(),
        "lexical": rng.random(),
    }


def synthetic_evaluation(folder: DatasetFolder, seed: int = 0) -> Evaluation:
    """Four systems' answers (sentences of the documents) with random scores and grounding details."""
    rng = random.Random(seed)
    examples = folder.examples()
    documents = folder.documents_by_article()
    systems = []
    for k, name in enumerate(SYSTEMS):
        answers, details = [], []
        scores: dict[str, list[float]] = {c: [] for c in (*ROUGE_COLUMNS, *GROUNDING_COLUMNS)}
        for e in examples:
            passages = passages_of(documents.get(e.article_id, []))
            sentences = []
            for _ in range(rng.randint(3, 7)):
                text = rng.choice(passages).text if passages else e.answer
                words = text.split()
                start = rng.randrange(max(1, len(words) - 20))
                sentences.append(" ".join(words[start : start + rng.randint(8, 20)]).rstrip(".") + ".")
            answers.append(" ".join(sentences))
            grounded = []
            for s in sentences:
                chosen = rng.sample(passages, min(3, len(passages)))
                support = rng.random()
                grounded.append(
                    {
                        "sentence": s,
                        "support": support,
                        "supported": support >= 0.5,
                        "passages": [_support(p, rng) for p in chosen],
                        "evidence": [],
                    }
                )
            share = sum(g["supported"] for g in grounded) / len(grounded)
            mean = statistics.fmean(g["support"] for g in grounded)
            details.append({"supported_share": share, "mean_support": mean, "sentences": grounded})
            for column in ROUGE_COLUMNS:
                scores[column].append(min(1.0, max(0.0, rng.gauss(0.2 + 0.03 * k, 0.08))))
            scores["grounding_support"].append(mean)
            scores["grounding_supported_share"].append(share)
        systems.append(
            SystemResult(name, "synthetic", [e.article_id for e in examples], answers, scores, details)
        )
    settings = EvaluationSettings(split="all", bertscore=None, grounding=None, resamples=100)
    return Evaluation(str(folder.path), "all", examples, systems, None, {"rouge": {}}, settings)


def _blank(site: Path) -> Path:
    page = site / "blank.html"
    page.write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}"><title>blank</title></head>'
        '<body data-ready="1"></body></html>',
        encoding="utf-8",
    )
    return page


def first_views(site: Path, question: int, repeat: int) -> dict[str, list[float]]:
    """Seconds from navigation to the first interactive view, per page type, ``repeat`` loads each."""
    from playwright.sync_api import sync_playwright

    pages = {
        "peer: blank page, same CSP": _blank(site).as_uri(),
        "overview": (site / "index.html").as_uri(),
        "leaderboard": (site / "leaderboard.html").as_uri(),
        "questions (all 4 systems' scores)": (site / "questions.html").as_uri(),
        "question (answers, grounding, documents)": (site / "question.html").as_uri() + f"#id={question}",
        "side by side (largest difference first)": (site / "compare.html").as_uri(),
    }
    times: dict[str, list[float]] = {name: [] for name in pages}
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=args)
        warm = browser.new_page()  # the browser's own start-up is not any page's
        warm.goto(pages["peer: blank page, same CSP"])
        warm.close()
        for _ in range(repeat):
            for name, url in pages.items():
                context = browser.new_context(viewport={"width": 1366, "height": 800})
                page = context.new_page()
                page.goto(url, wait_until="load")
                page.wait_for_selector("body[data-ready='1']" if _scripted(url) else "body", state="attached")
                times[name].append(page.evaluate(READY) / 1000)
                context.close()
        browser.close()
    return times


def _scripted(url: str) -> bool:
    """Pages drawn by their script from data files (the others are whole HTML, interactive at load)."""
    return url.split("#")[0].endswith(("questions.html", "question.html", "compare.html"))


def _commit() -> str:
    try:
        git = ["git", "rev-parse", "--short", "HEAD"]
        return subprocess.run(git, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=PAPER_QUESTIONS)
    parser.add_argument("--documents", type=int, default=PAPER_DOCUMENTS)
    parser.add_argument("--repeat", type=int, default=3, help="loads of each page (median reported)")
    parser.add_argument("--work", type=Path, default=Path(".benchmarks"), help="where the corpus and site go")
    args = parser.parse_args()

    corpus = args.work / f"synthetic-{args.questions}q-{args.documents}d-seed0"
    started = time.perf_counter()
    folder = with_splits(ensure_corpus(corpus, args.questions, args.documents))
    print(f"corpus ready in {time.perf_counter() - started:.0f} s: {corpus}", file=sys.stderr)
    report = args.work / f"view-report-{args.questions}q"
    if not (report / "evaluation.json").is_file():
        started = time.perf_counter()
        write_report(synthetic_evaluation(folder), report)
        print(f"synthetic report in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    site = args.work / f"view-site-{args.questions}q"
    shutil.rmtree(site, ignore_errors=True)
    summary = build_site(folder.path, site, report=report)
    files = sorted((p.stat().st_size for p in site.rglob("*") if p.is_file()), reverse=True)
    question = folder.examples()[len(folder.examples()) // 2].article_id
    times = first_views(site, question, args.repeat)
    floor = statistics.median(times["peer: blank page, same CSP"])

    print(
        f"\n`wikihowqa view`, {summary.questions:,} questions, {args.documents:,} documents, "
        f"{summary.systems} systems ({datetime.now(UTC):%Y-%m-%d}, commit {_commit()})\n"
    )
    print("| measure | value |\n|---|---:|")
    print(f"| build (read inputs, render, write) | {summary.seconds:.1f} s |")
    print(f"| files | {summary.files:,} |")
    print(f"| total size | {summary.bytes / 1e6:,.0f} MB |")
    print(f"| largest file | {summary.largest[0]}, {summary.largest[1] / 1e6:.2f} MB |")
    print(f"| 99th-percentile file | {files[len(files) // 100] / 1e6:.2f} MB |")
    first = sum((site / "data" / name).stat().st_size for name in ("site.js", "index.js", "scores/0.js"))
    print(f"| data the questions page loads first (site, index, one metric) | {first / 1e6:.2f} MB |")
    print(f"\nFirst interactive view in Chromium from file:// (median of {args.repeat}, fresh context each):")
    print("| page | first interactive | × blank page (peer) |\n|---|---:|---:|")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"| {name} | {median * 1000:.0f} ms | {median / floor:.1f}× |")
    print(json.dumps({"site": str(site), "times": times}), file=sys.stderr)


if __name__ == "__main__":
    main()
