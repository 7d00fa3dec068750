"""The unsupported-claim operator: a sentence borrowed from another answer, inserted as if it belonged."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wikihowqa.core.records import Example
from wikihowqa.humaneval import lexicon as lx
from wikihowqa.humaneval.deteriorate.edits import UNSUPPORTED, Candidate, Change
from wikihowqa.humaneval.deteriorate.language import _Analyzed
from wikihowqa.humaneval.text import WORD, sentence_spans


@dataclass(frozen=True)
class Donor:
    """A sentence of another answer that may be borrowed as an unsupported claim."""

    article_id: int
    category: str | None
    sentence: str


def donor_sentences(examples: Iterable[Example]) -> list[Donor]:
    """Sentences fit to stand alone: not an answer's opening (which restates its question), 5–35 words,
    a plain statement, not starting with a word that points back to context."""
    donors = []
    for ex in examples:
        spans = sentence_spans(ex.answer)
        for s, e in spans[1:]:
            sentence = ex.answer[s:e]
            words = WORD.findall(sentence)
            if not 5 <= len(words) <= 35 or not sentence.endswith(".") or re.search(r"[\"“”\\]", sentence):
                continue
            if words[0].lower() in lx.CONTEXT_WORDS:
                continue
            donors.append(Donor(ex.article_id, ex.category, sentence))
    return donors


_STOP_WORDS = (
    "a an the and or but if to of in on at for with by from your you it its is are be can will this that "
    "these those as so they them their then when once before after into out up down not do"
)
_STOP = frozenset(_STOP_WORDS.split(" "))


def _content_words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text) if w.lower() not in _STOP and len(w) > 2}


def pick_donor(
    answer: str, article_id: int, category: str | None, donors: Sequence[Donor], rng: random.Random
) -> Donor | None:
    """The donor sentence from another category that shares most content words with the answer
    (the most on-topic unsupported claim available); another article's when all share one category."""
    pool = [d for d in donors if d.article_id != article_id and (category is None or d.category != category)]
    if not pool:
        pool = [d for d in donors if d.article_id != article_id]
    if not pool:
        return None
    words = _content_words(answer)

    def similarity(d: Donor) -> float:
        other = _content_words(d.sentence)
        return len(words & other) / (len(words | other) or 1)

    best = max(similarity(d) for d in pool)
    return rng.choice([d for d in pool if similarity(d) == best])


def unsupported_candidates(a: _Analyzed, donor: Donor | None) -> list[Candidate]:
    """Insert the donor sentence after any sentence of the answer."""
    if donor is None:
        return []
    return [
        Candidate(UNSUPPORTED, (Change(e, e, f" {donor.sentence}"),), k)
        for k, (_, e) in enumerate(a.sentences)
    ]
