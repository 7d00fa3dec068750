"""The explorer's data as small script files that the pages load when they need them.

A page opened from disk (``file://``) cannot ``fetch`` its data in Chromium, but it can load a script; so
each data file is one call, ``wikihowqaData("name", "<JSON text>")``, whose argument the page parses with
``JSON.parse`` (no ``eval``: the JSON is a string literal, and ``json.dumps`` of it escapes every quote and
line break, so no text can end the literal). Files:

- ``data/site.js``: systems, metrics, splits, categories and the number of question shards;
- ``data/index.js``: every question's id, text, split and category (the questions page's table);
- ``data/scores/<k>.js``: metric ``k``'s displayed value of every system on every question;
- ``data/q/<n>.js``: shard ``n`` of the questions (``article_id % shards``): gold answer, every system's
  answer, scores and per-sentence grounding, and the documents cut into passages;
- ``data/md/<n>.js``: the same questions' documents as parsed Markdown trees (read on demand).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from wikihowqa.core.records import Document, Example
from wikihowqa.view.markdown import markdown_tree, safe_href
from wikihowqa.view.sources import Answer, Metric, Sources, page_type, passage_spans

#: Aim of one question shard's size (bytes of text); the largest come out near twice this.
SHARD_BYTES = 400_000
CALLBACK = "wikihowqaData"


@dataclass(frozen=True, slots=True)
class DataFile:
    """A data file: where it goes under ``data/``, and its content."""

    path: str
    name: str
    value: Any

    def script(self) -> str:
        text = json.dumps(self.value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return f"{CALLBACK}({json.dumps(self.name)},{json.dumps(text, ensure_ascii=True)});\n"


def _round(value: float | None, scale: float) -> float | None:
    return None if value is None else round(value * scale, 4)


def shard_count(sources: Sources) -> int:
    """How many question shards: the text of documents and answers over ``SHARD_BYTES``, at least one."""
    total = sum(len(d.parsed_text) for docs in sources.documents.values() for d in docs)
    total += sum(len(a.text) * 2 for answers in sources.answers.values() for a in answers)
    return max(1, math.ceil(total / SHARD_BYTES))


def site_data(sources: Sources, shards: int) -> DataFile:
    splits = sorted({e.split or "none" for e in sources.examples})
    categories = sorted({e.category or "(none)" for e in sources.examples})
    metrics = [{"label": m.label, "column": m.column, "scale": m.scale} for m in sources.metrics]
    return DataFile(
        "site.js",
        "site",
        {
            "systems": sources.systems,
            "metrics": metrics,
            "splits": splits,
            "categories": categories,
            "shards": shards,
            "questions": len(sources.examples),
        },
    )


def index_data(sources: Sources) -> DataFile:
    splits = sorted({e.split or "none" for e in sources.examples})
    categories = sorted({e.category or "(none)" for e in sources.examples})
    return DataFile(
        "index.js",
        "index",
        {
            "ids": [e.article_id for e in sources.examples],
            "q": [e.question for e in sources.examples],
            "split": [splits.index(e.split or "none") for e in sources.examples],
            "cat": [categories.index(e.category or "(none)") for e in sources.examples],
        },
    )


def score_data(sources: Sources) -> Iterator[DataFile]:
    """One file per metric: per system, the value the leaderboard shows (× its scale), ``null`` if none."""
    for k, metric in enumerate(sources.metrics):
        values = []
        for system in sources.systems:
            column = []
            for e in sources.examples:
                answer = next((a for a in sources.answers[e.article_id] if a.system == system), None)
                column.append(_round(answer.scores.get(metric.column), metric.scale) if answer else None)
            values.append(column)
        yield DataFile(f"scores/{k}.js", f"scores/{k}", {"label": metric.label, "values": values})


def _sentences(answer: Answer) -> list[Any] | None:
    if answer.sentences is None:
        return None
    return [
        [
            s.sentence,
            round(s.support, 4),
            int(s.supported),
            [[pid, round(score, 4)] for pid, score in s.passages],
            [[c, pid, text, round(p, 3), list(clashes)] for c, pid, text, p, clashes in s.evidence],
        ]
        for s in answer.sentences
    ]


def _error_spans(answer: Answer) -> list[Any]:
    """Assessors' spans, each with the grounding sentences it touches (their indexes in ``s``), so the page
    shows an assessor's error beside grounding's flag on the same sentence."""
    if not answer.error_spans:
        return []
    where: list[tuple[int, int] | None] = []
    cursor = 0
    for s in answer.sentences or ():
        at = answer.text.find(s.sentence, cursor)
        where.append(None if at < 0 else (at, at + len(s.sentence)))
        cursor = cursor if at < 0 else at + len(s.sentence)
    return [
        [
            e.text,
            e.type,
            e.severity,
            e.assessor,
            e.part,
            int(e.simulated),
            [k for k, w in enumerate(where) if w is not None and w[0] < e.end and e.start < w[1]],
        ]
        for e in answer.error_spans
    ]


def _segments(document: Document) -> list[Any]:
    """The document's text as pieces: a string is text between passages, ``[k, text]`` is passage ``k``.
    A document whose passages are not slices of its text (parsed elsewhere) is shown as its passages."""
    spans = passage_spans(document)
    if any(start == end for start, end in spans) and document.passages:
        pieces: list[Any] = []
        for k, passage in enumerate(document.passages):
            if k:
                pieces.append("\n\n")
            pieces.append([k, passage])
        return pieces
    text = document.parsed_text
    pieces = []
    at = 0
    for k, (start, end) in enumerate(spans):
        if start > at:
            pieces.append(text[at:start])
        pieces.append([k, text[start:end]])
        at = max(at, end)
    if at < len(text):
        pieces.append(text[at:])
    return pieces


def _document(document: Document) -> dict[str, Any]:
    return {
        "title": document.title or "",
        "url": document.original_url,
        "href": safe_href(document.original_url),
        "archive": safe_href(document.archive_url),
        "archive_text": document.archive_url,
        "type": page_type(document),
        "pieces": _segments(document),
    }


def _metric_values(answer: Answer, metrics: Sequence[Metric]) -> dict[str, float | None]:
    return {
        m.label: _round(answer.scores.get(m.column), m.scale) for m in metrics if m.column in answer.scores
    }


def question_record(sources: Sources, example: Example) -> dict[str, Any]:
    gold = sources.gold.get(example.article_id)
    return {
        "id": example.article_id,
        "question": example.question,
        "answer": example.answer,
        "split": example.split or "none",
        "category": example.category or "(none)",
        "gold": None
        if gold is None
        else {"scores": _metric_values(gold, sources.metrics), "s": _sentences(gold)},
        "answers": [
            {
                "system": a.system,
                "text": a.text,
                "scores": _metric_values(a, sources.metrics),
                "s": _sentences(a),
                **({"err": _error_spans(a)} if a.error_spans else {}),
            }
            for a in sources.answers[example.article_id]
        ],
        "docs": [_document(d) for d in sources.documents.get(example.article_id, [])],
    }


def question_shards(sources: Sources, shards: int) -> Iterator[DataFile]:
    """Shard ``n`` holds the questions whose ``article_id % shards == n``, and its Markdown twin."""
    groups: list[list[Example]] = [[] for _ in range(shards)]
    for e in sources.examples:
        groups[e.article_id % shards].append(e)
    for n, group in enumerate(groups):
        yield DataFile(f"q/{n}.js", f"q/{n}", {str(e.article_id): question_record(sources, e) for e in group})
        yield DataFile(
            f"md/{n}.js",
            f"md/{n}",
            {
                str(e.article_id): [
                    markdown_tree(d.parsed_md or "") for d in sources.documents.get(e.article_id, [])
                ]
                for e in group
            },
        )


def data_files(sources: Sources) -> Iterator[DataFile]:
    shards = shard_count(sources)
    yield site_data(sources, shards)
    yield index_data(sources)
    yield from score_data(sources)
    yield from question_shards(sources, shards)
