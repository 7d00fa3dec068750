"""Benchmark: ``wikihowqa split`` on 11,746 synthetic questions (the paper's count), on CPU.

Measured in one run: the split from scratch (embedding every question with all-MiniLM-L6-v2, HDBSCAN,
rewriting the QA part), the audit that follows it (embeddings cached), and a rerun with the cache.
Peer: scikit-learn's HDBSCAN with its default algorithm (space-partitioning trees) against the brute
force distance matrix used here, on the same sample of embeddings, same labels required. Quality:
how many planted paraphrase groups of the synthetic corpus end up wholly in train.

Run: ``PYTHONPATH=src python -m benchmarks.split [--peer-sample 3000] [--guard 0.9]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np

from wikihowqa.encoders.embed import CACHE_DIR, question_embeddings
from wikihowqa.split.audit import audit_dataset
from wikihowqa.split.splitter import SplitSettings, split_dataset
from wikihowqa.synthetic.dataset import PAPER_DOCUMENTS, PAPER_QUESTIONS, ensure_corpus

DEFAULT_CORPUS = Path(".benchmarks") / "synthetic-paper-seed0"


def planted(result) -> tuple[int, int]:
    groups: dict[int, list[str]] = {}
    for e in result.examples:
        if "paraphrase_group" in e.extra:
            groups.setdefault(e.extra["paraphrase_group"], []).append(e.split)
    return sum(all(s == "train" for s in splits) for splits in groups.values()), len(groups)


def separability(result, emb: np.ndarray) -> str:
    """Why groups leak: how similar a leaked member is to its closest paraphrase, against how similar
    questions outside any planted group are to their nearest neighbour (a distinct synthetic topic)."""
    members: dict[int, list[int]] = {}
    for i, e in enumerate(result.examples):
        if "paraphrase_group" in e.extra:
            members.setdefault(e.extra["paraphrase_group"], []).append(i)
    leaked = [
        (i, [j for j in group if j != i])
        for group in members.values()
        if any(result.examples[j].split != "train" for j in group)
        for i in group
        if result.examples[i].split != "train"
    ]
    if not leaked:
        return "no planted group leaks"
    mate = np.array([float((emb[mates] @ emb[i]).max()) for i, mates in leaked])
    loners = np.array([i for i, e in enumerate(result.examples) if "paraphrase_group" not in e.extra])
    sims = emb[loners] @ emb.T
    sims[np.arange(len(loners)), loners] = -np.inf
    nearest = sims.max(axis=1)
    below = float(np.mean(mate < np.median(nearest)))
    return (
        f"leaked members ({len(leaked)}): similarity to their closest planted paraphrase median "
        f"{np.median(mate):.3f} (min {mate.min():.3f}); questions in no planted group: similarity to their "
        f"nearest (distinct) question median {np.median(nearest):.3f}; {below:.0%} of the leaked members are "
        f"less similar to their paraphrase than the median question is to a distinct one, so no similarity "
        f"threshold keeps them in train without also moving most distinct questions there"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="where the corpus is kept")
    parser.add_argument("--questions", type=int, default=PAPER_QUESTIONS, help="corpus questions")
    parser.add_argument("--peer-sample", type=int, default=3000, help="embeddings for the HDBSCAN peer")
    parser.add_argument("--guard", type=float, default=0.9, help="also report a split with this guard")
    parser.add_argument("--record", action="store_true", help="append the tables to benchmarks/RESULTS.md")
    args = parser.parse_args()
    folder = ensure_corpus(args.corpus, args.questions, max(PAPER_DOCUMENTS, args.questions))
    shutil.rmtree(folder.path / CACHE_DIR, ignore_errors=True)
    settings = SplitSettings()
    rows = []

    started = time.perf_counter()
    result = split_dataset(folder, settings)
    cold = time.perf_counter() - started
    rows.append(("split from scratch (embed, HDBSCAN, write)", cold))
    started = time.perf_counter()
    audit = audit_dataset(folder)
    rows.append(("audit after it (cached embeddings)", time.perf_counter() - started))
    started = time.perf_counter()
    split_dataset(folder, settings)
    rows.append(("split again (cached embeddings)", time.perf_counter() - started))
    guarded = split_dataset(folder, SplitSettings(guard=args.guard))
    split_dataset(folder, settings)  # leave the default split in place for benchmarks/stats.py

    from sklearn.cluster import HDBSCAN

    emb = question_embeddings(folder, folder.examples(), settings.model).astype(np.float64)
    sample = emb[np.random.default_rng(0).permutation(len(emb))[: args.peer_sample]]
    timing = {}
    labels = {}
    for algorithm in ("brute", "auto"):
        started = time.perf_counter()
        labels[algorithm] = HDBSCAN(min_cluster_size=2, algorithm=algorithm, copy=True).fit_predict(sample)
        timing[algorithm] = time.perf_counter() - started

    lines: list[str] = []

    def out(text: str) -> None:
        lines.append(text)

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    whole, groups = planted(result)
    whole_guarded, _ = planted(guarded)
    summary = audit.summary()["splits"]
    out("")
    out(
        f"split benchmark — {time.strftime('%Y-%m-%d')}, commit {commit}; {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f} at the end; {len(result.examples)} questions"
    )
    out("")
    out("| step | seconds |")
    out("|---|---|")
    for name, seconds in rows:
        out(f"| {name} | {seconds:.1f} |")
    out("")
    out(f"target ≤ 180 s for the split from scratch: {'met' if cold <= 180 else 'NOT met'}")
    out("")
    out(f"| HDBSCAN on {len(sample)} embeddings | seconds | speed-up |")
    out("|---|---|---|")
    out(f"| scikit-learn default (algorithm='auto', trees) | {timing['auto']:.1f} | 1.0× |")
    out(
        f"| wikihowqa (algorithm='brute') | {timing['brute']:.1f} | {timing['auto'] / timing['brute']:.1f}× |"
    )
    out(f"same labels: {bool(np.array_equal(labels['auto'], labels['brute']))}")
    out("")
    c = result.counts
    out(
        f"split: {result.clusters} clusters holding {result.clustered} questions; train {c['train']}, "
        f"validation {c['validation']}, test {c['test']}; warnings: {result.warnings or 'none'}"
    )
    out(
        f"planted paraphrase groups wholly in train: {whole}/{groups} (with --guard {args.guard:g}: "
        f"{whole_guarded}/{groups}, {guarded.guarded} questions kept in train by the guard)"
    )
    out(separability(result, emb.astype(np.float32)))
    out(
        f"audit: validation/test questions at or above {audit.threshold:g}: "
        f"{summary['all']['above_threshold']} of {summary['all']['questions']}; "
        f"same normalised title: {summary['all']['same_normalised_title']}"
    )

    print("\n".join(lines))
    if args.record:
        from benchmarks.results_md import append_run

        append_run("split on 11,746 synthetic questions (benchmarks/split.py)", "\n".join(lines[1:]))


if __name__ == "__main__":
    main()
