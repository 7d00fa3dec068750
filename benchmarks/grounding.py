"""Does the grounding score rank a deteriorated answer below the original?

Two generators of deteriorated answers:

* the human-evaluation stage's (``wikihowqa.humaneval.deteriorate``): one version per edit type per
  answer and seed, each with a single edit of that type (negation, number, unit, antonym, object swap,
  step order, unsupported sentence), plus "paper mix": 4 or 5 edits of mixed types, as the paper's
  human evaluation deteriorates answers;
* a small independent one written here (negation, number swap, antonym, entity swap, unsupported
  sentence), whose word lists share nothing with either the scorer or the human-evaluation stage.

Each deteriorated answer is paired with its original. Per error type and scorer: pairs, the share where
the original scores strictly higher ("right"), ties, and the AUC of telling originals from deteriorated
answers by the score, pooled over questions (one positive per original, one negative per version).
The answer's score is its mean sentence support.

Overfitting guard: the scorer's weights and threshold were chosen on the demo questions with an even
article id (``--tune`` reruns that search); the tables that count are the odd half and the three real
WikiHowNFQA instances, whose gold answers are human paraphrases of their sources.

    python -m benchmarks.grounding                              # the three real instances only
    python -m benchmarks.grounding --dataset /tmp/demo/dataset  # plus the demo corpus, both halves
    python -m benchmarks.grounding --dataset DIR --tune         # the weight search on the even half

``--compare`` adds a table per set with every automatic metric of ``wikihowqa evaluate`` on the same
sample of deteriorated answers (``--compare-pairs`` per error type): ROUGE-L and BERTScore against the
original (which is the gold answer, so they rank every deteriorated version below it by construction)
and against the passages the judge is shown (precision: how much of the answer the evidence holds),
grounding, and the LLM judge (``--judge MODEL``, local SmolLM2 by default backend ``local``) with the
share of its replies that parsed; an unparseable reply scores nothing and its pair is left out.

    python -m benchmarks.grounding --dataset DIR --compare-only --judge smollm2 --record
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import roc_auc_score

from benchmarks.history import module_at
from wikihowqa.core.records import Example, Passage, passages_of
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.evaluate.grounding import STOPWORDS, GroundingConfig, GroundingScorer, sentences_of

INDEPENDENT_TYPES = ("negation", "number swap", "antonym", "entity swap", "unsupported sentence")
PAPER_MIX = "paper mix"
#: The commit whose grounding.py is the "v1" row (the score before clause alignment and checks).
V1_COMMIT = "c076560"

ANTONYMS = {
    "hot": "cold",
    "warm": "cool",
    "high": "low",
    "highest": "lowest",
    "increase": "decrease",
    "before": "after",
    "more": "less",
    "dry": "wet",
    "inside": "outside",
    "indoor": "outdoor",
    "long": "short",
    "large": "small",
    "big": "small",
    "light": "dark",
    "easy": "difficult",
    "durable": "fragile",
    "open": "closed",
    "completely": "partially",
    "always": "never",
    "add": "remove",
    "up": "down",
    "good": "bad",
    "reluctant": "eager",
    "first": "last",
    "most": "least",
    "slowly": "quickly",
    "thick": "thin",
    "clean": "dirty",
    "safe": "dangerous",
    "full": "empty",
    "cool": "heat",
    "strong": "weak",
    "early": "late",
    "soft": "hard",
    "top": "bottom",
    "same": "different",
}
ANTONYMS.update({v: k for k, v in list(ANTONYMS.items()) if v not in ANTONYMS})
NUMBER_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve"]
AUX = re.compile(r"\b(is|are|was|were|can|should|will|would|could|may|must|does|do|did)\b(?!\s+not\b)", re.I)
NEGATED = re.compile(
    r"\b(won't|can't|don't|doesn't|isn't|aren't|shouldn't|wouldn't|couldn't)\b|\bnot\s+", re.I
)
UNNEGATE = {
    "won't": "will",
    "can't": "can",
    "don't": "do",
    "doesn't": "does",
    "isn't": "is",
    "aren't": "are",
    "shouldn't": "should",
    "wouldn't": "would",
    "couldn't": "could",
}
CLAUSE_VERB = re.compile(r"^((?:[^,]{1,120}),\s+)([a-z]+)\b")
NOT_VERBS = {
    "which",
    "so",
    "and",
    "but",
    "or",
    "then",
    "the",
    "a",
    "an",
    "you",
    "it",
    "they",
    "she",
    "he",
    "we",
    "your",
    "this",
    "that",
    "if",
    "as",
    "when",
    "while",
    "because",
    "from",
    "with",
    "for",
}


def _case_like(word: str, model: str) -> str:
    return word.capitalize() if model[:1].isupper() else word


def negate(sentence: str, rng: random.Random) -> str | None:
    """Flip the polarity: remove a negation if there is one, else negate an auxiliary or the main verb."""
    match = NEGATED.search(sentence)
    if match:
        if match.group(1):
            word = match.group(1)
            return (
                sentence[: match.start()] + _case_like(UNNEGATE[word.lower()], word) + sentence[match.end() :]
            )
        return sentence[: match.start()] + sentence[match.end() :]
    match = AUX.search(sentence)
    if match:
        return sentence[: match.end()] + " not" + sentence[match.end() :]
    match = CLAUSE_VERB.match(sentence)
    if match and match.group(2) not in NOT_VERBS:
        return sentence[: match.end(1)] + "don't " + sentence[match.end(1) :]
    first, _, rest = sentence.partition(" ")
    if first.isalpha() and first.lower() not in NOT_VERBS and rest:
        return "Don't " + first.lower() + " " + rest
    return None


def swap_number(sentence: str, rng: random.Random) -> str | None:
    digits = list(re.finditer(r"\b\d+(?:\.\d+)?\b", sentence))
    if digits:
        match = rng.choice(digits)
        value = float(match.group())
        new = (
            value * rng.choice([2, 3, 5]) + rng.choice([0, 1])
            if value < 10
            else value / rng.choice([2, 3, 4])
        )
        text = str(int(new)) if float(new).is_integer() else f"{new:.1f}"
        if text == match.group():
            text = str(int(value) + 7)
        return sentence[: match.start()] + text + sentence[match.end() :]
    words = [m for m in re.finditer(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", sentence, re.I)]
    if words:
        match = rng.choice(words)
        options = [w for w in NUMBER_WORDS if w != match.group().lower()]
        return (
            sentence[: match.start()]
            + _case_like(rng.choice(options), match.group())
            + sentence[match.end() :]
        )
    return None


def antonym(sentence: str, rng: random.Random) -> str | None:
    matches = [m for m in re.finditer(r"[A-Za-z]+", sentence) if m.group().lower() in ANTONYMS]
    if not matches:
        return None
    match = rng.choice(matches)
    return (
        sentence[: match.start()]
        + _case_like(ANTONYMS[match.group().lower()], match.group())
        + sentence[match.end() :]
    )


def _content_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z]{5,}", text) if w.lower() not in STOPWORDS]


def swap_entity(sentence: str, rng: random.Random, own_text: str, foreign_words: list[str]) -> str | None:
    """Replace the longest content word that the question's passages contain by a word from another topic."""
    own = own_text.lower()
    candidates = sorted({w for w in _content_words(sentence) if w.lower() in own}, key=lambda w: (-len(w), w))
    replacements = [w for w in foreign_words if w.lower() not in own]
    if not candidates or not replacements:
        return None
    target = candidates[0]
    return re.sub(rf"\b{re.escape(target)}\b", rng.choice(replacements).lower(), sentence, count=1)


