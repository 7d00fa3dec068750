"""Cohen's kappa over many assessor pairs: wikihowqa's vectorised kappa next to scikit-learn's, same run.

PYTHONPATH=src python -m benchmarks.humaneval_kappa [--pairs 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.metrics import cohen_kappa_score

from wikihowqa.humaneval.analysis import cohen_kappa


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=2000, help="assessor pairs to score")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    data = [(rng.integers(0, 5, 12), rng.integers(0, 5, 12)) for _ in range(args.pairs)]
    rows = []
    contenders = (("wikihowqa cohen_kappa", cohen_kappa), ("sklearn cohen_kappa_score", cohen_kappa_score))
    for name, fn in contenders:
        start = time.perf_counter()
        values = [fn(a, b) for a, b in data]
        elapsed = time.perf_counter() - start
        rows.append((name, elapsed, values))
    ours, ref = rows[0][2], rows[1][2]
    assert np.allclose(ours, ref), "the two implementations disagree"
    print("| implementation | pairs | seconds | ms/pair | vs sklearn |\n|---|---|---|---|---|")
    for name, elapsed, _ in rows:
        print(
            f"| {name} | {args.pairs} | {elapsed:.3f} | {1000 * elapsed / args.pairs:.3f} | "
            f"{rows[1][1] / elapsed:.1f}× |"
        )
    print(f"max |difference| = {max(abs(a - b) for a, b in zip(ours, ref, strict=True)):.2e}")


if __name__ == "__main__":
    main()
