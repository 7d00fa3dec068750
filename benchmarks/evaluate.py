"""ROUGE on 11,746 pairs: single-process rouge-score against wikihowqa's scorer, same run, same numbers.

Pairs are synthetic but paper-like: gold answers of 60-120 words in sentences of 8-25 words drawn from
a seeded Zipfian vocabulary (function words on top, inflected content words that stemming merges),
and predictions that keep part of the gold content (some sentences copied, some with words changed,
some new). The peer is ``rouge_score.rouge_scorer.RougeScorer([...4 types], use_stemmer=True).score``
called once per pair on the sentence-per-line texts, the cheapest faithful use of the package.
Every one of the 12 numbers of every pair is compared.

    python -m benchmarks.evaluate [--pairs 11746] [--record]
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

PAPER_PAIRS = 11_746
_FUNCTION_TEXT = """the a to and of you your it in for with is can if or be on that this them as they so are
by from at will not do make sure use before after then until when"""
FUNCTION_WORDS = _FUNCTION_TEXT.split()
SUFFIXES = ["", "", "", "s", "ing", "ed", "er", "ly", "ation", "ness"]


def vocabulary(rng: random.Random, size: int = 6000) -> tuple[list[str], list[float]]:
    syllables = [
        "ba",
        "co",
        "di",
        "fe",
        "ga",
        "ho",
        "ki",
        "lo",
        "ma",
        "ne",
        "pi",
        "ro",
        "sa",
        "tu",
        "ve",
        "wi",
    ]
    stems = {"".join(rng.choices(syllables, k=rng.randint(1, 3))) for _ in range(size)}
    words = list(FUNCTION_WORDS)
    for stem in sorted(stems):
        words.append(stem + rng.choice(SUFFIXES))
    weights = [1.0 / (rank + 1) ** 1.07 for rank in range(len(words))]  # Zipf-like
    return words, weights


def sentence(rng: random.Random, words: list[str], weights: list[float]) -> str:
    tokens = rng.choices(words, weights, k=rng.randint(8, 25))
    if rng.random() < 0.2:
        tokens[rng.randrange(len(tokens))] = str(rng.randint(2, 60))
    text = " ".join(tokens)
    return text[0].upper() + text[1:] + rng.choice([".", ".", ".", "!", "?"])


def make_pairs(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    words, weights = vocabulary(rng)
    predictions, references = [], []
    for _ in range(n):
        gold: list[str] = []
        target = rng.randint(60, 120)
        while sum(len(s.split()) for s in gold) < target:
            gold.append(sentence(rng, words, weights))
        pred: list[str] = []
        for s in gold:
            roll = rng.random()
            if roll < 0.3:
                pred.append(s)
            elif roll < 0.6:
                tokens = s.split()
                for k in range(len(tokens)):
                    if rng.random() < 0.3:
                        tokens[k] = rng.choices(words, weights)[0]
                pred.append(" ".join(tokens))
            elif roll < 0.85:
                pred.append(sentence(rng, words, weights))
        if not pred or rng.random() < 0.3:
            pred.append(sentence(rng, words, weights))
        references.append(" ".join(gold))
        predictions.append(" ".join(pred))
    return predictions, references


def flat(scores: dict) -> list[float]:
    return [
        getattr(scores[t], f) if not isinstance(scores[t], dict) else scores[t][f]
        for t in ("rouge1", "rouge2", "rougeL", "rougeLsum")
        for f in ("precision", "recall", "fmeasure")
    ]


def run_rouge_score(predictions: list[str], references: list[str]) -> list[list[float]]:
    from rouge_score import rouge_scorer

    from wikihowqa.evaluate.rouge import lsum_text

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    lsum_text("Load the sentence splitter's model. Before timing starts.")
    return [
        flat(scorer.score(lsum_text(r), lsum_text(p))) for p, r in zip(predictions, references, strict=True)
    ]


def run_ours(predictions: list[str], references: list[str], workers: int) -> list[list[float]]:
    from wikihowqa.evaluate import rouge

    rouge._tokenizer = None  # a cold start, as in a fresh process
    return [flat(s) for s in rouge.score_pairs(predictions, references, workers=workers)]


def run_pipeline(predictions: list[str], references: list[str], workers: int) -> list[list[float]]:
    """The stage as ``wikihowqa evaluate --no-bertscore --no-grounding`` runs it: files in, scores out."""
    from wikihowqa.core.records import Example, Prediction
    from wikihowqa.dataset.folder import write_dataset_folder
    from wikihowqa.dataset.writers import write_predictions
    from wikihowqa.evaluate import rouge
    from wikihowqa.evaluate.pipeline import ROUGE_COLUMNS, EvaluationSettings, evaluate

    rouge._tokenizer = None
    with tempfile.TemporaryDirectory() as tmp:
        examples = [Example(i, f"How to {i}", r, (), "test") for i, r in enumerate(references)]
        folder = write_dataset_folder(Path(tmp) / "ds", examples, [], {"kind": "benchmark"})
        write_predictions(Path(tmp) / "p.jsonl", [Prediction(i, "sys", p) for i, p in enumerate(predictions)])
        start = time.perf_counter()
        result = evaluate(
            folder.path,
            [Path(tmp) / "p.jsonl"],
            EvaluationSettings(bertscore=None, grounding=None, workers=workers),
            cache_dir=Path(tmp) / "out",
        )
        run_pipeline.seconds = time.perf_counter() - start  # type: ignore[attr-defined]
    scores = result.systems[0].scores
    return [[scores[c][i] for c in ROUGE_COLUMNS] for i in range(len(references))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=PAPER_PAIRS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all CPUs)")
    parser.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    from wikihowqa.runtime.executor import worker_count

    workers = worker_count(args.workers)
    predictions, references = make_pairs(args.pairs, args.seed)
    words = sum(len(r.split()) for r in references) / len(references)
    pred_words = sum(len(p.split()) for p in predictions) / len(predictions)
    print(
        f"{args.pairs} pairs; gold {words:.0f} words, predictions {pred_words:.0f} words on average; "
        f"{os.cpu_count()} CPUs",
        flush=True,
    )

    rows = []
    from wikihowqa.evaluate.rouge import lsum_text

    lsum_text("Load the sentence splitter's model. Before timing starts.")  # shared by all rows
    start = time.perf_counter()
    baseline = run_rouge_score(predictions, references)
    base_seconds = time.perf_counter() - start
    rows.append(("rouge-score 0.1.2 `RougeScorer.score` (nupunkt lines)", 1, base_seconds, 0.0, 0))
    print(f"rouge-score: {base_seconds:.1f} s", flush=True)
    for label, runner, procs in [
        ("wikihowqa `rouge.score_pairs`", lambda: run_ours(predictions, references, 1), 1),
        ("wikihowqa `rouge.score_pairs`", lambda: run_ours(predictions, references, workers), workers),
        (
            "`wikihowqa evaluate` stage, ROUGE only (files in, scores out)",
            lambda: run_pipeline(predictions, references, workers),
            workers,
        ),
    ]:
        start = time.perf_counter()
        ours = runner()
        seconds = getattr(run_pipeline, "seconds", None) if "stage" in label else time.perf_counter() - start
        diffs = [abs(a - b) for x, y in zip(baseline, ours, strict=True) for a, b in zip(x, y, strict=True)]
        rows.append((label, procs, seconds, max(diffs), sum(d > 0 for d in diffs)))
        print(f"{label} ({procs} proc): {seconds:.1f} s", flush=True)

    lines = [
        f"ROUGE-1/2/L/Lsum F/P/R (stemming) on {args.pairs} synthetic pairs (gold ≈{words:.0f} words, "
        f"predictions ≈{pred_words:.0f}), {os.cpu_count()} CPUs, `python -m benchmarks.evaluate"
        f"{'' if args.pairs == PAPER_PAIRS else f' --pairs {args.pairs}'}`",
        "",
        "| implementation | processes | seconds | pairs/s | speed-up vs rouge-score | max abs diff"
        " | values differing |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, procs, seconds, max_diff, differing in rows:
        lines.append(
            f"| {label} | {procs} | {seconds:.1f} | {args.pairs / seconds:.0f}"
            f" | {base_seconds / seconds:.2f}× | {max_diff:.1e} | {differing} of {12 * args.pairs} |"
        )
    table = "\n".join(lines)
    print("\n" + table)
    if args.record:
        from benchmarks.results_md import append_run

        append_run("ROUGE speed and equality (benchmarks/evaluate.py)", table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