@dataclass(frozen=True)
class Item:
    article_id: int
    category: str | None
    question: str
    answer: str
    passages: list[Passage]


@dataclass(frozen=True)
class Pair:
    error: str
    item: int
    deteriorated: str


# --------------------------------------------------------------------------- generators


def independent_pairs(items: list[Item], seed: int = 13, max_per_type: int = 400) -> list[Pair]:
    """This file's generator: every applicable sentence edit, and five foreign-sentence insertions."""
    rng = random.Random(seed)
    pairs: dict[str, list[Pair]] = defaultdict(list)
    sentences = [sentences_of(item.answer) for item in items]
    for index, item in enumerate(items):
        own_text = " ".join(p.text for p in item.passages)
        others = [s for j, ss in enumerate(sentences) if items[j].article_id != item.article_id for s in ss]
        foreign_words = sorted({w for s in others for w in _content_words(s)})
        for k, sentence in enumerate(sentences[index]):
            changed = {
                "negation": negate(sentence, rng),
                "number swap": swap_number(sentence, rng),
                "antonym": antonym(sentence, rng),
                "entity swap": swap_entity(sentence, rng, own_text, foreign_words),
            }
            for error, new in changed.items():
                if new and new != sentence:
                    parts = [*sentences[index][:k], new, *sentences[index][k + 1 :]]
                    pairs[error].append(Pair(error, index, " ".join(parts)))
        for foreign in rng.sample(others, min(len(others), 5)):
            parts = list(sentences[index])
            parts.insert(rng.randint(0, len(parts)), foreign)
            pairs["unsupported sentence"].append(Pair("unsupported sentence", index, " ".join(parts)))
    out = []
    for error in INDEPENDENT_TYPES:
        chosen = pairs[error]
        if len(chosen) > max_per_type:
            chosen = rng.sample(chosen, max_per_type)
        out.extend(chosen)
    return out


