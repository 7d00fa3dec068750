"""Extractive baselines: PageRank by numpy power iteration vs networkx, and the incremental ROUGE oracle
vs the plain greedy oracle that calls ``rouge-score`` for every candidate (same selections, checked).

    python -m benchmarks.extractive              # graphs of 50/200/500 sentences; 30 oracle questions
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from wikihowqa.core.records import Passage
from wikihowqa.generate import extractive
from wikihowqa.retrieve.ranking import Ranked

WORDS = [
    "dry",
    "figs",
    "oven",
    "low",
    "heat",
    "cut",
    "half",
    "rack",
    "hours",
    "sun",
    "sugar",
    "water",
    "boiling",
    "the",
    "a",
    "and",
    "in",
    "on",
    "for",
    "with",
    "to",
    "of",
    "place",
    "leave",
    "check",
    "turn",
    "store",
    "jar",
    "airtight",
    "until",
    "leathery",
    "sticky",
    "soft",
    "remove",
    "stem",
    "wash",
    "pat",
    "towel",
    "tray",
]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 22))).capitalize() + "."


def best_of(rounds: int, fn) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def networkx_pagerank(weights: np.ndarray) -> np.ndarray:
    import networkx as nx

    graph = nx.from_numpy_array(weights, create_using=nx.DiGraph)
    ranks = nx.pagerank(graph, alpha=0.85, tol=1e-10, weight="weight")
    return np.array([ranks[i] for i in range(weights.shape[0])])


def plain_greedy_oracle(pool: list[extractive.Sentence], gold: str, scorer) -> tuple[str, ...]:
    """The textbook oracle: at each step score every candidate set's joined text with rouge-score."""
    ordered = sorted(pool, key=lambda s: s.order)
    selected: list[extractive.Sentence] = []
    best = 0.0
    while True:
        choice, choice_score = None, best
        for s in ordered:
            if s in selected or not extractive.rouge_tokens(s.text):
                continue
            text = " ".join(t.text for t in sorted([*selected, s], key=lambda t: t.order))
            r = scorer.score(gold, text)
            score = r["rouge1"].fmeasure + r["rouge2"].fmeasure
            if score > choice_score + 1e-12:
                choice, choice_score = s, score
        if choice is None:
            return tuple(t.text for t in sorted(selected, key=lambda t: t.order))
        selected.append(choice)
        best = choice_score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--oracle-questions", type=int, default=30)
    parser.add_argument("--sentences", type=int, default=120, help="candidate sentences per oracle question")
    args = parser.parse_args()
    rng = random.Random(0)
    rows = []

    for n in args.sizes:
        tokens = extractive._tokens([sentence(rng) for _ in range(n)])
        for method, weights in (
            ("textrank", extractive.textrank_weights(tokens)),
            ("lexrank", extractive.lexrank_weights(tokens)),
        ):
            t_ours, ours = best_of(args.rounds, lambda w=weights: extractive.pagerank(w))
            t_nx, theirs = best_of(args.rounds, lambda w=weights: networkx_pagerank(w))
            diff = float(np.abs(np.asarray(ours) - np.asarray(theirs)).max())
            rows.append((f"PageRank, {method} graph of {n} sentences", t_ours, t_nx, f"max |Δ| {diff:.1e}"))

    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=True)
    cases = []
    for q in range(args.oracle_questions):
        texts = [" ".join(sentence(rng) for _ in range(4)) for _ in range(args.sentences // 4)]
        ranking = [Ranked(Passage(q, i // 5, i, t), 0.0, i + 1) for i, t in enumerate(texts)]
        cases.append((ranking, " ".join(sentence(rng) for _ in range(5))))
    t_ours, ours = best_of(
        1, lambda: [tuple(s.text for s in extractive.oracle(r, g).sentences) for r, g in cases]
    )
    t_plain, plain = best_of(
        1, lambda: [plain_greedy_oracle(extractive.sentences_of(r), g, scorer) for r, g in cases]
    )
    same = sum(a == b for a, b in zip(ours, plain, strict=True))  # type: ignore[call-overload]
    rows.append(
        (
            f"oracle, {args.oracle_questions} questions × {args.sentences} sentences",
            t_ours,
            t_plain,
            f"same selection {same}/{len(cases)}",
        )
    )

    header = ("task", "wikihowqa s", "peer s", "peer", "speed-up", "check")
    table = []
    for task, ours_s, peer_s, check in rows:
        peer = "plain greedy + rouge-score" if task.startswith("oracle") else "networkx.pagerank"
        table.append((task, f"{ours_s:.4f}", f"{peer_s:.4f}", peer, f"{peer_s / ours_s:.1f}×", check))
    widths = [max(len(h), *(len(r[i]) for r in table)) for i, h in enumerate(header)]
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-|-".join("-" * w for w in widths))
    for r in table:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


if __name__ == "__main__":
    main()
