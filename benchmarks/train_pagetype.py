"""Fit the page-type forest of :mod:`wikihowqa.parse.pagetype_model` on the web-extraction benchmark's
development half, and compare it with the rules on the check half.

Each page is parsed as :func:`wikihowqa.parse.parse_html` parses it and its features are captured at the
point where the page type is decided; a scikit-learn random forest (fixed seed, so the same file comes out
of the same pages) is fitted on the ``dev`` half's labels (the seeded split of ``extraction.py``) and
written as plain arrays, read at parse time without scikit-learn.

    python -m benchmarks.train_pagetype [--web DIR] [--trees 40] [--depth 10] [--write]

Without ``--write`` only the accuracies are printed.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from benchmarks.extraction import DEFAULT_WEB, load_web, split_half  # noqa: E402
from wikihowqa.parse import page as page_module  # noqa: E402
from wikihowqa.parse.pagetype import classify  # noqa: E402
from wikihowqa.parse.pagetype_model import FEATURES, MODEL_FILE, page_features  # noqa: E402


class _Captured(Exception):
    pass


def capture(rows: list[dict], pages: dict[str, bytes]) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Features and the rules' type of every page, taken from inside ``parse_html``."""
    features: dict[str, list[float]] = {}
    rules: dict[str, str] = {}
    current = {"id": ""}

    def spy(root, url, found, sizes):  # type: ignore[no-untyped-def]
        features[current["id"]] = page_features(root, url, found, sizes)
        rules[current["id"]] = classify(found)
        raise _Captured  # the rest of the parse is not needed (parse_html turns this into a rejection)

    real = page_module.page_type_of
    page_module.page_type_of = spy
    try:
        for i, row in enumerate(rows):
            current["id"] = row["id"]
            page_module.parse_html(pages[row["id"]], row["url"] or "")
            if i % 100 == 0:
                print(f"  {i}/{len(rows)} pages", file=sys.stderr)
    finally:
        page_module.page_type_of = real
    return features, rules


def export(forest, classes: list[str]) -> dict:  # type: ignore[no-untyped-def]
    trees = []
    for estimator in forest.estimators_:
        tree = estimator.tree_
        value = tree.value[:, 0, :]
        shares = value / value.sum(axis=1, keepdims=True)
        trees.append(
            {
                "left": tree.children_left.tolist(),
                "right": tree.children_right.tolist(),
                "feature": [int(f) if f >= 0 else 0 for f in tree.feature],
                "threshold": [round(float(t), 6) for t in tree.threshold],
                "value": [[round(float(v), 4) for v in row] for row in shares],
            }
        )
    return {"features": list(FEATURES), "classes": classes, "trees": trees}


def main() -> None:
    parser = argparse.ArgumentParser(description="Fit the page-type forest on the dev half.")
    parser.add_argument("--web", type=Path, default=DEFAULT_WEB, help="web-extraction-dev folder")
    parser.add_argument("--trees", type=int, default=60, help="trees in the forest")
    parser.add_argument("--depth", type=int, default=12, help="deepest level of each tree")
    parser.add_argument("--write", action="store_true", help=f"write {MODEL_FILE.name}")
    parser.add_argument("--features", type=Path, help="JSON file caching the captured features")
    args = parser.parse_args()
    from sklearn.ensemble import RandomForestClassifier

    logging.disable(logging.WARNING)
    rows, pages = load_web(args.web)
    half = split_half(rows)
    if args.features and args.features.is_file():
        features, rules = json.loads(args.features.read_text())
    else:
        features, rules = capture(rows, pages)
        if args.features:
            args.features.write_text(json.dumps([features, rules]))
    dev = [r for r in rows if half[r["id"]] == "dev"]
    check = [r for r in rows if half[r["id"]] == "check"]
    forest = RandomForestClassifier(
        n_estimators=args.trees, max_depth=args.depth, min_samples_leaf=2, random_state=0, n_jobs=1
    )
    forest.fit([features[r["id"]] for r in dev], [r["page_type"] for r in dev])
    classes = [str(c) for c in forest.classes_]
    model = export(forest, classes)
    from wikihowqa.parse.pagetype_model import predict

    for label, chosen in (("dev", dev), ("check", check)):
        learned = sum(predict(features[r["id"]], model) == r["page_type"] for r in chosen)
        ruled = sum(rules[r["id"]] == r["page_type"] for r in chosen)
        print(f"{label} half ({len(chosen)} pages): forest {learned} right, rules {ruled} right")
    wrong = Counter(
        (r["page_type"], predict(features[r["id"]], model))
        for r in check
        if predict(features[r["id"]], model) != r["page_type"]
    )
    print("check half, forest's confusions (truth, forest):", wrong.most_common(8))
    if args.write:
        MODEL_FILE.write_text(json.dumps(model, separators=(",", ":")), encoding="utf-8")
        print(f"wrote {MODEL_FILE} ({MODEL_FILE.stat().st_size // 1024} kB)")


if __name__ == "__main__":
    main()