def humaneval_pairs(items: list[Item], seeds: list[int]) -> list[Pair]:
    """The human-evaluation generator, one edit type at a time: per answer, type and seed one version
    with a single edit of that type (a swap is two changes), duplicates dropped; plus the paper's mix.
    Borrowed unsupported sentences come from the same items' answers (the same half of the corpus)."""
    from wikihowqa.humaneval import deteriorate as det

    examples = [Example(i.article_id, i.question, i.answer, (), category=i.category) for i in items]
    donors = det.donor_sentences(examples)
    pairs = []
    for index, item in enumerate(items):
        for kind in (*det.EDIT_TYPES, PAPER_MIX):
            seen = set()
            for seed in seeds:
                rng = random.Random(f"{seed}:{item.article_id}:{kind}")
                donor = None
                if kind in (det.UNSUPPORTED, PAPER_MIX):
                    donor = det.pick_donor(item.answer, item.article_id, item.category, donors, rng)
                if kind == PAPER_MIX:
                    n, types = rng.choice([4, 5]), det.EDIT_TYPES
                else:
                    n, types = (2 if kind == det.SWAP else 1), (kind,)
                text, edits = det.deteriorate_text(item.answer, n, rng, donor=donor, types=types)
                if edits and text not in seen and text != item.answer:
                    seen.add(text)
                    pairs.append(Pair(kind, index, text))
    return pairs


# --------------------------------------------------------------------------- data


def load_items(folder: DatasetFolder, limit: int | None = None) -> list[Item]:
    documents = folder.documents_by_article()
    items = [
        Item(e.article_id, e.category, e.question, e.answer, passages_of(documents.get(e.article_id, [])))
        for e in folder.examples()
        if documents.get(e.article_id) and e.answer.strip()
    ]
    return items[:limit] if limit else items


def extractive_items(items: list[Item], per_question: int, seed: int) -> list[Item]:
    """Answers copied from the question's passages (three consecutive sentences): fully grounded."""
    rng = random.Random(seed)
    out = []
    for item in items:
        runs = []
        for passage in item.passages:
            sents = [s for s in sentences_of(passage.text) if 6 <= len(s.split()) <= 40]
            runs += [" ".join(sents[k : k + 3]) for k in range(len(sents) - 2)]
        for answer in rng.sample(runs, min(per_question, len(runs))):
            out.append(Item(item.article_id, item.category, item.question, answer, item.passages))
    return out


def real_examples() -> DatasetFolder:
    from wikihowqa.demo.paths import real_examples_path
    from wikihowqa.release.importer import import_release

    src = real_examples_path()
    tmp = Path(tempfile.mkdtemp(prefix="wikihowqa-grounding-"))
    folder, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp / "real")
    return folder


# --------------------------------------------------------------------------- scorers


