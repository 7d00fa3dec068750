"""A study folder with planted relations between metric scores and judgments, written for these tests.

The generative process (one draw per answer):

* latent quality ``q ~ N(0, 1)``; the metric ``agree`` scores ``q + N(0, 0.5)``, ``random`` an
  independent ``N(0, 1)``; each of three assessors rates usefulness ``clip(round(3 + q + N(0, 0.8)), 1, 5)``;
* three of four answers are deteriorated with 2–5 edits; each assessor finds each edit with
  probability 0.4; the metric ``edits`` scores ``−edits + N(0, 1)`` on deteriorated answers and on
  originals ``N(0, 1)`` (so an original beats its deteriorated version with P = Φ(edits/√2));
* A/B: four systems whose answers assessors prefer to gold with probability 0.2, 0.4, 0.6, 0.8 (no
  ties); the metric ``agree`` gives a system's answer ``p − 0.5 + N(0, 0.01)`` and gold 0, so it picks the
  side the assessors favour, and its system ranking is the assessors'.

``population`` computes the relations on a very large draw with scipy and scikit-learn, not with the
code under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

SYSTEM_P = {"sys-a": 0.2, "sys-b": 0.4, "sys-c": 0.6, "sys-d": 0.8}
COLUMNS = {"agree": "grounding_support", "random": "judge_consistency", "edits": "grounding_supported_share"}


def draw(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    q = rng.normal(0, 1, n)
    usefulness = np.clip(np.round(3 + q[:, None] + rng.normal(0, 0.8, (n, 3))), 1, 5)
    edits = np.where(rng.random(n) < 0.75, rng.integers(2, 6, n), 0)
    found = rng.binomial(edits[:, None].repeat(3, axis=1), 0.4)
    return {
        "q": q,
        "agree": q + rng.normal(0, 0.5, n),
        "random": rng.normal(0, 1, n),
        "usefulness": usefulness,
        "edits": edits,
        "found": found,
        "edits_metric": -edits + rng.normal(0, 1, n),
        "original_metric": rng.normal(0, 1, n),
    }


def population(seed: int = 99, n: int = 200_000) -> dict[str, float]:
    from scipy.stats import kendalltau, norm, spearmanr

    d = draw(n, np.random.default_rng(seed))
    useful = d["usefulness"].mean(axis=1)
    fewer = -d["found"].mean(axis=1)
    bad = d["edits"] > 0
    edits = d["edits"][bad]
    u = d["usefulness"]
    others = np.concatenate([(u.sum(axis=1) - u[:, k]) / 2 for k in range(3)])
    held = np.concatenate([u[:, k] for k in range(3)])
    return {
        # one assessor against the mean of the other two (the leave-one-assessor-out ceiling)
        "tau_ceiling_usefulness": float(kendalltau(others, held).statistic),
        # with three assessors, the others' majority picks the model with probability p (split: one half)
        "ab_ceiling": float(np.mean([p * p + (1 - p) * (1 - p) for p in SYSTEM_P.values()])),
        "tau_agree_usefulness": float(kendalltau(d["agree"], useful).statistic),
        "rho_agree_usefulness": float(spearmanr(d["agree"], useful).statistic),
        "tau_edits_fewer_errors": float(kendalltau(d["edits_metric"], fewer).statistic),
        "pair_accuracy_edits": float(np.mean(norm.cdf(edits / np.sqrt(2)))),
        "ab_agreement_agree": float(np.mean([max(p, 1 - p) for p in SYSTEM_P.values()])),
    }


def _answer(article: int, edits: int, extra: int = 0) -> tuple[str, str, list[dict]]:
    words = [f"step{k}" for k in range(8)]
    original = f"Answer {article}: " + " ".join(words) + "." + " Also." * extra
    shown, out, offset = original, [], 0
    for k in range(edits):
        old, new = words[k], f"wrong{k}"
        start = original.index(old + " " if k < 7 else old) + offset
        shown = shown[:start] + new + shown[start + len(old) :]
        out.append(
            {
                "type": "number",
                "start": start,
                "end": start + len(new),
                "old": old,
                "new": new,
                "original_start": start - offset,
                "original_end": start - offset + len(old),
            }
        )
        offset += len(new) - len(old)
    return original, shown, out


def write_study(
    root: Path, n: int = 150, ab_questions: int = 40, seed: int = 7, length_bias: float = 0.0
) -> tuple[Path, Path]:
    """(study folder, evaluation report folder) with ``n`` trial-B answers and an A/B part.

    ``length_bias`` > 0 plants a length preference: a trial answer gets ``round(3 + bias·q + N(0, 1))``
    extra words (at least 0), so longer answers are judged more useful, less tightly than ``agree`` is;
    an A/B system's answer gets ``round(8·bias·(p − 0.5) + N(0, 1))`` more words than gold, so the longer
    side is usually the favoured one. Its noise has a generator of its own: the other draws are unchanged.
    """
    rng = np.random.default_rng(seed)
    d = draw(n, rng)
    lengths = np.random.default_rng(seed + 1)
    extra = np.maximum(0, np.round(3 + length_bias * d["q"] + lengths.normal(0, 1, n))).astype(int)
    if not length_bias:
        extra[:] = 0
    study, report = root / "study", root / "report"
    study.mkdir(parents=True)
    report.mkdir(parents=True)
    tasks, key, judgments, scores = [], [], [], []

    def score_row(article: int, system: str, text: str, values: dict[str, float]) -> None:
        scores.append(
            {
                "article_id": article,
                "system": system,
                "question": "q",
                "answer": text,
                "scores": {COLUMNS[k]: v for k, v in values.items()},
            }
        )

    for i in range(n):
        article = 1000 + i
        original, shown, edits = _answer(article, int(d["edits"][i]), int(extra[i]))
        task_id = f"trial_b:{article}"
        tasks.append(
            {
                "task_id": task_id,
                "part": "trial_b",
                "type": "answer",
                "article_id": article,
                "question": "q",
                "attention_check": None,
                "answer": {"text": shown, "sentences": [{"start": 0, "end": len(shown)}]},
                "passages": [],
            }
        )
        key.append(
            {
                "task_id": task_id,
                "part": "trial_b",
                "article_id": article,
                "attention_answer": None,
                "deteriorated": bool(edits),
                "edits": edits,
            }
        )
        for j in range(3):
            found = rng.permutation(len(edits))[: d["found"][i, j]]
            spans = [
                {"start": edits[k]["start"], "end": edits[k]["end"], "label": "misleading"} for k in found
            ]
            judgments.append(
                {
                    "format_version": 1,
                    "judgment_id": f"j{i}-{j}",
                    "study_id": "planted",
                    "task_id": task_id,
                    "assessor_id": f"a{i}-{j}",
                    "duration_ms": 1000,
                    "attention": None,
                    "familiarity": 3,
                    "usefulness": int(d["usefulness"][i, j]),
                    "spans": sorted(spans, key=lambda s: s["start"]),
                    "events": [],
                }
            )
        metric_edits = float(d["edits_metric"][i]) if edits else float(d["original_metric"][i])
        score_row(
            article,
            "shown",
            shown,
            {"agree": float(d["agree"][i]), "random": float(d["random"][i]), "edits": metric_edits},
        )
        if edits:
            score_row(
                article,
                "original",
                original,
                {"agree": 0.0, "random": 0.0, "edits": float(d["original_metric"][i])},
            )
    for a in range(ab_questions):
        article = 5000 + a
        gold = f"Gold answer {article}." + " Also." * (4 if length_bias else 0)
        score_row(article, "gold", gold, {"agree": 0.0, "random": float(rng.normal()), "edits": 0.0})
        for system, p in SYSTEM_P.items():
            more = round(4 + 8 * length_bias * (p - 0.5) + lengths.normal(0, 1)) if length_bias else 0
            model = f"{system} answer {article}." + " Also." * max(0, more)
            task_id = f"preference:{article}:{system}"
            gold_side = "A" if rng.random() < 0.5 else "B"
            sides = {gold_side: gold, ("B" if gold_side == "A" else "A"): model}
            tasks.append(
                {
                    "task_id": task_id,
                    "part": "preference",
                    "type": "preference",
                    "article_id": article,
                    "question": "q",
                    "attention_check": None,
                    "answers": {
                        s: {"text": t, "sentences": [{"start": 0, "end": len(t)}]} for s, t in sides.items()
                    },
                    "passages": {"A": [], "B": []},
                }
            )
            key.append(
                {
                    "task_id": task_id,
                    "part": "preference",
                    "article_id": article,
                    "attention_answer": None,
                    "gold_side": gold_side,
                    "system": system,
                }
            )
            for j in range(3):
                model_side = "B" if gold_side == "A" else "A"
                judgments.append(
                    {
                        "format_version": 1,
                        "judgment_id": f"p{a}-{system}-{j}",
                        "study_id": "planted",
                        "task_id": task_id,
                        "assessor_id": f"ab{a}-{system}-{j}",
                        "duration_ms": 1000,
                        "attention": None,
                        "choice": model_side if rng.random() < p else gold_side,
                        "events": [],
                    }
                )
            score_row(
                article,
                system,
                model,
                {
                    "agree": p - 0.5 + float(rng.normal(0, 0.01)),
                    "random": float(rng.normal()),
                    "edits": float("nan"),
                },
            )
    manifest = {
        "format": "wikihowqa-study",
        "format_version": 1,
        "study_id": "planted",
        "files": {
            "tasks": "tasks.jsonl",
            "key": "key.jsonl",
            "assignments": "assignments.jsonl",
            "judgments": "judgments.jsonl",
        },
    }
    (study / "study.json").write_text(json.dumps(manifest), encoding="utf-8")
    for name, rows in (("tasks", tasks), ("key", key), ("judgments", judgments)):
        (study / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (study / "assignments.jsonl").write_text("", encoding="utf-8")
    lines = []
    for row in scores:
        row["scores"] = {k: (None if v != v else v) for k, v in row["scores"].items()}  # NaN → null
        lines.append(json.dumps(row) + "\n")
    (report / "per_question.jsonl").write_text("".join(lines), encoding="utf-8")
    return study, report
