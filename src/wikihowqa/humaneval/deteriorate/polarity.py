"""Operators that flip a statement's meaning word by word: negation, antonyms, and the order of steps."""

from __future__ import annotations

import re

from wikihowqa.humaneval import lexicon as lx
from wikihowqa.humaneval.deteriorate.edits import ANTONYM, NEGATION, ORDER, Candidate
from wikihowqa.humaneval.deteriorate.language import (
    _Analyzed,
    _inflect,
    _is_base_verb,
    _is_plural_noun,
    _lemmas,
    _single,
    _with_article,
)
from wikihowqa.humaneval.text import match_case


def _clause_starts(a: _Analyzed) -> set[int]:
    """Token indices where an imperative may stand: sentence start, after a leading adverb or an
    introductory clause ("To seal concrete floors, use ...")."""
    starts: set[int] = set()
    toks = a.tokens
    for i in a.sentence_starts:
        starts.add(i)
        first = toks[i].lower
        if first in lx.LEADING_ADVERBS and i + 1 < len(toks) and toks[i + 1].text == ",":
            starts.add(i + 2)
        elif first in lx.CLAUSE_OPENERS:
            end = a.sentences[a.sentence(toks[i].start)][1]
            for j in range(i + 1, len(toks)):
                if toks[j].start >= end or toks[j].text in ".;:!?":
                    break
                if toks[j].text == ",":
                    starts.add(j + 1)
                    break
    return {i for i in starts if i < len(toks)}


_CONTRACTION = re.compile(
    r"\b(won|can|isn|aren|wasn|weren|shouldn|wouldn|couldn|mustn|haven|hasn|hadn)\\?['’]t\b|\bcannot\b", re.I
)
_DO_NEGATIVE = re.compile(r"\b(do|does|did)(?:\s+not\b|n\\?['’]t)\s+(\w+)\b", re.I)
_AUX_NOT = re.compile(
    r"\b(is|are|was|were|will|would|should|can|could|may|might|must|has|have|had)\s+not\b", re.I
)


def negation_candidates(a: _Analyzed) -> list[Candidate]:
    """Flip polarity: negate auxiliaries, imperatives and present-tense verbs; remove an existing negation."""
    text, toks = a.text, a.tokens
    out: list[Candidate] = []
    for m in _CONTRACTION.finditer(text):
        key = m.group().lower().replace("\\", "").replace("’", "'")
        out.append(
            _single(NEGATION, a, m.start(), m.end(), match_case(m.group(), lx.CONTRACTED_NEGATIVES[key]))
        )
    for m in _DO_NEGATIVE.finditer(text):
        verb = m.group(2)
        if not _is_base_verb(verb):
            continue
        tag = {"do": "VB", "does": "VBZ", "did": "VBD"}[m.group(1).lower()]
        form = verb.lower() if tag == "VB" else _inflect(verb.lower(), tag)
        if form:
            out.append(_single(NEGATION, a, m.start(), m.end(), match_case(m.group(1), form)))
    for m in _AUX_NOT.finditer(text):
        out.append(_single(NEGATION, a, m.start(), m.end(), m.group(1)))
    clause_starts = _clause_starts(a)
    for i, tok in enumerate(toks):
        low = tok.lower
        prev = toks[i - 1].lower if i else ""
        nxt = toks[i + 1].lower if i + 1 < len(toks) else ""
        if prev in {"not", "never", "don't", "do", "to"} or nxt in {"not", "n't"}:
            continue
        if low in lx.POLARITY:
            out.append(_single(NEGATION, a, tok.start, tok.end, match_case(tok.text, lx.POLARITY[low])))
        elif low in lx.AUXILIARIES and low not in {"has", "have", "had"}:
            if i in a.sentence_starts or (tok.text[0].isupper() and i not in a.sentence_starts):
                continue  # a question ("Is it ...?") or a name ("May")
            if (
                prev in lx.DETERMINERS
                or not nxt
                or not toks[i + 1].is_word
                or nxt in {"only", "just", "also"}
            ):
                continue
            new = "cannot" if low == "can" else f"{tok.text} not"
            out.append(_single(NEGATION, a, tok.start, tok.end, new))
        elif (
            prev in lx.SUBJECT_PRONOUNS_PLAIN
            and tok.is_word
            and _is_base_verb(low)
            and low not in lx.NOT_IMPERATIVE
            and low not in lx.AUXILIARIES
        ):
            out.append(_single(NEGATION, a, tok.start, tok.end, f"do not {tok.text}"))
        elif prev in lx.SUBJECT_PRONOUNS_THIRD and tok.is_word and low.endswith("s"):
            lemma = next((lem for lem in _lemmas(low).get("VERB", ()) if _inflect(lem, "VBZ") == low), None)
            if lemma and lemma not in lx.NOT_IMPERATIVE and low not in lx.AUXILIARIES:
                out.append(_single(NEGATION, a, tok.start, tok.end, f"does not {lemma}"))
        elif (
            i in clause_starts
            and tok.is_word
            and _is_base_verb(low)
            and low not in lx.NOT_IMPERATIVE
            and low not in lx.CLAUSE_OPENERS
            and low not in lx.LEADING_ADVERBS
        ):
            if (
                nxt in lx.AUXILIARIES
                or nxt in {"'s", "is"}
                or (i + 1 < len(toks) and _is_verb_only(toks[i + 1].text))
            ):
                continue  # "Salt is ..." : a noun subject, not an imperative
            out.append(_single(NEGATION, a, tok.start, tok.end, f"{match_case(tok.text, 'do')} not {low}"))
    return out