class V1Scorer:
    """The grounding score as of commit V1_COMMIT, loaded from git history: the baseline row."""

    def __init__(self, encoder: Any) -> None:
        module = module_at(V1_COMMIT, "src/wikihowqa/evaluate/grounding.py", "grounding_v1")
        self.scorer = module.GroundingScorer(module.GroundingConfig(), encoder=encoder)

    def score_many(self, items: list[tuple[str, list[Passage]]]) -> list[Any]:
        return self.scorer.score_many(items)


def scorer_variants(base: GroundingScorer, with_v1: bool = True) -> dict[str, Any]:
    """The default and an honest ablation: each mechanism removed alone, each part alone, the old score."""
    default = base.config
    replace = dataclasses.replace
    no_checks = {"checks": ()}
    without = {c: tuple(x for x in default.checks if x != c) for c in default.checks}
    variants: dict[str, Any] = {
        "support (default)": base,
        "− clause alignment (passage precision)": base.with_config(replace(default, align=False)),
        **{f"− {c} check": base.with_config(replace(default, checks=rest)) for c, rest in without.items()},
        "− order words as content": base.with_config(replace(default, order_words=False)),
        "dense only": base.with_config(replace(default, dense_weight=1.0, **no_checks)),
        "lexical only (aligned, no checks)": base.with_config(
            replace(default, dense_weight=0.0, **no_checks)
        ),
    }
    if with_v1:
        try:
            variants[f"v1 (commit {V1_COMMIT})"] = V1Scorer(base.encoder)
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"(no v1 row: {exc})", file=sys.stderr)
    return variants


# --------------------------------------------------------------------------- every metric, compared


class MetricRow:
    """One row of the comparison: a name and a score per (text, item); NaN where there is none."""

    name = ""

    def scores(self, texts: list[str], items: list[Item]) -> list[float]:
        raise NotImplementedError


def _evidence(text: str, item: Item) -> str:
    """The passages the LLM judge is shown for this text (the same rule for every 'vs passages' row)."""
    from wikihowqa.evaluate.judge import JudgeConfig, evidence

    return "\n\n".join(p.text for p in evidence(text, item.passages, JudgeConfig(model="-")))


class RougeRow(MetricRow):
    def __init__(self, against: str) -> None:
        self.against = against
        self.name = (
            "ROUGE-L F1 vs the original (the gold answer) †"
            if against == "original"
            else "ROUGE-L precision vs the judge's passages"
        )

    def scores(self, texts: list[str], items: list[Item]) -> list[float]:
        from wikihowqa.evaluate.rouge import score_pairs

        if self.against == "original":
            return [s["rougeL"]["fmeasure"] for s in score_pairs(texts, [i.answer for i in items], workers=1)]
        refs = [_evidence(t, i) for t, i in zip(texts, items, strict=True)]
        return [s["rougeL"]["precision"] for s in score_pairs(texts, refs, workers=1)]


class BertRow(MetricRow):
    def __init__(self, against: str, scorer: Any) -> None:
        self.against, self.scorer = against, scorer
        self.name = (
            "BERTScore F1 (MiniLM) vs the original †"
            if against == "original"
            else "BERTScore precision (MiniLM) vs the judge's passages"
        )

    def scores(self, texts: list[str], items: list[Item]) -> list[float]:
        if self.against == "original":
            return list(self.scorer.score(texts, [i.answer for i in items]).f1)
        refs = [_evidence(t, i) for t, i in zip(texts, items, strict=True)]
        return list(self.scorer.score(texts, refs).precision)


class GroundingRow(MetricRow):
    def __init__(self, scorer: GroundingScorer) -> None:
        self.scorer, self.name = scorer, "grounding support (default)"

    def scores(self, texts: list[str], items: list[Item]) -> list[float]:
        return [
            g.mean_support
            for g in self.scorer.score_many([(t, i.passages) for t, i in zip(texts, items, strict=True)])
        ]


