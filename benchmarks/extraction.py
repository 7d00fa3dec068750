"""Main-content extraction: wikihowqa's parser against trafilatura, readability-lxml and resiliparse, on both
development sets in one run.

1. ``web-extraction-dev`` (the WCXB development split: 1,497 pages of 7 page types): the benchmark's word
   F1, precision and recall (means over pages), the share of ``with`` snippets found and of ``without``
   snippets avoided, overall and per page type, for the whole set and for each half of a fixed split:
   ``dev`` (the half the rules were developed on) and ``check`` (the half held back to see whether they
   generalise). The split is by page id, stratified by page type, seeded: per type the sorted ids are
   shuffled with ``random.Random(f"{SEED}:{type}")`` and the first half is ``dev``.
2. ``article-extraction-dev`` (102 news and blog pages): the benchmark's 4-gram shingle F1.

The main peer is trafilatura at its best setting for main content (``include_comments=False``,
``include_tables=True``: the ground truth leaves comments out and keeps tables); its defaults (comments
in) run beside it. The published figures of the folder's README (rs-trafilatura, MinerU-HTML, …) are shown
under the measured rows, marked as published: rs-trafilatura is a Rust crate and MinerU-HTML a 0.6B model,
neither of which can be built or fetched on the machines this runs on (no crates.io, no model weights), so
they are quoted, not run.

Speed: every extractor runs once over every page per round, extractors interleaved, and the fastest
round counts; time is the process's CPU time, so other work on a shared machine slows no extractor's
figure (a ratio against trafilatura, measured in the same run, is the figure to read). The peers get the
page decoded as UTF-8 as the benchmarks' harnesses give it; wikihowqa gets the bytes and the URL and does
all ``parse_html`` does (decoding, page type, pagination, boilerplate, extraction, Markdown, passages).

    python -m benchmarks.extraction [--web DIR] [--articles DIR] [--rounds 1] [--record]

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
TRAFILATURA = "trafilatura (best: comments out, tables in)"
TRAFILATURA_DEFAULTS = "trafilatura (defaults: comments in)"
WIKIHOWQA = "wikihowqa (parse_html)"
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


def wikihowqa_parser(page_types: dict[int, str] | None = None) -> Extractor:
    """parse_html's text; the page type it detected goes into ``page_types`` when given, keyed by the
    ``id()`` of the page's bytes (URLs repeat and some pages have none)."""
    from wikihowqa.parse import parse_html

    def run(body: bytes, url: str) -> str:
        page = parse_html(body, url)
        if page_types is not None:
            page_types[id(body)] = page.page_type or "none"
        return page.text

    return run


def trafilatura_best() -> Extractor:
    import trafilatura

    return lambda body, url: (
        trafilatura.extract(body.decode("utf-8", "replace"), include_comments=False, include_tables=True)
        or ""
    )


def trafilatura_defaults() -> Extractor:
    import trafilatura

    return lambda body, url: trafilatura.extract(body.decode("utf-8", "replace")) or ""


def published(folder: Path) -> dict[str, dict[str, float]]:
    """The published word F1 table of the folder's README: system → column (``all`` and the page types)
    → F1. Empty when the README has none."""
    readme = folder / "README.md"
    if not readme.is_file():
        return {}
    table: dict[str, dict[str, float]] = {}
    header: list[str] = []
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 2:
            header = [] if not line.startswith("|") else header
            continue
        if cells[0] == "system":
            header = cells[1:]
        elif header and not set(cells[1]) <= set("-:"):
            try:
                table[cells[0]] = {k: float(v) for k, v in zip(header, cells[1:], strict=True)}
            except ValueError:
                continue
    return table


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


