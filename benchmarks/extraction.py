"""Main-content extraction: wikihowqa's parser against trafilatura, readability-lxml and html2text.

Scores every extractor on the article-extraction benchmark's development pages with the project's own
implementation of the benchmark's metric (``wikihowqa.parse.metric``), and times them in the same run,
interleaved (each round runs every extractor once over all pages; the fastest round counts), so a busy
machine slows all of them alike. The peers get the page as the benchmark's own harness gives it (the
bytes decoded as UTF-8); wikihowqa gets the bytes and the URL and does everything ``parse_html`` does
(decoding, pagination detection, boilerplate removal, extraction, Markdown, passages).

    python benchmarks/extraction.py [--data DIR] [--rounds 3] [--ablation] [--record]

``--record`` puts the table at the top of ``benchmarks/RESULTS.md`` (``results_md.append_run``: date, commit).
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from wikihowqa.parse.metric import Score, evaluate  # noqa: E402

DEFAULT_DATA = next(
    (
        p / "shared" / "data" / "article-extraction-dev"
        for p in ROOT.parents
        if (p / "shared" / "data").is_dir()
    ),
    ROOT.parent / "shared" / "data" / "article-extraction-dev",
)
Extractor = Callable[[bytes, str], str]


def load(folder: Path) -> tuple[dict[str, str], dict[str, str], dict[str, bytes]]:
    truth_file = folder / "ground-truth.json"
    if not truth_file.is_file():
        sys.exit(f"{folder}: no ground-truth.json (pass --data DIR)")
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


def html2text_peer() -> Extractor:
    import html2text

    def run(body: bytes, url: str) -> str:
        converter = html2text.HTML2Text()
        converter.ignore_links = True
        converter.ignore_images = True
        return converter.handle(body.decode("utf-8", "replace"))

    return run


def resiliparse_peer() -> Extractor | None:
    try:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree
    except ImportError:
        return None

    def run(body: bytes, url: str) -> str:
        tree = HTMLTree.parse_from_bytes(body, "utf-8")
        return extract_plain_text(tree, main_content=True, alt_texts=False, links=False, form_fields=False)

    return run


def ablation() -> dict[str, Extractor]:
    """The steps of wikihowqa's cascade switched on one by one (what the choice of extractor rests on)."""
    import lxml.html

    from wikihowqa.parse.boilerplate import remove_boilerplate
    from wikihowqa.parse.decode import decode_html
    from wikihowqa.parse.html import extract

    def variant(clean: bool, join: bool, rescue: bool) -> Extractor:
        def run(body: bytes, url: str) -> str:
            root = lxml.html.document_fromstring(decode_html(body).text)
            if clean:
                remove_boilerplate(root)
            return extract(root, join_chunks=join, rescue=rescue).text

        return run

    return {
        "  trafilatura fast+precision only": variant(False, False, False),
        "  + recall rescue of near-empty results": variant(False, False, True),
        "  + boilerplate removal first": variant(True, False, True),
        "  + joining split article bodies": variant(True, True, True),
    }


def measure(extractors: dict[str, Extractor], pages: dict[str, bytes], urls: dict[str, str], rounds: int):
    outputs: dict[str, dict[str, str]] = {}
    best: dict[str, float] = {name: float("inf") for name in extractors}
    for _ in range(rounds):
        for name, run in extractors.items():
            start = time.perf_counter()
            result = {key: run(body, urls[key]) for key, body in pages.items()}
            best[name] = min(best[name], time.perf_counter() - start)
            outputs[name] = result
    return outputs, {name: len(pages) / seconds for name, seconds in best.items()}


def table(rows: list[tuple[str, Score, float]], reference: float | None) -> str:
    lines = [
        "| extractor | F1 | precision | recall | pages/s | speed vs trafilatura |",
        "|---|---|---|---|---|---|",
    ]
    for name, score, speed in rows:
        ratio = f"{speed / reference:.2f}×" if reference else "–"
        lines.append(
            f"| {name.strip() if not name.startswith('  ') else '↳ ' + name.strip()} | {score.f1:.4f} | "
            f"{score.precision:.4f} | {score.recall:.4f} | {speed:.1f} | {ratio} |"
        )
    return "\n".join(lines)


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="benchmark folder (html/, ground-truth.json)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds; the fastest counts")
    parser.add_argument("--ablation", action="store_true", help="also score the cascade's steps one by one")
    parser.add_argument("--record", action="store_true", help="add the table to benchmarks/RESULTS.md")
    args = parser.parse_args()

    import logging

    logging.disable(logging.WARNING)  # trafilatura logs every page it discards
    truth, urls, pages = load(args.data)
    extractors: dict[str, Extractor] = {
        "wikihowqa (parse_html)": wikihowqa_parser(),
        "trafilatura (default settings)": trafilatura_default(),
        "readability-lxml (summary text)": readability_lxml(),
        "html2text": html2text_peer(),
    }
    fast = resiliparse_peer()
    if fast is not None:
        extractors["resiliparse (main content)"] = fast
    if args.ablation:
        extractors.update(ablation())
    outputs, speeds = measure(extractors, pages, urls, args.rounds)
    rows = [(name, evaluate(truth, outputs[name]), speeds[name]) for name in extractors]
    text = table(rows, speeds["trafilatura (default settings)"])
    note = (
        f"`python benchmarks/extraction.py --rounds {args.rounds}{' --ablation' if args.ablation else ''}` "
        f"on {len(pages)} pages ({args.data.name}); metric: 4-gram shingle F1 of the article-extraction "
        "benchmark (`wikihowqa.parse.metric`); speed: fastest of the interleaved rounds, one process."
    )
    print(f"extraction — {date.today().isoformat()}, commit {_commit()}", "", note, "", text, sep="\n")
    if args.record:
        sys.path.insert(0, str(Path(__file__).parent))
        from results_md import append_run

        append_run("extraction (benchmarks/extraction.py)", f"{note}\n\n{text}")


if __name__ == "__main__":
    main()