class JudgeRows:
    """The judge's two criteria as two rows; each (question, text) is asked once."""

    def __init__(self, judge: Any) -> None:
        self.judge = judge
        self.verdicts: dict[tuple[int, str], Any] = {}

    def verdict_rows(self) -> list[MetricRow]:
        return [self._row("consistency"), self._row("usefulness")]

    def _row(self, criterion: str) -> MetricRow:
        owner = self

        class Row(MetricRow):
            name = f"LLM judge {criterion} ({owner.judge.model_name})"

            def scores(self, texts: list[str], items: list[Item]) -> list[float]:
                todo = [
                    (t, i)
                    for t, i in zip(texts, items, strict=True)
                    if (i.article_id, t) not in owner.verdicts
                ]
                if todo:
                    got = owner.judge.judge_many([(i.question, t, i.passages) for t, i in todo])
                    owner.verdicts.update({(i.article_id, t): v for (t, i), v in zip(todo, got, strict=True)})
                out = []
                for t, i in zip(texts, items, strict=True):
                    value = getattr(owner.verdicts[(i.article_id, t)], criterion)
                    out.append(float("nan") if value is None else float(value))
                return out

        return Row()


def sample_pairs(pairs: list[Pair], per_type: int, seed: int) -> list[Pair]:
    if per_type <= 0:
        return pairs
    rng = random.Random(seed)
    out = []
    for error in dict.fromkeys(p.error for p in pairs):
        chosen = [p for p in pairs if p.error == error]
        out.extend(rng.sample(chosen, min(per_type, len(chosen))))
    return out


def compare_metrics(items: list[Item], pairs: list[Pair], rows: list[MetricRow]) -> list[dict[str, Any]]:
    """Per metric and error type: right / ties / AUC over the pairs both of whose scores exist, and the
    share of pairs scored."""
    used = sorted({p.item for p in pairs})
    errors = list(dict.fromkeys(p.error for p in pairs))
    out = []
    for row in rows:
        started = time.perf_counter()
        original = dict(
            zip(used, row.scores([items[i].answer for i in used], [items[i] for i in used]), strict=True)
        )
        worse = row.scores([p.deteriorated for p in pairs], [items[p.item] for p in pairs])
        seconds = time.perf_counter() - started
        for error in errors:
            chosen = [(p.item, w) for p, w in zip(pairs, worse, strict=True) if p.error == error]
            scored = [(i, w) for i, w in chosen if np.isfinite(w) and np.isfinite(original[i])]
            stats: dict[str, Any] = {"pairs": len(chosen), "scored": len(scored)}
            if scored:
                orig = np.array([original[i] for i, _ in scored])
                det = np.array([w for _, w in scored])
                positives = [original[i] for i in sorted({i for i, _ in scored})]
                labels = [1] * len(positives) + [0] * len(det)
                stats.update(
                    right=float(np.mean(orig > det)),
                    ties=float(np.mean(orig == det)),
                    auc=float(roc_auc_score(labels, positives + det.tolist()))
                    if len(set(labels)) == 2
                    else float("nan"),
                )
            out.append({"scorer": row.name, "error": error, "seconds": seconds, **stats})
    return out


def compare_table(rows: list[dict[str, Any]], title: str) -> str:
    """``table`` with two more columns: the share of pairs the metric scored, and its seconds."""

    def scored(cells: dict[str, dict[str, Any]]) -> str:
        return f"{sum(c['scored'] for c in cells.values()) / sum(c['pairs'] for c in cells.values()):.0%}"

    def seconds(cells: dict[str, dict[str, Any]]) -> str:
        return f"{next(iter(cells.values()))['seconds']:.0f}"

    return table(rows, title, first="metric", extra={"scored": scored, "s": seconds})


# --------------------------------------------------------------------------- measurement


def measure(items: list[Item], pairs: list[Pair], scorer: Any) -> tuple[list[float], list[float]]:
    originals = [g.mean_support for g in scorer.score_many([(i.answer, i.passages) for i in items])]
    worse = [
        g.mean_support for g in scorer.score_many([(p.deteriorated, items[p.item].passages) for p in pairs])
    ]
    return originals, worse


def rank_stats(originals: list[float], worse: list[float], pairs: list[Pair], error: str) -> dict[str, Any]:
    chosen = [(p.item, w) for p, w in zip(pairs, worse, strict=True) if p.error == error]
    if not chosen:
        return {"pairs": 0}
    orig = np.array([originals[i] for i, _ in chosen])
    det = np.array([w for _, w in chosen])
    positives = [originals[i] for i in sorted({i for i, _ in chosen})]
    auc = roc_auc_score([1] * len(positives) + [0] * len(det), positives + det.tolist())
    return {
        "pairs": len(chosen),
        "right": float(np.mean(orig > det)),
        "ties": float(np.mean(orig == det)),
        "auc": float(auc),
    }


