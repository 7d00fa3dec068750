"""Benchmark: reading large dataset files through the row models (pydantic) against the hand-written checks.

The peer is the readers' code before the schema layer: ``src/wikihowqa/io.py`` at commit c0ce5ba, loaded
from git into this process as a module, so both read the same files in the same run, interleaved round
by round (the machine is shared; ratios, not seconds, are the result). Files are written once into a
temporary folder: ``qa.jsonl`` (official fields), ``documents.jsonl`` (passages and text) and a
predictions file, shaped like the real release's rows. Each reader's records must be equal to the
peer's, and the table says so. Two rows per file: the whole read (JSON decoding included) and the row
checks alone (rows already decoded), where the difference is all there is.

Run: ``PYTHONPATH=src python -m benchmarks.rows [--questions 20000] [--rounds 5] [--record]``
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from benchmarks.history import module_at
from wikihowqa.dataset import codecs, writers
from wikihowqa.dataset import readers as row_readers

BEFORE = "c0ce5ba"
ROOT = Path(__file__).resolve().parent.parent


def io_before() -> ModuleType:
    """``wikihowqa/io.py`` as it was at :data:`BEFORE` (the hand-written row checks), as a module."""
    return module_at(BEFORE, "src/wikihowqa/io.py", "io_before")


def words(rng: random.Random, n: int) -> str:
    vocabulary = ("the", "a", "to", "of", "and", "in", "is", "it", "you", "that", "for", "on", "with", "as")
    return " ".join(rng.choice(vocabulary) for _ in range(n))


def write_files(folder: Path, questions: int, seed: int = 0) -> dict[str, Path]:
    rng = random.Random(seed)
    qa, docs, predictions = [], [], []
    for article_id in range(questions):
        urls = [
            f"http://web.archive.org/web/2020/https://site{article_id}-{j}.example/page" for j in range(5)
        ]
        qa.append(
            {
                "article_id": article_id,
                "question": "How to " + words(rng, 6) + "?",
                "answer": words(rng, 90),
                "related_document_urls_wayback_snapshots": urls,
                "split": rng.choice(["train", "validation", "test"]),
                "cluster": rng.randrange(-1, 200),
                "category": "Home and Garden",
            }
        )
        if article_id % 4 == 0:  # a quarter of the questions' documents: the file stays a few hundred MB
            for url in urls:
                passages = [words(rng, 60) for _ in range(8)]
                docs.append(
                    {
                        "article_id": article_id,
                        "original_url": url.split("/2020/")[1],
                        "archive_url": url,
                        "parsed_text": "\n\n".join(passages),
                        "parsed_md": None,
                        "title": words(rng, 5),
                        "passages": passages,
                    }
                )
            predictions.append(
                {
                    "article_id": article_id,
                    "system": "bm25+lead",
                    "answer": words(rng, 80),
                    "passages": [
                        {
                            "archive_url": urls[0],
                            "position": p,
                            "rank": p + 1,
                            "text": words(rng, 20),
                            "score": 1.5,
                        }
                        for p in range(5)
                    ],
                    "settings": {"split": "test", "max_words": 80},
                }
            )
    paths = {
        "qa": folder / "qa.jsonl",
        "documents": folder / "documents.jsonl",
        "predictions": folder / "p.jsonl",
    }
    for name, rows in (("qa", qa), ("documents", docs), ("predictions", predictions)):
        writers.write_jsonl(paths[name], rows)
    return paths


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds of one call, the garbage collector off (its pauses land on whichever side runs next)."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        out = fn()
        return time.perf_counter() - start, out
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--questions", type=int, default=20000, help="rows of qa.jsonl (documents: 5 per 4th)"
    )
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds; the median is reported")
    parser.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = parser.parse_args()

    old = io_before()
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_files(Path(tmp), args.questions)
        rows = {name: [row for _, row in row_readers.iter_rows(path)] for name, path in paths.items()}
        readers: dict[str, tuple[str, Callable[[ModuleType], Callable[[], Any]]]] = {
            "qa.jsonl": ("qa", lambda m: lambda: m.read_examples(paths["qa"])),
            "documents.jsonl": ("documents", lambda m: lambda: m.read_documents(paths["documents"])),
            "predictions": ("predictions", lambda m: lambda: m.read_predictions(paths["predictions"])),
        }
        converters = {
            "qa": "example_from_dict",
            "documents": "document_from_dict",
            "predictions": "prediction_from_dict",
        }
        cases: list[tuple[str, str, Callable[[ModuleType], Callable[[], Any]]]] = []
        for label, (name, reader) in readers.items():
            cases.append((label, "whole read", reader))
            convert = converters[name]
            cases.append(
                (
                    label,
                    "row checks only",
                    lambda m, n=name, c=convert: lambda: [getattr(m, c)(r) for r in rows[n]],
                )
            )
        # Today's readers and codecs (wikihowqa.dataset), under the names the old io module had.
        new = SimpleNamespace(
            **{n: getattr(row_readers, n) for n in ("read_examples", "read_documents", "read_predictions")},
            **{n: getattr(codecs, n) for n in converters.values()},
        )
        times: dict[tuple[str, str, str], list[float]] = {}
        identical: dict[tuple[str, str], bool] = {}
        for _ in range(args.rounds):
            for label, what, make in cases:
                t_old, out_old = timed(make(old))
                t_new, out_new = timed(make(new))
                times.setdefault((label, what, "old"), []).append(t_old)
                times.setdefault((label, what, "new"), []).append(t_new)
                identical[(label, what)] = identical.get((label, what), True) and out_old == out_new

    sizes = {
        "qa.jsonl": len(rows["qa"]),
        "documents.jsonl": len(rows["documents"]),
        "predictions": len(rows["predictions"]),
    }
    lines = [
        f"Rows shaped like the release's: {sizes['qa.jsonl']:,} questions, "
        f"{sizes['documents.jsonl']:,} documents (8 passages each), "
        f"{sizes['predictions']:,} predictions (5 passages each); median of {args.rounds} interleaved rounds "
        f"on the shared 2-core machine, garbage collector off while timed. "
        f"Peer: io.py at {BEFORE} (hand-written checks).",
        "",
        "| file | what | rows | hand-written s | row models s | ratio (models / hand) | records identical |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for label, what, _ in cases:
        t_old = statistics.median(times[(label, what, "old")])
        t_new = statistics.median(times[(label, what, "new")])
        lines.append(
            f"| {label} | {what} | {sizes[label]:,} | {t_old:.3f} | {t_new:.3f} | {t_new / t_old:.2f}x | "
            f"{'yes' if identical[(label, what)] else 'NO'} |"
        )
    print("\n".join(lines))
    if args.record:
        from benchmarks.results_md import append_run

        append_run(
            "reading dataset files: row models vs hand-written checks (benchmarks/rows.py)", "\n".join(lines)
        )


if __name__ == "__main__":
    main()
