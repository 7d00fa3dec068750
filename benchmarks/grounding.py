"""Does the grounding score rank a deteriorated answer below the original?

Deteriorations (a small, independent generator; the human-evaluation stage has the full one): negation,
number swap, antonym, entity swap (a grounded content word replaced by one from another topic), and an
unsupported sentence (a sentence of another question's answer inserted). Each deteriorated answer is
paired with its original; the table gives, per error type and scorer, the share of pairs where the
original scores strictly higher (ties apart), and the AUC of telling originals from deteriorated
answers by the score (pooled over questions). Scorers: the combined support and its two parts.

    python benchmarks/grounding.py                  # the three real WikiHowNFQA instances
    python benchmarks/grounding.py --dataset DIR    # plus any dataset folder (e.g. the demo corpus)
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from wikihowqa.evaluate.grounding import STOPWORDS, GroundingConfig, GroundingScorer, sentences_of
from wikihowqa.io import DatasetFolder
from wikihowqa.records import Passage, passages_of

ERROR_TYPES = ("negation", "number swap", "antonym", "entity swap", "unsupported sentence")

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
    answer: str
    passages: list[Passage]


@dataclass(frozen=True)
class Pair:
    error: str
    item: int
    deteriorated: str


def make_pairs(items: list[Item], seed: int = 13, max_per_type: int = 400) -> list[Pair]:
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
    for error in ERROR_TYPES:
        chosen = pairs[error]
        if len(chosen) > max_per_type:
            chosen = rng.sample(chosen, max_per_type)
        out.extend(chosen)
    return out


def load_items(folder: DatasetFolder, limit: int | None) -> list[Item]:
    documents = folder.documents_by_article()
    items = [
        Item(e.article_id, e.answer, passages_of(documents.get(e.article_id, [])))
        for e in folder.examples()
        if documents.get(e.article_id)
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
            out.append(Item(item.article_id, answer, item.passages))
    return out


def real_examples() -> DatasetFolder:
    from wikihowqa.demo import real_examples_path
    from wikihowqa.importer import import_release

    src = real_examples_path()
    tmp = Path(tempfile.mkdtemp(prefix="wikihowqa-grounding-"))
    folder, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp / "real")
    return folder


def evaluate(items: list[Item], pairs: list[Pair], scorers: dict[str, GroundingScorer]) -> list[dict]:
    rows = []
    for name, scorer in scorers.items():
        originals = [g.mean_support for g in scorer.score_many([(i.answer, i.passages) for i in items])]
        worse = [
            g.mean_support
            for g in scorer.score_many([(p.deteriorated, items[p.item].passages) for p in pairs])
        ]
        for error in ERROR_TYPES:
            chosen = [(originals[p.item], w) for p, w in zip(pairs, worse, strict=True) if p.error == error]
            if not chosen:
                rows.append({"scorer": name, "error": error, "pairs": 0})
                continue
            orig = np.array([o for o, _ in chosen])
            det = np.array([w for _, w in chosen])
            involved = sorted({p.item for p in pairs if p.error == error})
            positives = [originals[i] for i in involved]
            auc = roc_auc_score([1] * len(positives) + [0] * len(det), positives + det.tolist())
            rows.append(
                {
                    "scorer": name,
                    "error": error,
                    "pairs": len(chosen),
                    "right": float(np.mean(orig > det)),
                    "ties": float(np.mean(orig == det)),
                    "auc": float(auc),
                }
            )
    return rows


def table(rows: list[dict], title: str) -> str:
    lines = [
        f"**{title}**",
        "",
        "| scorer | error type | pairs | ranked right | ties | AUC |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        if not r["pairs"]:
            lines.append(f"| {r['scorer']} | {r['error']} | 0 | – | – | – |")
        else:
            lines.append(
                f"| {r['scorer']} | {r['error']} | {r['pairs']} | {r['right']:.1%} | {r['ties']:.1%}"
                f" | {r['auc']:.3f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, action="append", default=[], help="extra dataset folder(s)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions per dataset")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--copied", type=int, default=10, help="answers copied from passages per question")
    parser.add_argument("--cross-encoder", default=None, help="also score with this cross-encoder/NLI model")
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

    base = GroundingScorer(GroundingConfig())
    scorers = {
        "support (default)": base,
        "without idf and polarity": base.with_config(GroundingConfig(idf=False, polarity_penalty=0.0)),
        "dense only": base.with_config(GroundingConfig(dense_weight=1.0, polarity_penalty=0.0)),
        "lexical only": base.with_config(GroundingConfig(dense_weight=0.0, polarity_penalty=0.0)),
    }
    if args.cross_encoder:
        scorers[f"cross-encoder {args.cross_encoder}"] = base.with_config(
            GroundingConfig(cross_encoder=args.cross_encoder)
        )
    sources = [("3 real WikiHowNFQA instances", real_examples())]
    sources += [(f"dataset {d}", DatasetFolder(d)) for d in args.dataset]
    sets = []
    for label, folder in sources:
        items = load_items(folder, args.limit)
        sets.append((f"{label}, gold answers", items))
        sets.append(
            (f"{label}, answers copied from passages", extractive_items(items, args.copied, args.seed))
        )
    tables = []
    for label, items in sets:
        pairs = make_pairs(items, seed=args.seed)
        title = f"Grounding validation on {label}: {len(items)} answers, {len(pairs)} deteriorated versions"
        tables.append(table(evaluate(items, pairs, scorers), title))
        print(tables[-1] + "\n", flush=True)
    if args.record:
        sys.path.insert(0, str(Path(__file__).parent))
        from results_md import append_run

        append_run("grounding validation (benchmarks/grounding.py)", "\n\n".join(tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