def evaluate(items: list[Item], pairs: list[Pair], scorers: dict[str, Any]) -> list[dict[str, Any]]:
    errors = list(dict.fromkeys(p.error for p in pairs))
    rows = []
    for name, scorer in scorers.items():
        originals, worse = measure(items, pairs, scorer)
        for error in errors:
            rows.append({"scorer": name, "error": error, **rank_stats(originals, worse, pairs, error)})
    return rows


def table(
    rows: list[dict[str, Any]],
    title: str,
    *,
    first: str = "scorer",
    extra: dict[str, Any] | None = None,
) -> str:
    """One row per scorer, one column per error type; a cell is right / ties / AUC ("–": nothing scored);
    ``extra`` adds columns computed from a row's cells."""
    extra = extra or {}
    errors = list(dict.fromkeys(r["error"] for r in rows))
    counts = {r["error"]: r["pairs"] for r in rows}
    lines = [
        f"**{title}**",
        "",
        f"| {first} | "
        + " | ".join(f"{e} ({counts[e]})" for e in errors)
        + "".join(f" | {x}" for x in extra)
        + " |",
        "|---|" + "---:|" * (len(errors) + len(extra)),
    ]
    by_scorer: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for r in rows:
        by_scorer[r["scorer"]][r["error"]] = r
    for name, cells in by_scorer.items():
        shown = [
            "–" if not c.get("scored", c["pairs"]) else f"{c['right']:.0%} / {c['ties']:.0%} / {c['auc']:.2f}"
            for c in (cells[e] for e in errors)
        ]
        shown += [column(cells) for column in extra.values()]
        lines.append(f"| {name} | " + " | ".join(shown) + " |")
    return "\n".join(lines)


def calibration(items: list[Item], scorer: GroundingScorer) -> dict[str, Any]:
    """Gold answer sentences against off-topic ones (other questions' answers scored against this
    question's passages): the threshold maximising Youden's J, and how often checks fire on gold."""
    gold = scorer.score_many([(i.answer, i.passages) for i in items])
    foreign = scorer.score_many(
        [(items[(k + 1) % len(items)].answer, item.passages) for k, item in enumerate(items)]
    )
    on = np.array([s.support for g in gold for s in g.sentences])
    off = np.array([s.support for g in foreign for s in g.sentences])
    candidates = np.unique(np.concatenate([on, off]))
    youden = [(np.mean(on >= t) - np.mean(off >= t), -t) for t in candidates]
    best = -max(youden)[1]
    clauses = [e for g in gold for s in g.sentences for e in s.evidence]
    return {
        "gold sentences": len(on),
        "off-topic sentences": len(off),
        "best threshold (Youden)": float(best),
        "gold ≥ threshold": float(np.mean(on >= scorer.config.threshold)),
        "off-topic ≥ threshold": float(np.mean(off >= scorer.config.threshold)),
        "gold clauses with a failed check": float(np.mean([bool(e.clashes) for e in clauses]))
        if clauses
        else 0.0,
    }


def tune(items: list[Item], pairs: list[Pair], base: GroundingScorer) -> list[tuple[float, GroundingConfig]]:
    """Grid search on the tuning half: mean over error types of (right + AUC) / 2."""
    errors = list(dict.fromkeys(p.error for p in pairs))
    results = []
    for w, penalty in itertools.product((0.2, 0.35, 0.5, 0.65, 0.8), (0.25, 0.5, 0.75)):
        config = dataclasses.replace(base.config, dense_weight=w, penalty=penalty)
        originals, worse = measure(items, pairs, base.with_config(config))
        stats = [rank_stats(originals, worse, pairs, e) for e in errors]
        objective = float(np.mean([(s["right"] + s["auc"]) / 2 for s in stats if s["pairs"]]))
        results.append((objective, config))
        print(f"dense_weight {w}, penalty {penalty}: {objective:.4f}", flush=True)
    return sorted(results, key=lambda r: -r[0])


