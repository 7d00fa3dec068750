"""Benchmark: full ``wikihowqa stats`` on the synthetic paper-scale corpus, against the reference code.

The corpus (11,746 questions, 74,527 documents; ``wikihowqa.synthetic.dataset``) is generated once into
``.benchmarks/`` and reused; it is split first if it has no splits (timed apart: benchmarks/split.py).
Then:

* the whole ``stats`` step (read the folder, Table 1, novel n-grams, fragments, report, figures; the
  audit reused from the split) with ``--workers`` processes, wall time;
* the peer, measured in the same run on a sample of examples: a straightforward implementation of the
  reference definitions — the Newsroom ``Fragments`` code path (``spacy`` tokenizer call on the whole
  text, lowercasing, the O(|S|·|A|) greedy loop) and the Multi-News script's steps (tok-tok per sentence,
  ``np.setdiff1d`` over joined n-grams) — against wikihowqa's code on the same sample in one process;
  their per-example outputs must be identical, and the table says so.

Run: ``PYTHONPATH=src python -m benchmarks.stats [--sample 20] [--workers 2]``
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.stats.corpus import example_stats
from wikihowqa.stats.report import describe
from wikihowqa.synthetic.dataset import PAPER_DOCUMENTS, PAPER_QUESTIONS, ensure_corpus

DEFAULT_CORPUS = Path(".benchmarks") / "synthetic-paper-seed0"


class Reference:
    """The reference definitions, written the straightforward way (as their authors' scripts do)."""

    def __init__(self) -> None:
        import nupunkt
        import spacy
        from nltk.tokenize import ToktokTokenizer

        self.nlp = spacy.blank("en")
        self.toktok = ToktokTokenizer()
        self.sent_tokenize = nupunkt.sent_tokenize

    def _match(self, a: list[str], b: list[str]) -> list[tuple[int, int, int]]:
        """``newsroom.analyze.fragments.Fragments._match``, transcribed."""
        matches = []
        a_start = b_start = 0
        while a_start < len(a):
            best, best_len = None, 0
            while b_start < len(b):
                if a[a_start] == b[b_start]:
                    a_end, b_end = a_start, b_start
                    while a_end < len(a) and b_end < len(b) and b[b_end] == a[a_end]:
                        b_end += 1
                        a_end += 1
                    length = a_end - a_start
                    if length > best_len:
                        best, best_len = (a_start, b_start, length), length
                    b_start = b_end
                else:
                    b_start += 1
            b_start = 0
            if best:
                matches.append(best)
                a_start += best_len
            else:
                a_start += 1
        return matches

    def _words(self, text: str) -> tuple[int, int, list[str]]:
        sents = self.sent_tokenize(text)
        tokens = [t for s in sents for t in self.toktok.tokenize(s)]
        return len(tokens), len(sents), [t.lower() for t in tokens]

    @staticmethod
    def _novel(summary: list[str], source: list[str], n: int) -> float | None:
        grams = [" ".join(summary[i : i + n]) for i in range(len(summary) - n + 1)]
        seen = [" ".join(source[i : i + n]) for i in range(len(source) - n + 1)]
        return len(np.setdiff1d(grams, seen)) / len(grams) if grams else None

    def example(self, answer: str, documents: list[str]) -> tuple:
        words, sents, summary = self._words(answer)
        doc_counts = [self._words(d) for d in documents]
        source = [t for _, _, tokens in doc_counts for t in tokens]
        novel = tuple(self._novel(summary, source, n) for n in (1, 2, 3, 4))
        s = [t.text.lower() for t in self.nlp(answer)]
        a = [t.text.lower() for t in self.nlp("\n\n".join(documents))]
        matches = self._match(s, a)
        coverage = sum(k for *_, k in matches) / len(s) if s else 0
        density = sum(k * k for *_, k in matches) / len(s) if s else 0
        compression = len(a) / len(s) if s else 0
        return (
            words,
            sents,
            tuple(w for w, _, _ in doc_counts),
            tuple(n for _, n, _ in doc_counts),
            novel,
            coverage,
            density,
            compression,
        )


def fast(stats) -> tuple:
    return (
        stats.answer_words,
        stats.answer_sentences,
        stats.document_words,
        stats.document_sentences,
        stats.novel,
        stats.coverage,
        stats.density,
        stats.compression,
    )


def same(x, y) -> bool:
    if isinstance(x, tuple):
        return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, float) or isinstance(y, float):
        return x is not None and y is not None and abs(x - y) <= 1e-9 * max(1.0, abs(x))
    return x == y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="where the corpus is kept")
    parser.add_argument("--questions", type=int, default=PAPER_QUESTIONS, help="corpus questions")
    parser.add_argument("--documents", type=int, default=PAPER_DOCUMENTS, help="corpus documents")
    parser.add_argument("--sample", type=int, default=20, help="examples measured against the reference")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the full run")
    parser.add_argument("--record", action="store_true", help="append the tables to benchmarks/RESULTS.md")
    args = parser.parse_args()

    started = time.perf_counter()
    folder = ensure_corpus(args.corpus, args.questions, args.documents)
    print(f"corpus ready in {time.perf_counter() - started:.1f} s: {folder.path}")
    examples = folder.examples()
    if not any(e.split for e in examples):
        from wikihowqa.split.splitter import SplitSettings, split_dataset

        started = time.perf_counter()
        split_dataset(folder, SplitSettings())
        print(f"split (needed once) in {time.perf_counter() - started:.1f} s")
        examples = folder.examples()

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        report = describe(DatasetFolder(folder.path), Path(tmp) / "report", workers=args.workers)
        full = time.perf_counter() - started

    texts: dict[int, list[str]] = {}
    for d in folder.documents():
        texts.setdefault(d.article_id, []).append(d.parsed_text)
    sample = random.Random(0).sample(examples, min(args.sample, len(examples)))
    sample_words = sum(len(t.split()) for e in sample for t in texts[e.article_id])
    corpus_words = sum(len(t.split()) for ts in texts.values() for t in ts)

    reference = Reference()
    reference.example("Warm up.", ["Warm up the tokenizers."])
    started = time.perf_counter()
    expected = [reference.example(e.answer, texts[e.article_id]) for e in sample]
    ref_time = time.perf_counter() - started
    example_stats(sample[0], texts[sample[0].article_id])  # load the tokenizers outside the timing
    started = time.perf_counter()
    got = [fast(example_stats(e, texts[e.article_id])) for e in sample]
    fast_time = time.perf_counter() - started
    identical = sum(same(x, y) for x, y in zip(expected, got, strict=True))
    ref_full = ref_time * corpus_words / sample_words  # the reference extrapolated by words

    lines: list[str] = []

    def out(text: str) -> None:
        lines.append(text)

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    row = report.table1["all"]
    out("")
    out(
        f"stats benchmark — {time.strftime('%Y-%m-%d')}, commit {commit}; {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f} at the end"
    )
    out(
        f"corpus: {row['questions']} questions, {row['documents']} documents, {corpus_words:,} words "
        f"(whitespace-separated); sample: {len(sample)} examples, {sample_words:,} words"
    )
    out("")
    out("| run | examples | seconds | speed-up vs reference |")
    out("|---|---|---|---|")
    out(f"| reference code, sample, 1 process | {len(sample)} | {ref_time:.1f} | 1.0× |")
    out(
        f"| wikihowqa, same sample, 1 process | {len(sample)} | {fast_time:.2f} "
        f"| {ref_time / fast_time:.1f}× |"
    )
    out(
        f"| reference code, whole corpus (extrapolated by words) | {row['questions']} "
        f"| {ref_full:.0f} | 1.0× |"
    )
    out(
        f"| wikihowqa `stats`, whole corpus, {args.workers} processes (incl. I/O, report, figures) "
        f"| {row['questions']} | {full:.1f} | {ref_full / full:.1f}× |"
    )
    out("")
    out(
        f"identical per-example results (counts, novel n-grams, coverage, density, compression): "
        f"{identical}/{len(sample)}; "
        f"target ≤ 120 s for the whole corpus: {'met' if full <= 120 else 'NOT met'}"
    )
    out(f"phases of the whole-corpus run (s): {report.seconds}")
    frag, novel = report.fragments["all"], report.table2["all"]
    out(
        f"corpus values: coverage {frag['coverage']['mean']:.3f}, density {frag['density']['mean']:.2f}, "
        f"compression {frag['compression']['mean']:.1f}; novel n-grams "
        + " / ".join(f"{novel[f'novel_{n}grams_percent']:.1f}" for n in (1, 2, 3, 4))
        + " %"
    )

    print("\n".join(lines))
    if args.record:
        from benchmarks.results_md import append_run

        append_run("stats on the synthetic paper-scale corpus (benchmarks/stats.py)", "\n".join(lines[1:]))


if __name__ == "__main__":
    main()