def web_tables(
    rows: list[dict],
    outputs: dict[str, dict[str, str]],
    speeds: dict[str, float],
    quoted: dict[str, dict[str, float]] | None = None,
) -> str:
    half = split_half(rows)
    scores: dict[str, dict[str, WordScore]] = {
        name: {
            r["id"]: word_score(r["main_content"], out.get(r["id"]), r["with"], r["without"]) for r in rows
        }
        for name, out in outputs.items()
    }
    reference = speeds[TRAFILATURA]
    parts = []
    for label, members in ((f"all {len(rows)} pages", None), *((f"{h} half", h) for h in HALVES)):
        chosen = [r for r in rows if members is None or half[r["id"]] == members]
        lines = [
            f"**web-extraction-dev, {label} ({len(chosen)})** — word F1 / precision / recall, snippets, "
            "speed",
            "",
            "| extractor | F1 | P | R | with found | without avoided | pages/s | vs trafilatura best |",
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
        lines.append("| extractor | all | " + " | ".join(f"{t} ({counts[t]})" for t in TYPES) + " |")
        lines.append("|---|---:|" + "---:|" * len(TYPES))
        for name in outputs:
            cells = [f"{summarise(scores[name][r['id']] for r in chosen).f1:.3f}"]
            for kind in TYPES:
                of_type = [scores[name][r["id"]] for r in chosen if r["page_type"] == kind]
                cells.append(f"{summarise(of_type).f1:.3f}" if of_type else "–")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        if members is None and quoted:
            for system, figures in quoted.items():
                cells = [f"{figures[k]:.3f}" if k in figures else "–" for k in ("all", *TYPES)]
                lines.append(f"| {system} — published, not run here | " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    if quoted:
        parts.append(
            "Published rows: the benchmark's own figures on the same 1,497 development pages (the folder's "
            "README), quoted, not measured: rs-trafilatura (a Rust crate) cannot be built here (no crates.io "
            "or Rust toolchain on these machines) and MinerU-HTML needs model weights that cannot be fetched."
        )
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


def page_type_table(rows: list[dict], pages: dict[str, bytes], detected: dict[int, str]) -> str:
    """How often parse_html's page type (``detected``, by the ``id()`` of the page's bytes) agrees with the
    benchmark's (a confusion table), on all pages and on each half."""
    half = split_half(rows)
    got = {r["id"]: detected.get(id(pages[r["id"]]), "none") for r in rows}
    kinds = [*TYPES, "none"]
    lines = ["| benchmark \\ parse_html | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
    for truth in TYPES:
        cells = [str(sum(1 for r in rows if r["page_type"] == truth and got[r["id"]] == k)) for k in kinds]
        lines.append(f"| {truth} | " + " | ".join(cells) + " |")
    agree = sum(got[r["id"]] == r["page_type"] for r in rows)
    by_half = ", ".join(
        f"{h} half {sum(got[r['id']] == r['page_type'] for r in rows if half[r['id']] == h)}"
        f"/{sum(half[r['id']] == h for r in rows)}"
        for h in HALVES
    )
    return "\n".join(lines) + f"\n\nAgreement: {agree}/{len(rows)} pages ({by_half})."


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Score parse_html, trafilatura, readability-lxml and resiliparse on both dev sets."
    )
    parser.add_argument("--web", type=Path, default=DEFAULT_WEB, help="web-extraction-dev folder")
    parser.add_argument(
        "--articles", type=Path, default=DEFAULT_ARTICLES, help="article-extraction-dev folder"
    )
    parser.add_argument("--rounds", type=int, default=1, help="timed rounds; the fastest counts")
    parser.add_argument("--record", action="store_true", help="add the tables to benchmarks/RESULTS.md")
    args = parser.parse_args()

    import logging

    logging.disable(logging.WARNING)  # trafilatura logs every page it discards
    rows, web_pages = load_web(args.web)
    truth, article_urls, article_pages = load_articles(args.articles)
    detected: dict[int, str] = {}
    extractors: dict[str, Extractor] = {
        WIKIHOWQA: wikihowqa_parser(detected),
        TRAFILATURA: trafilatura_best(),
        TRAFILATURA_DEFAULTS: trafilatura_defaults(),
        "readability-lxml (summary text)": _safe(readability_lxml()),
        "resiliparse (main content)": resiliparse_peer(),
    }
    sets = {
        "web": (web_pages, {r["id"]: r["url"] or "" for r in rows}),
        "articles": (article_pages, article_urls),
    }
    outputs, speeds = measure(extractors, sets, args.rounds)
    text = "\n\n".join(
        [
            web_tables(rows, outputs["web"], speeds["web"], published(args.web)),
            article_table(truth, outputs["articles"], speeds["articles"]),
            f"**parse_html's page types against the benchmark's (web-extraction-dev, all {len(rows)})**\n\n"
            + page_type_table(rows, web_pages, detected),
        ]
    )
    note = (
        f"`python -m benchmarks.extraction --rounds {args.rounds}`; split seed {SEED} (per page type, by "
        "id); "
        "speed: pages per CPU second, fastest of the interleaved rounds, one process."
    )
    print(note, "", text, sep="\n")
    if args.record:
        from benchmarks.results_md import append_run

        append_run("extraction (benchmarks/extraction.py)", f"{note}\n\n{text}")


if __name__ == "__main__":
    main()