def run_comparison(
    args: Any, base: GroundingScorer, real: list[Item], halves: dict[str, list[Item]], seeds: list[int]
) -> str:
    """The comparison tables (human-evaluation generator; the held-out demo half and the real instances)."""
    from wikihowqa.evaluate.bertscore import BertScoreConfig, BertScorer

    started = time.perf_counter()
    bert = BertScorer(BertScoreConfig(model="minilm"))
    rows: list[MetricRow] = [
        RougeRow("original"),
        BertRow("original", bert),
        RougeRow("passages"),
        BertRow("passages", bert),
        GroundingRow(base),
    ]
    judge_note = "no LLM judge (give --judge MODEL)"
    if args.judge:
        from wikihowqa.evaluate.judge import Judge, JudgeConfig

        judge = Judge(JudgeConfig(model=args.judge, backend=args.judge_backend, base_url=args.judge_base_url))
        judge.client  # load the model now, so its name is known  # noqa: B018
        rows += JudgeRows(judge).verdict_rows()
        judge_note = f"LLM judge {judge.model_name} ({args.judge_backend} backend, the default rubric prompt)"
    sets = [("3 real WikiHowNFQA instances", real)]
    sets += [
        (f"demo corpus {label}", items) for label, items in halves.items() if label.startswith("held-out")
    ]
    tables = []
    for label, items in sets:
        pairs = sample_pairs(humaneval_pairs(items, seeds), args.compare_pairs, args.seed)
        title = (
            f"{label}, human-evaluation generator: {len(pairs)} deteriorated versions of"
            f" {len({p.item for p in pairs})} answers"
        )
        tables.append(compare_table(compare_metrics(items, pairs, rows), title))
    legend = (
        "Every metric on the same deteriorated versions (up to"
        f" {args.compare_pairs or 'all'} per error type). Cells: share ranked right (original strictly above)"
        " / ties / AUC (originals against deteriorated versions, pooled over questions), over the pairs the"
        " metric scored; scored: share of pairs with both scores; s: seconds for the row. † scored against"
        " the original itself (the gold answer): an intact answer is its own reference, so these rows rank"
        f" every change below it by construction. {judge_note}; {time.perf_counter() - started:.0f} s in all."
    )
    return "\n\n".join([legend, *tables])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=None, help="a dataset folder (the demo corpus)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions per dataset")
    parser.add_argument("--seed", type=int, default=13, help="seed of the independent generator")
    parser.add_argument("--seeds", type=int, default=3, help="seeds of the human-evaluation generator")
    parser.add_argument(
        "--copied", type=int, default=0, help="also: answers copied from passages per question"
    )
    parser.add_argument("--cross-encoder", default=None, help="also score with this cross-encoder/NLI model")
    parser.add_argument("--tune", action="store_true", help="rerun the weight search on the even half")
    parser.add_argument(
        "--compare", action="store_true", help="also: every metric of `evaluate` on a sample of the pairs"
    )
    parser.add_argument("--compare-only", action="store_true", help="only the comparison (implies --compare)")
    parser.add_argument(
        "--compare-pairs", type=int, default=4, help="deteriorated versions per error type compared (0: all)"
    )
    parser.add_argument("--judge", default=None, help="LLM judge model in the comparison (e.g. smollm2)")
    parser.add_argument("--judge-backend", default="local", help="local (transformers) or openai")
    parser.add_argument("--judge-base-url", default=None, help="the judge's API base URL (openai backend)")
    parser.add_argument("--record", action="store_true", help="append the tables to benchmarks/RESULTS.md")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads (1: on a shared 2-core machine more threads run ~10x slower)",
    )
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    base = GroundingScorer(GroundingConfig())
    seeds = list(range(args.seeds))
    real = load_items(real_examples(), args.limit)
    halves: dict[str, list[Item]] = {}
    if args.dataset:
        demo = load_items(DatasetFolder(args.dataset), args.limit)
        halves["held-out half (odd article ids)"] = [i for i in demo if i.article_id % 2]
        halves["tuning half (even article ids)"] = [i for i in demo if not i.article_id % 2]
    if args.tune:
        if not halves:
            parser.error("--tune needs --dataset")
        items = halves["tuning half (even article ids)"]
        pairs = humaneval_pairs(items, seeds) + independent_pairs(items, args.seed)
        ranked = tune(items, pairs, base)
        lines = [
            f"**Weight search on the tuning half** ({len(items)} answers, {len(pairs)} deteriorated versions"
            " from both generators; objective: mean over error types of (ranked right + AUC) / 2)",
            "",
            "| dense weight | penalty per failed check | objective |",
            "|---:|---:|---:|",
            *(f"| {c.dense_weight:g} | {c.penalty:g} | {value:.4f} |" for value, c in ranked),
        ]
        threshold = calibration(items, base)["best threshold (Youden)"]
        lines += [
            "",
            f"Threshold maximising Youden's J on the tuning half (defaults' weights): {threshold:.3f}",
        ]
        print("\n".join(lines))
        if args.record:
            from benchmarks.results_md import append_run

            append_run("grounding weight search (benchmarks/grounding.py --tune)", "\n".join(lines))
        return 0
    if args.compare or args.compare_only or args.judge:
        comparison = run_comparison(args, base, real, halves, seeds)
        print(comparison, flush=True)
        if args.compare_only:
            if args.record:
                from benchmarks.results_md import append_run

                append_run(
                    "metric comparison on deteriorated answers (benchmarks/grounding.py --compare)",
                    comparison,
                )
            return 0
    else:
        comparison = None
    scorers = scorer_variants(base)
    if args.cross_encoder:
        scorers[f"cross-encoder {args.cross_encoder}"] = base.with_config(
            GroundingConfig(cross_encoder=args.cross_encoder)
        )
    sets: list[tuple[str, list[Item], list[Pair]]] = []
    for label, items in halves.items():
        if label.startswith("held-out"):
            sets.append(
                (f"demo corpus {label}, human-evaluation generator", items, humaneval_pairs(items, seeds))
            )
            sets.append(
                (f"demo corpus {label}, independent generator", items, independent_pairs(items, args.seed))
            )
    sets.append(
        ("3 real WikiHowNFQA instances, human-evaluation generator", real, humaneval_pairs(real, seeds))
    )
    sets.append(
        ("3 real WikiHowNFQA instances, independent generator", real, independent_pairs(real, args.seed))
    )
    for label, items in halves.items():
        if label.startswith("tuning"):
            sets.append(
                (f"demo corpus {label}, human-evaluation generator", items, humaneval_pairs(items, seeds))
            )
    if args.copied:
        copied = extractive_items(real, args.copied, args.seed)
        sets.append(
            (
                "3 real instances, answers copied from passages, independent generator",
                copied,
                independent_pairs(copied, args.seed),
            )
        )
    tables = []
    for label, items, pairs in sets:
        title = f"{label}: {len(items)} answers, {len(pairs)} deteriorated versions"
        tables.append(table(evaluate(items, pairs, scorers), title))
        print(tables[-1] + "\n", flush=True)
    notes = [
        "**Threshold calibration** (gold answer sentences vs other questions' answers on these passages)",
        "",
    ]
    for label, items in [*halves.items(), ("3 real instances", real)]:
        stats = calibration(items, base)
        notes.append(
            f"- {label}: "
            + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in stats.items())
        )
    tables.append("\n".join(notes))
    print(tables[-1], flush=True)
    legend = (
        f"Cells: share ranked right (original strictly above) / ties / AUC; column headers give the pairs. "
        f"Score: mean sentence support. AUC: originals (one per answer) against deteriorated versions, "
        f"pooled over questions, so a single edit in a five-sentence answer has to beat the spread between "
        f"questions. Human-evaluation generator: {len(seeds)} seeds, one edit per version "
        f"(paper mix: 4–5 edits); {time.perf_counter() - started:.0f} s in all."
    )
    tables.insert(0, legend)
    if comparison:
        tables.append(comparison)
    if args.record:
        from benchmarks.results_md import append_run

        append_run("grounding validation (benchmarks/grounding.py)", "\n\n".join(tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
