"""Main-content extraction: wikihowqa's parser against trafilatura, readability-lxml and resiliparse, on both
development sets in one run.

1. ``web-extraction-dev`` (450 pages of 7 page types from the WCXB development split): the benchmark's word
   F1, precision and recall (means over pages), the share of ``with`` snippets found and of ``without``
   snippets avoided, overall and per page type, for the whole set and for each half of a fixed split:
   ``dev`` (the half the rules were developed on) and ``check`` (the half held back to see whether they
   generalise). The split is by page id, stratified by page type, seeded: per type the sorted ids are
   shuffled with ``random.Random(f"{SEED}:{type}")`` and the first half is ``dev``.
2. ``article-extraction-dev`` (102 news and blog pages): the benchmark's 4-gram shingle F1.

Speed: every extractor runs once over every page per round, extractors interleaved, and the fastest
round counts; time is the process's CPU time, so other work on a shared machine slows no extractor's
figure (a ratio against trafilatura, measured in the same run, is the figure to read). The peers get the
page decoded as UTF-8 as the benchmarks' harnesses give it; wikihowqa gets the bytes and the URL and does
all ``parse_html`` does (decoding, page type, pagination, boilerplate, extraction, Markdown, passages).

    python benchmarks/extraction.py [--web DIR] [--articles DIR] [--rounds 2] [--record]

``--record`` puts the tables at the top of ``benchmarks/RESULTS.md`` (``results_md.append_run``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from wikihowqa.parse.metric import (  # noqa: E402
    Score,
    WordScore,
    evaluate,
    summarise,
    word_score,
)

_DATA = next((p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()), ROOT.parent)
DEFAULT_WEB = _DATA / "web-extraction-dev"
DEFAULT_ARTICLES = _DATA / "article-extraction-dev"
SEED = 20261202
HALVES = ("dev", "check")
TYPES = ("article", "forum", "product", "service", "documentation", "listing", "collection")
TRAFILATURA = "trafilatura (default settings)"
Extractor = Callable[[bytes, str], str]


def split_half(rows: list[dict]) -> dict[str, str]:
    """``id → "dev" | "check"``: per page type, the sorted ids shuffled with a seeded generator, first half
    ``dev``. Fixed by the seed and the ids alone, so every run and every reader gets the same halves."""
    by_type: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        by_type[row["page_type"]].append(row["id"])
    half = {}
    for kind, ids in by_type.items():
        ids = sorted(ids)
        random.Random(f"{SEED}:{kind}").shuffle(ids)
        for i, key in enumerate(ids):
            half[key] = HALVES[0] if i < len(ids) // 2 else HALVES[1]
    return half


def load_web(folder: Path) -> tuple[list[dict], dict[str, bytes]]:
    truth = folder / "ground-truth.jsonl.gz"
    if not truth.is_file():
        sys.exit(f"{folder}: no ground-truth.jsonl.gz (pass --web DIR)")
    with gzip.open(truth, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    pages = {r["id"]: gzip.decompress((folder / "html" / f"{r['id']}.html.gz").read_bytes()) for r in rows}
    return rows, pages


def load_articles(folder: Path) -> tuple[dict[str, str], dict[str, str], dict[str, bytes]]:
    truth_file = folder / "ground-truth.json"
    if not truth_file.is_file():
        sys.exit(f"{folder}: no ground-truth.json (pass --articles DIR)")
    raw = json.loads(truth_file.read_text(encoding="utf-8"))
    truth = {key: row.get("articleBody", "") for key, row in raw.items()}
    urls = {key: row.get("url", "") for key, row in raw.items()}
    pages = {key: gzip.decompress((folder / "html" / f"{key}.html.gz").read_bytes()) for key in truth}
    return truth, urls, pages


def wikihowqa_parser() -> Extractor:
    from wikihowqa.parse import parse_html

    return lambda body, url: parse_html(body, url).text


def trafilatura_default() -> Extractor:
    import trafilatura

    return lambda body, url: (
        trafilatura.extract(body.decode("utf-8", "replace"), include_comments=False) or ""
    )


def readability_lxml() -> Extractor:
    import lxml.html
    from readability import Document

    def run(body: bytes, url: str) -> str:
        summary = Document(body.decode("utf-8", "replace")).summary(html_partial=True)
        return lxml.html.fromstring(summary).text_content() if summary.strip() else ""

    return run


def resiliparse_peer() -> Extractor:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    def run(body: bytes, url: str) -> str:
        tree = HTMLTree.parse_from_bytes(body, "utf-8")
        return extract_plain_text(tree, main_content=True, alt_texts=False, links=False, form_fields=False)

    return run


def _safe(run: Extractor) -> Extractor:
    """A peer that raises on a page scores that page as empty (readability-lxml does on some)."""

    def call(body: bytes, url: str) -> str:
        try:
            return run(body, url)
        except Exception:
            return ""

    return call


def measure(
    extractors: dict[str, Extractor], sets: dict[str, tuple[dict[str, bytes], dict[str, str]]], rounds: int
) -> tuple[dict[str, dict[str, dict[str, str]]], dict[str, dict[str, float]]]:
    """Outputs (set → extractor → page → text) and pages per CPU second (set → extractor)."""
    outputs: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    best: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(lambda: float("inf")))
    for _ in range(rounds):
        for name, run in extractors.items():
            for label, (pages, urls) in sets.items():
                start = time.process_time()
                outputs[label][name] = {key: run(body, urls[key]) for key, body in pages.items()}
                best[label][name] = min(best[label][name], time.process_time() - start)
    speeds = {
        label: {name: len(sets[label][0]) / max(seconds, 1e-9) for name, seconds in by_name.items()}
        for label, by_name in best.items()
    }
    return outputs, speeds


def web_tables(rows: list[dict], outputs: dict[str, dict[str, str]], speeds: dict[str, float]) -> str:
    half = split_half(rows)
    scores: dict[str, dict[str, WordScore]] = {
        name: {
            r["id"]: word_score(r["main_content"], out.get(r["id"]), r["with"], r["without"]) for r in rows
        }
        for name, out in outputs.items()
    }
    reference = speeds[TRAFILATURA]
    parts = []
    for label, members in (("all 450 pages", None), *((f"{h} half", h) for h in HALVES)):
        chosen = [r for r in rows if members is None or half[r["id"]] == members]
        lines = [
            f"**web-extraction-dev, {label} ({len(chosen)})** — word F1 / precision / recall, snippets, "
            "speed",
            "",
            "| extractor | F1 | P | R | with found | without avoided | pages/s | vs trafilatura |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name in outputs:
            total = summarise(scores[name][r["id"]] for r in chosen)
            speed = f"{speeds[name]:.1f} | {speeds[name] / reference:.2f}×" if members is None else "– | –"
            lines.append(
                f"| {name} | {total.f1:.3f} | {total.precision:.3f} | {total.recall:.3f} | "
                f"{100 * total.with_rate:.1f}% | {100 * total.without_rate:.1f}% | {speed} |"
            )
        lines += ["", f"Word F1 by page type ({label}):", ""]
        counts = {t: sum(r["page_type"] == t for r in chosen) for t in TYPES}
        lines.append("| extractor | " + " | ".join(f"{t} ({counts[t]})" for t in TYPES) + " |")
        lines.append("|---|" + "---:|" * len(TYPES))
        for name in outputs:
            cells = []
            for kind in TYPES:
                of_type = [scores[name][r["id"]] for r in chosen if r["page_type"] == kind]
                cells.append(f"{summarise(of_type).f1:.3f}" if of_type else "–")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def article_table(truth: dict[str, str], outputs: dict[str, dict[str, str]], speeds: dict[str, float]) -> str:
    reference = speeds[TRAFILATURA]
    rows: list[tuple[str, Score, float]] = [
        (name, evaluate(truth, out), speeds[name]) for name, out in outputs.items()
    ]
    lines = [
        f"**article-extraction-dev ({len(truth)} pages)** — 4-gram shingle F1 / precision / recall, speed",
        "",
        "| extractor | F1 | P | R | pages/s | vs trafilatura |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, score, speed in rows:
        lines.append(
            f"| {name} | {score.f1:.4f} | {score.precision:.4f} | {score.recall:.4f} | {speed:.1f} | "
            f"{speed / reference:.2f}× |"
        )
    return "\n".join(lines)


def page_type_table(rows: list[dict], pages: dict[str, bytes]) -> str:
    """How often parse_html's page type agrees with the benchmark's (a confusion table)."""
    from wikihowqa.parse import parse_html

    got = {r["id"]: parse_html(pages[r["id"]], r["url"]).page_type or "none" for r in rows}
    kinds = [*TYPES, "none"]
    lines = ["| benchmark \\ parse_html | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
    for truth in TYPES:
        cells = [str(sum(1 for r in rows if r["page_type"] == truth and got[r["id"]] == k)) for k in kinds]
        lines.append(f"| {truth} | " + " | ".join(cells) + " |")
    agree = sum(got[r["id"]] == r["page_type"] for r in rows)
    return "\n".join(lines) + f"\n\nAgreement: {agree}/{len(rows)} pages."


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Score parse_html, trafilatura, readability-lxml and resiliparse on both dev sets."
    )
    parser.add_argument("--web", type=Path, default=DEFAULT_WEB, help="web-extraction-dev folder")
    parser.add_argument(
        "--articles", type=Path, default=DEFAULT_ARTICLES, help="article-extraction-dev folder"
    )
    parser.add_argument("--rounds", type=int, default=2, help="timed rounds; the fastest counts")
    parser.add_argument("--record", action="store_true", help="add the tables to benchmarks/RESULTS.md")
    args = parser.parse_args()

    import logging

    logging.disable(logging.WARNING)  # trafilatura logs every page it discards
    rows, web_pages = load_web(args.web)
    truth, article_urls, article_pages = load_articles(args.articles)
    extractors: dict[str, Extractor] = {
        "wikihowqa (parse_html)": wikihowqa_parser(),
        TRAFILATURA: trafilatura_default(),
        "readability-lxml (summary text)": _safe(readability_lxml()),
        "resiliparse (main content)": resiliparse_peer(),
    }
    sets = {"web": (web_pages, {r["id"]: r["url"] for r in rows}), "articles": (article_pages, article_urls)}
    outputs, speeds = measure(extractors, sets, args.rounds)
    text = "\n\n".join(
        [
            web_tables(rows, outputs["web"], speeds["web"]),
            article_table(truth, outputs["articles"], speeds["articles"]),
            "**parse_html's page types against the benchmark's (web-extraction-dev, all 450)**\n\n"
            + page_type_table(rows, web_pages),
        ]
    )
    note = (
        f"`python benchmarks/extraction.py --rounds {args.rounds}`; split seed {SEED} (per page type, by "
        "id); "
        "speed: pages per CPU second, fastest of the interleaved rounds, one process."
    )
    print(note, "", text, sep="\n")
    if args.record:
        sys.path.insert(0, str(Path(__file__).parent))
        from results_md import append_run

        append_run("extraction (benchmarks/extraction.py)", f"{note}\n\n{text}")


if __name__ == "__main__":
    main()
