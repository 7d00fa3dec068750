"""The parser checked against a corpus with ground truth: parse every archived HTML page of a corpus in
the demo corpus's format (``archive/cdx.jsonl``, ``archive/snapshots/``, ``truth/<file>.json``; see
docs/demo-corpus.md) and compare article text, title, tables, pagination and encoding with the truth."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikihowqa.parse.decode import codec_for
from wikihowqa.parse.metric import page_counts, score
from wikihowqa.parse.page import parse_html


@dataclass
class CorpusCheck:
    pages: int = 0
    f1: float = 0.0
    precision: float = 0.0
    recall: float = 0.0
    titles: int = 0
    tables: list[int] = field(default_factory=lambda: [0, 0])  # [shown in Markdown, pages with a table]
    pagination: list[int] = field(default_factory=lambda: [0, 0])  # [links found as the truth says, pages]
    encodings: list[int] = field(
        default_factory=lambda: [0, 0]
    )  # [decoded as declared truth, non-UTF-8 pages]
    empty_as_expected: list[int] = field(default_factory=lambda: [0, 0])  # [rejected, pages without text]
    misses: list[dict[str, Any]] = field(default_factory=list)


def check_corpus(corpus: Path) -> CorpusCheck:
    """Parse each HTML snapshot that has a ``truth/<file>.json`` and compare."""
    report = CorpusCheck()
    counts = []
    seen: set[str] = set()
    for line in (corpus / "archive" / "cdx.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        name = row.get("file")
        truth_file = corpus / "truth" / f"{name}.json"
        if not name or name in seen or str(row.get("statuscode")) != "200" or not truth_file.is_file():
            continue
        seen.add(name)
        truth = json.loads(truth_file.read_text(encoding="utf-8"))
        raw = (corpus / "archive" / "snapshots" / name).read_bytes()
        page = parse_html(raw, row["url"], row.get("headers"))
        report.pages += 1
        if not truth.get("main_text", "").strip():
            report.empty_as_expected[1] += 1
            report.empty_as_expected[0] += not page.ok
            continue
        if not page.ok:
            report.misses.append({"file": name, "rejected": page.rejection, "detail": page.detail})
            counts.append(page_counts(truth["main_text"], ""))
            continue
        counts.append(page_counts(truth["main_text"], page.text))
        report.titles += page.title == truth.get("title")
        if truth.get("has_table"):
            report.tables[1] += 1
            report.tables[0] += "|---" in page.markdown
        expected = truth.get("pagination") or {}
        if expected.get("next") or expected.get("view_all"):
            report.pagination[1] += 1
            report.pagination[0] += (expected.get("next"), expected.get("view_all")) == (
                page.pagination.next_url,
                page.pagination.view_all_url,
            )
        declared = codec_for(truth.get("encoding"))
        if declared and declared != "utf-8":
            report.encodings[1] += 1
            # A superset codec (euc_jis_2004 for euc_jp) that yields the same characters is no mojibake.
            report.encodings[0] += declared == page.encoding or _same_text(raw, declared, page.encoding)
    total = score(counts)
    report.f1, report.precision, report.recall = total.f1, total.precision, total.recall
    return report


def _same_text(raw: bytes, declared: str, used: str | None) -> bool:
    try:
        return used is not None and raw.decode(declared) == raw.decode(used)
    except (UnicodeDecodeError, LookupError):
        return False
