"""The swap operator: two objects of an answer trade places (or their modifiers do)."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from wikihowqa.humaneval import lexicon as lx
from wikihowqa.humaneval.deteriorate.edits import SWAP, Candidate, Change
from wikihowqa.humaneval.deteriorate.language import _Analyzed, _is_plural_noun, _lemmas
from wikihowqa.humaneval.text import indefinite_article, match_case


@dataclass(frozen=True)
class _Phrase:
    det: int  # token index of the determiner
    last: int  # token index of the head noun
    start: int
    end: int
    head_lemma: str
    plural: bool
    after_preposition: bool


_PREPOSITIONS = frozenset(
    {
        "with",
        "on",
        "in",
        "into",
        "onto",
        "at",
        "for",
        "from",
        "under",
        "over",
        "inside",
        "outside",
        "near",
        "through",
        "around",
        "to",
        "behind",
        "beside",
        "between",
    }
)


def _noun_phrases(a: _Analyzed) -> list[_Phrase]:
    """Determiner + nouns/adjectives ending in a noun, followed by punctuation or a preposition:
    objects and complements, whose swap keeps subject-verb agreement untouched."""
    toks = a.tokens
    phrases: list[_Phrase] = []
    for i, tok in enumerate(toks):
        if tok.lower not in lx.DETERMINERS:
            continue
        j = i + 1
        while j < len(toks) and j - i <= 4:
            w = toks[j]
            if (
                not w.is_word
                or w.lower in lx.NP_BOUNDARY
                or w.lower in lx.DETERMINERS
                or w.lower in lx.AUXILIARIES
            ):
                break
            lemmas = _lemmas(w.text)  # words outside the dictionary are mostly nouns and adjectives
            if "-" not in w.text and lemmas and not {"NOUN", "ADJ", "PROPN"} & set(lemmas):
                break
            j += 1
        last = j - 1
        if last <= i:
            continue
        after = toks[j] if j < len(toks) else None
        if after is not None and (
            (after.is_word and after.lower not in lx.NP_BOUNDARY) or after.lower == "of"
        ):
            continue  # a subject (agreement would break) or a quantity ("a teaspoon of salt")
        head = toks[last].text
        known = _lemmas(head)
        nouns = known.get("NOUN", ()) if known else (head.lower(),)
        if not nouns or "-" in head:
            continue
        after_preposition = i > 0 and toks[i - 1].lower in _PREPOSITIONS
        phrases.append(
            _Phrase(
                i, last, toks[i].start, toks[last].end, nouns[0], _is_plural_noun(head), after_preposition
            )
        )
    return phrases


def swap_candidates(a: _Analyzed, rng: random.Random, limit: int = 24) -> list[Candidate]:
    """Swap two objects: the modifiers of two phrases with the same head ("an epoxy sealer" ↔ "a
    polyurethane sealer"), else two whole prepositional objects of the same number in different sentences
    ("with a knife" ↔ "on an oven-safe rack")."""
    toks, text = a.tokens, a.text
    phrases = _noun_phrases(a)
    out: list[Candidate] = []
    by_head: dict[str, list[_Phrase]] = defaultdict(list)
    for p in phrases:
        if p.last - p.det >= 2:
            by_head[p.head_lemma].append(p)
    for group in by_head.values():
        for x in range(len(group)):
            for y in range(x + 1, len(group)):
                p, q = group[x], group[y]
                mod_p = text[toks[p.det + 1].start : toks[p.last - 1].end]
                mod_q = text[toks[q.det + 1].start : toks[q.last - 1].end]
                if mod_p.lower() == mod_q.lower() or p.plural != q.plural:
                    continue
                out.append(
                    Candidate(
                        SWAP,
                        (_modifier_change(a, p, mod_q), _modifier_change(a, q, mod_p)),
                        a.sentence(p.start),
                    )
                )
    if not out:
        for x in range(len(phrases)):
            for y in range(x + 1, len(phrases)):
                p, q = phrases[x], phrases[y]
                if (
                    p.head_lemma == q.head_lemma
                    or p.plural != q.plural
                    or a.sentence(p.start) == a.sentence(q.start)
                ):
                    continue
                if not (p.after_preposition and q.after_preposition):
                    continue  # verb objects are often idioms ("spend the night"); prepositional ones aren't
                if p.end > q.start:
                    continue
                out.append(
                    Candidate(SWAP, (_phrase_change(a, p, q), _phrase_change(a, q, p)), a.sentence(p.start))
                )
    rng.shuffle(out)
    return out[:limit]


def _modifier_change(a: _Analyzed, p: _Phrase, new_modifier: str) -> Change:
    toks = a.tokens
    det = toks[p.det]
    start = toks[p.det + 1].start
    end = toks[p.last - 1].end
    if det.lower in {"a", "an"}:
        article = indefinite_article(new_modifier)
        return Change(
            det.start, end, f"{match_case(det.text, article)}{a.text[det.end : start]}{new_modifier}"
        )
    return Change(start, end, new_modifier)


def _phrase_change(a: _Analyzed, target: _Phrase, source: _Phrase) -> Change:
    """``target``'s span rewritten with ``source``'s phrase, keeping ``target``'s determiner case."""
    toks = a.tokens
    body = a.text[toks[source.det + 1].start : source.end]
    det = toks[source.det].text
    if det.lower() in {"a", "an"}:
        det = indefinite_article(body)
    return Change(target.start, target.end, f"{match_case(toks[target.det].text, det.lower())} {body}")