def _is_verb_only(word: str) -> bool:
    lemmas = _lemmas(word)
    return bool(lemmas) and set(lemmas) <= {"VERB", "AUX"}


def antonym_candidates(a: _Analyzed) -> list[Candidate]:
    """Swap a word for its opposite from the curated list (hot → cold, increase → decrease, …)."""
    toks = a.tokens
    out: list[Candidate] = []
    for i, tok in enumerate(toks):
        low = tok.lower
        if low not in lx.ANTONYMS:
            continue
        prev = toks[i - 1].lower if i else ""
        nxt = toks[i + 1].lower if i + 1 < len(toks) else ""
        if (
            (low in {"more", "most", "less", "least"} and nxt == "of")
            or (low == "best" and nxt == "to")
            or (low == "long" and prev == "as")
            or (low == "above" and prev == "the")
            or (i + 1 < len(toks) and toks[i + 1].text == "-")
        ):
            continue
        new = lx.ANTONYMS[low]
        if low == "more" and i + 1 < len(toks) and _is_plural_noun(toks[i + 1].text):
            new = "fewer"  # "more details" -> "fewer details", not "less details"
        out.append(_with_article(a, i, new, ANTONYM))
    return out


_ORDER_PHRASES = sorted(lx.ORDER_WORDS, key=len, reverse=True)
_ORDER = re.compile(
    r"\b(" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in _ORDER_PHRASES) + r")\b", re.I
)


def order_candidates(a: _Analyzed) -> list[Candidate]:
    """Reverse when a step happens: before ↔ after, first ↔ last, "Once X," → "Before X,", "Then," → …"""
    text, toks = a.text, a.tokens
    out: list[Candidate] = []
    start_positions = {toks[i].start for i in a.sentence_starts}
    for m in _ORDER.finditer(text):
        phrase = re.sub(r"\s+", " ", m.group().lower())
        before = text[: m.start()].rstrip().lower()
        if phrase == "after" and before.endswith(("look", "looking", "looks", "take", "takes")):
            continue
        after_text = text[m.end() : m.end() + 1]
        if phrase == "first" and (after_text == "-" or before.endswith(("at", "the very"))):
            continue
        new = lx.ORDER_WORDS[phrase]
        if phrase == "first" and m.start() in start_positions and after_text == ",":
            new = "finally"
        out.append(_single(ORDER, a, m.start(), m.end(), match_case(m.group(), new)))
    for i in a.sentence_starts:
        tok = toks[i]
        if tok.lower not in lx.ORDER_OPENERS:
            continue
        new = match_case(tok.text, lx.ORDER_OPENERS[tok.lower])
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if tok.lower == "once":
            out.append(_single(ORDER, a, tok.start, tok.end, new))
        elif nxt is not None:
            out.append(_single(ORDER, a, tok.start, tok.end, new if nxt.text == "," else f"{new},"))
    return out
