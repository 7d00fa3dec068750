"""Introduce factual errors into answers, by type, recording every edit's offsets in both texts.

The paper's protocol (section 5.1): 5 QA pairs per wikiHow category, 4 of the 5 deteriorated, about 4.5
edits per deteriorated answer, then a manual review for grammar and topicality. Each operator here
proposes *candidate* edits with rule-based methods and curated lexicons (no tagger model ships offline;
``lemminflect``'s dictionary supplies parts of speech and inflections); a seeded selector picks a
non-overlapping, type-diverse subset; :func:`apply_edits` builds the deteriorated text and the offsets.
Invariant (tested): the deteriorated text differs from the original only inside the recorded edits.
"""

from __future__ import annotations

import importlib.util
import random
import re
import sys
import types
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from wikihowqa.errors import DatasetError, SettingsError
from wikihowqa.humaneval import lexicon as lx
from wikihowqa.humaneval.text import TOKEN, WORD, indefinite_article, match_case, sentence_of, sentence_spans
from wikihowqa.records import Example

NEGATION = "negation"
NUMBER = "number"
UNIT = "unit"
ANTONYM = "antonym"
SWAP = "swap"
ORDER = "order"
UNSUPPORTED = "unsupported"
#: Deterioration types, in the order reports list them.
EDIT_TYPES: tuple[str, ...] = (NEGATION, NUMBER, UNIT, ANTONYM, SWAP, ORDER, UNSUPPORTED)
#: Types a reviewer may give to a hand-made edit, besides the generated ones.
REVIEW_TYPES: tuple[str, ...] = (*EDIT_TYPES, "other")


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class Edit:
    """One change: ``deteriorated[start:end] == new`` and ``original[original_start:original_end] == old``."""

    type: str
    start: int
    end: int
    old: str
    new: str
    original_start: int
    original_end: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "start": self.start,
            "end": self.end,
            "old": self.old,
            "new": self.new,
            "original_start": self.original_start,
            "original_end": self.original_end,
        }


@dataclass(frozen=True, slots=True)
class DeterioratedAnswer:
    """An answer picked for the study; ``edits`` is empty for the answers left intact."""

    article_id: int
    question: str
    category: str | None
    original: str
    deteriorated: str
    edits: tuple[Edit, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_deteriorated(self) -> bool:
        return bool(self.edits)

    def to_dict(self) -> dict[str, Any]:
        row = {
            "article_id": self.article_id,
            "question": self.question,
            "category": self.category,
            "original": self.original,
            "deteriorated": self.deteriorated,
            "edits": [e.to_dict() for e in self.edits],
        }
        row.update(self.extra)
        return row


@dataclass(frozen=True, slots=True)
class Change:
    """A replacement in original coordinates (``start == end`` inserts)."""

    start: int
    end: int
    new: str


@dataclass(frozen=True, slots=True)
class Candidate:
    """A proposed deterioration: one or more changes that only make sense together (a swap has two)."""

    type: str
    changes: tuple[Change, ...]
    sentence: int


# --------------------------------------------------------------------------- offsets


def apply_edits(original: str, candidates: Iterable[Candidate]) -> tuple[str, tuple[Edit, ...]]:
    """The deteriorated text and its edits, offsets in both texts; changes must not overlap."""
    changes = sorted(
        ((c.type, ch) for c in candidates for ch in c.changes), key=lambda t: (t[1].start, t[1].end)
    )
    pieces: list[str] = []
    edits: list[Edit] = []
    cursor = 0
    shift = 0
    for kind, ch in changes:
        if ch.start < cursor or ch.end < ch.start or ch.end > len(original):
            raise ValueError(f"overlapping or out-of-range change at {ch.start}:{ch.end}")
        if not ch.new:
            raise ValueError("a change must leave text an assessor can highlight")
        pieces.append(original[cursor : ch.start])
        start = ch.start + shift
        pieces.append(ch.new)
        edits.append(
            Edit(kind, start, start + len(ch.new), original[ch.start : ch.end], ch.new, ch.start, ch.end)
        )
        shift += len(ch.new) - (ch.end - ch.start)
        cursor = ch.end
    pieces.append(original[cursor:])
    return "".join(pieces), tuple(edits)


def reconstruct_original(deteriorated: str, edits: Sequence[Edit]) -> str:
    """Undo the edits; equals the original exactly when the edits are complete and correct."""
    pieces: list[str] = []
    cursor = 0
    for e in sorted(edits, key=lambda e: e.start):
        pieces.append(deteriorated[cursor : e.start])
        pieces.append(e.old)
        cursor = e.end
    pieces.append(deteriorated[cursor:])
    return "".join(pieces)


def check_answer(answer: DeterioratedAnswer) -> list[str]:
    """Problems with an answer's edits (empty when the offsets and texts are consistent)."""
    problems: list[str] = []
    previous_end = -1
    previous_original_end = -1
    for i, e in enumerate(sorted(answer.edits, key=lambda e: e.start)):
        if e.type not in REVIEW_TYPES:
            problems.append(f"edit {i}: unknown type {e.type!r}")
        if (
            not (0 <= e.start <= e.end <= len(answer.deteriorated))
            or answer.deteriorated[e.start : e.end] != e.new
        ):
            problems.append(f"edit {i}: deteriorated[{e.start}:{e.end}] is not {e.new!r}")
        if (
            not (0 <= e.original_start <= e.original_end <= len(answer.original))
            or answer.original[e.original_start : e.original_end] != e.old
        ):
            problems.append(f"edit {i}: original[{e.original_start}:{e.original_end}] is not {e.old!r}")
        if e.start < previous_end or e.original_start < previous_original_end:
            problems.append(f"edit {i}: overlaps the previous edit")
        if e.old == e.new:
            problems.append(f"edit {i}: changes nothing")
        previous_end, previous_original_end = e.end, e.original_end
    if not problems and reconstruct_original(answer.deteriorated, answer.edits) != answer.original:
        problems.append("the text differs from the original outside the recorded edits")
    return problems


# --------------------------------------------------------------------------- analysis of one answer


@lru_cache(maxsize=1)
def _lemminflect() -> tuple[Any, Any]:
    """lemminflect's Lemmatizer and Inflections singletons. The package's ``__init__`` imports spaCy, when
    installed, only to register token extensions we do not use: measured 8.2 s for ``import lemminflect``
    with spaCy 3.8 present against 0.3 s for the two core modules, so those are loaded on their own
    (under a throw-away package stub) unless lemminflect is imported already."""
    if "lemminflect" in sys.modules:
        from lemminflect import Inflections, Lemmatizer
    else:
        spec = importlib.util.find_spec("lemminflect")
        if spec is None or spec.submodule_search_locations is None:
            raise ImportError("the lemminflect package is required for answer deterioration")
        stub = types.ModuleType("lemminflect")
        stub.__path__ = list(spec.submodule_search_locations)
        sys.modules["lemminflect"] = stub
        try:
            from lemminflect.core.Inflections import Inflections
            from lemminflect.core.Lemmatizer import Lemmatizer
        finally:
            del sys.modules["lemminflect"]
    return Lemmatizer(), Inflections()


@lru_cache(maxsize=50_000)
def _lemmas(word: str) -> Mapping[str, tuple[str, ...]]:
    return _lemminflect()[0].getAllLemmas(word.lower(), None)


def _is_base_verb(word: str) -> bool:
    return word.lower() in _lemmas(word).get("VERB", ())


def _can_be(word: str, pos: str) -> bool:
    return pos in _lemmas(word)


def _inflect(lemma: str, tag: str) -> str | None:
    forms = _lemminflect()[1].getInflection(lemma, tag, True)
    return forms[0] if forms else None


def _plural(noun: str) -> str | None:
    """Plural of a singular noun (None when the word is not a singular noun)."""
    lemmas = _lemmas(noun).get("NOUN", ())
    if noun.lower() not in lemmas:
        return None
    return _inflect(noun.lower(), "NNS")


def _is_plural_noun(word: str) -> bool:
    lemmas = _lemmas(word).get("NOUN", ())
    return bool(lemmas) and word.lower() not in lemmas


@dataclass(frozen=True)
class _Token:
    start: int
    end: int
    text: str

    @property
    def lower(self) -> str:
        return self.text.lower().replace("’", "'")

    @property
    def is_word(self) -> bool:
        return bool(WORD.fullmatch(self.text))


@dataclass(frozen=True)
class _Analysed:
    text: str
    tokens: tuple[_Token, ...]
    sentences: tuple[tuple[int, int], ...]
    sentence_starts: frozenset[int]  # token indices that open a sentence

    def sentence(self, position: int) -> int:
        found = sentence_of(list(self.sentences), position)
        return 0 if found is None else found


def _analyse(text: str) -> _Analysed:
    tokens = tuple(_Token(m.start(), m.end(), m.group()) for m in TOKEN.finditer(text))
    sentences = tuple(sentence_spans(text))
    starts = set()
    positions = {t.start: i for i, t in enumerate(tokens)}
    for s, _ in sentences:
        i = positions.get(s)
        while i is not None and i < len(tokens) and not tokens[i].is_word:
            i += 1  # skip an opening quote or bracket
        if i is not None:
            starts.add(i)
    return _Analysed(text, tokens, sentences, frozenset(starts))


def _single(kind: str, a: _Analysed, start: int, end: int, new: str) -> Candidate:
    return Candidate(kind, (Change(start, end, new),), a.sentence(start))


def _with_article(a: _Analysed, index: int, new_word: str, kind: str) -> Candidate:
    """Replace token ``index`` by ``new_word``, fixing a preceding a/an when the sound changes."""
    tok = a.tokens[index]
    new = match_case(tok.text, new_word)
    prev = a.tokens[index - 1] if index > 0 else None
    if prev is not None and prev.lower in {"a", "an"} and prev.end + 1 == tok.start:
        article = indefinite_article(new_word)
        if article != prev.lower:
            return _single(kind, a, prev.start, tok.end, f"{match_case(prev.text, article)} {new}")
    return _single(kind, a, tok.start, tok.end, new)


# --------------------------------------------------------------------------- operators


def _clause_starts(a: _Analysed) -> set[int]:
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


def negation_candidates(a: _Analysed) -> list[Candidate]:
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


_NUM = r"(?:\d+\s+\d+/\d+|\d+/\d+|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[¼½¾⅓⅔])"
_LEFT = r"(?<![\w/.,:$£€-])"
_RIGHT = r"(?![\w/:]|[.,]\d)"
_RANGE = re.compile(rf"{_LEFT}(?P<a>\d+)(?P<sep>\s*(?:-|–|to)\s*)(?P<b>\d+){_RIGHT}")
_NUMBER = re.compile(rf"{_LEFT}\$?(?P<n>{_NUM}){_RIGHT}")


def _format_int(value: int, like: str) -> str:
    return f"{value:,}" if "," in like else str(value)


def _new_int(n: int, rng: random.Random) -> int | None:
    if n <= 0:
        return None
    if n >= 100:  # temperatures, weights: a plausible but wrong value, not a tripled one
        step = 25 if n >= 200 else 5
        return rng.choice(sorted({round(n * f / step) * step for f in (0.5, 0.75, 1.25, 1.5)} - {n}))
    options = {n * 2, n * 3, n + max(1, n // 2)}
    if n % 2 == 0 and n // 2 >= 2:
        options.add(n // 2)
    if n >= 10 and n % 10 == 0:
        options.add(n - 10 if n > 10 else 20)
    options.discard(n)
    options = {o for o in options if o >= 2} if n >= 2 else options
    return rng.choice(sorted(options)) if options else None


def _new_number(s: str, rng: random.Random) -> str | None:
    """A different value written like ``s``; never 1 where ``s`` is plural."""
    if s in lx.UNICODE_FRACTIONS:
        return lx.UNICODE_FRACTIONS[s]
    mixed = re.fullmatch(r"(\d+)(\s+)(\d+/\d+)", s)
    if mixed:
        whole = int(mixed.group(1))
        return f"{rng.choice([whole + 1, whole * 2 + 1])}{mixed.group(2)}{mixed.group(3)}"
    frac = re.fullmatch(r"(\d+)/(\d+)", s)
    if frac:
        num, den = int(frac.group(1)), int(frac.group(2))
        if num >= den or den == 0:
            return None
        return rng.choice([f for f in lx.COMMON_FRACTIONS if f != s])
    if "." in s:
        decimals = len(s.split(".")[1])
        value = float(s.replace(",", ""))
        new = rng.choice([value * 2, value + 1])
        text = f"{new:,.{decimals}f}" if "," in s else f"{new:.{decimals}f}"
        return text if text != s else None
    n = int(s.replace(",", ""))
    if 1900 <= n <= 2099 and "," not in s:
        return None  # a year, not a quantity
    new_int = _new_int(n, rng)
    return None if new_int is None else _format_int(new_int, s)


def _unit_index() -> dict[str, tuple[int, int, bool]]:
    index: dict[str, tuple[int, int, bool]] = {}
    for f, family in enumerate(lx.UNIT_FAMILIES):
        for p, (singular, plural) in enumerate(family):
            index.setdefault(plural, (f, p, True))
            index.setdefault(singular, (f, p, False))
    return index


_UNITS = _unit_index()
_CASELESS_UNITS = {k.lower(): v for k, v in _UNITS.items() if len(k) > 3}


def _unit_of(token: str) -> tuple[int, int, bool] | None:
    return _UNITS.get(token) or _CASELESS_UNITS.get(token.lower())


def number_candidates(a: _Analysed, rng: random.Random) -> list[Candidate]:
    """Change quantities: digits, ranges (scaled together), fractions, number words, "twice", "in half"."""
    text, toks = a.text, a.tokens
    out: list[Candidate] = []
    taken: list[tuple[int, int]] = []
    for m in _RANGE.finditer(text):
        lo, hi = int(m.group("a")), int(m.group("b"))
        if not 0 < lo < hi or hi >= 1900:
            continue
        factor = rng.choice([2, 3])
        new = f"{lo * factor}{m.group('sep')}{hi * factor}"
        out.append(_single(NUMBER, a, m.start(), m.end(), new))
        taken.append(m.span())
    token_at = {t.start: i for i, t in enumerate(toks)}
    for m in _NUMBER.finditer(text):
        s, e = m.span("n")
        if any(x <= s < y for x, y in taken):
            continue
        raw = m.group("n")
        new = _new_number(raw, rng)
        if new is None:
            continue
        # "1 cup" -> "3 cups": a singular noun after a former 1 must agree
        if raw == "1":
            i = token_at.get(s)
            noun = toks[i + 1] if i is not None and i + 1 < len(toks) else None
            plural = _plural_unit_or_noun(noun.text) if noun and noun.is_word else None
            if plural is None:
                continue
            out.append(_single(NUMBER, a, s, noun.end, f"{new}{text[e : noun.start]}{plural}"))
            continue
        out.append(_single(NUMBER, a, s, e, new))
    for i, tok in enumerate(toks):
        low = tok.lower
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if low in lx.NUMBER_WORDS and (nxt is None or nxt.text != "-"):
            value = _new_int(lx.NUMBER_WORDS[low], rng)
            if value:
                word = lx.WORDS_FOR_NUMBERS.get(value, str(value))
                out.append(_single(NUMBER, a, tok.start, tok.end, match_case(tok.text, word)))
        elif low == "one" and nxt is not None and nxt.is_word and _unit_of(nxt.text):
            plural = _plural_unit_or_noun(nxt.text)
            if plural:
                word = match_case(tok.text, rng.choice(["two", "three"]))
                out.append(_single(NUMBER, a, tok.start, nxt.end, f"{word} {plural}"))
        elif low == "twice":
            out.append(_single(NUMBER, a, tok.start, tok.end, match_case(tok.text, "three times")))
        elif low == "half" and i > 0 and toks[i - 1].lower in {"in", "into"}:
            out.append(_single(NUMBER, a, tok.start, tok.end, rng.choice(["thirds", "quarters"])))
    return out


def _plural_unit_or_noun(word: str) -> str | None:
    unit = _unit_of(word)
    if unit is not None:
        f, p, plural = unit
        return None if plural else match_case(word, lx.UNIT_FAMILIES[f][p][1])
    return _plural(word)


_DEGREE = re.compile(r"°\s?[FC]\b")
_NUMERIC_TOKEN = re.compile(rf"{_NUM}|\d+(?:[.,]\d+)*")


def _is_quantity(tok: _Token) -> bool:
    return (
        bool(_NUMERIC_TOKEN.fullmatch(tok.text))
        or tok.lower in lx.NUMBER_WORDS
        or tok.lower in {"one", "half"}
    )


def unit_candidates(a: _Analysed, rng: random.Random) -> list[Candidate]:
    """Change a unit after a quantity to a neighbour of its family (minutes ↔ hours, °F ↔ °C, cups ↔ …)."""
    text, toks = a.text, a.tokens
    out: list[Candidate] = []
    for m in _DEGREE.finditer(text):
        out.append(
            _single(
                UNIT,
                a,
                m.start(),
                m.end(),
                m.group().replace("F", "C") if "F" in m.group() else m.group().replace("C", "F"),
            )
        )
    for i, tok in enumerate(toks):
        unit = _unit_of(tok.text) if tok.is_word else None
        if unit is None or i == 0:
            continue
        prev = toks[i - 1]
        hyphenated = prev.text == "-" and i >= 2 and _is_quantity(toks[i - 2])
        after_degrees = prev.lower == "degrees" and unit[0] == lx.UNIT_FAMILIES.index(
            (("Fahrenheit", "Fahrenheit"), ("Celsius", "Celsius"))
        )
        article = prev.lower in {"a", "an"} and unit[0] == 0
        if not (_is_quantity(prev) or hyphenated or after_degrees or article):
            continue
        f, p, plural = unit
        family = lx.UNIT_FAMILIES[f]
        choices = [q for q in (p - 1, p + 1) if 0 <= q < len(family)]
        if not choices:
            continue
        replacement = family[rng.choice(choices)][1 if plural else 0]
        if article:
            out.append(_with_article(a, i, replacement, UNIT))
        else:
            out.append(
                _single(
                    UNIT,
                    a,
                    tok.start,
                    tok.end,
                    match_case(tok.text, replacement) if len(tok.text) > 3 else replacement,
                )
            )
    return out


def antonym_candidates(a: _Analysed) -> list[Candidate]:
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


def _noun_phrases(a: _Analysed) -> list[_Phrase]:
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


def swap_candidates(a: _Analysed, rng: random.Random, limit: int = 24) -> list[Candidate]:
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


def _modifier_change(a: _Analysed, p: _Phrase, new_modifier: str) -> Change:
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


def _phrase_change(a: _Analysed, target: _Phrase, source: _Phrase) -> Change:
    """``target``'s span rewritten with ``source``'s phrase, keeping ``target``'s determiner case."""
    toks = a.tokens
    body = a.text[toks[source.det + 1].start : source.end]
    det = toks[source.det].text
    if det.lower() in {"a", "an"}:
        det = indefinite_article(body)
    return Change(target.start, target.end, f"{match_case(toks[target.det].text, det.lower())} {body}")


_ORDER_PHRASES = sorted(lx.ORDER_WORDS, key=len, reverse=True)
_ORDER = re.compile(
    r"\b(" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in _ORDER_PHRASES) + r")\b", re.I
)


def order_candidates(a: _Analysed) -> list[Candidate]:
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


def unsupported_candidates(a: _Analysed, donor: Donor | None) -> list[Candidate]:
    """Insert the donor sentence after any sentence of the answer."""
    if donor is None:
        return []
    return [
        Candidate(UNSUPPORTED, (Change(e, e, f" {donor.sentence}"),), k)
        for k, (_, e) in enumerate(a.sentences)
    ]


# --------------------------------------------------------------------------- selection


def candidates(
    text: str, rng: random.Random, *, donor: Donor | None = None, types: Sequence[str] = EDIT_TYPES
) -> dict[str, list[Candidate]]:
    """Every candidate edit of each requested type, in original coordinates."""
    a = _analyse(text)
    makers: dict[str, Callable[[], list[Candidate]]] = {
        NEGATION: lambda: negation_candidates(a),
        NUMBER: lambda: number_candidates(a, rng),
        UNIT: lambda: unit_candidates(a, rng),
        ANTONYM: lambda: antonym_candidates(a),
        SWAP: lambda: swap_candidates(a, rng),
        ORDER: lambda: order_candidates(a),
        UNSUPPORTED: lambda: unsupported_candidates(a, donor),
    }
    found: dict[str, list[Candidate]] = {}
    for kind in types:
        seen: set[tuple[Change, ...]] = set()
        unique = []
        for c in makers[kind]():
            if c.changes not in seen and all(text[ch.start : ch.end] != ch.new for ch in c.changes):
                seen.add(c.changes)
                unique.append(c)
        found[kind] = unique
    return found


def _fits(candidate: Candidate, chosen: Sequence[Candidate]) -> bool:
    """No overlap or contact with chosen changes; one polarity flip per sentence; one insertion per answer."""
    for other in chosen:
        if candidate.type == other.type and candidate.type in {UNSUPPORTED} | (
            {NEGATION} if candidate.sentence == other.sentence else set()
        ):
            return False
        for c in candidate.changes:
            for o in other.changes:
                if c.start <= o.end and o.start <= c.end:  # touching counts: keep one character between
                    return False
    for i, c in enumerate(candidate.changes):  # a swap's own two changes must be apart too
        for o in candidate.changes[i + 1 :]:
            if c.start <= o.end and o.start <= c.end:
                return False
    return True


def select_edits(
    found: Mapping[str, Sequence[Candidate]], n_edits: int, rng: random.Random
) -> list[Candidate]:
    """Up to ``n_edits`` changes, cycling through the types in a shuffled order so answers mix types."""
    kinds = [k for k in found if found[k]]
    rng.shuffle(kinds)
    chosen: list[Candidate] = []
    count = 0
    while count < n_edits and kinds:
        for kind in list(kinds):
            pool = [c for c in found[kind] if _fits(c, chosen) and count + len(c.changes) <= n_edits]
            if not pool:
                kinds.remove(kind)
                continue
            pick = rng.choice(pool)
            chosen.append(pick)
            count += len(pick.changes)
            if count >= n_edits:
                break
    return chosen


def deteriorate_text(
    text: str,
    n_edits: int,
    rng: random.Random,
    *,
    donor: Donor | None = None,
    types: Sequence[str] = EDIT_TYPES,
) -> tuple[str, tuple[Edit, ...]]:
    """``text`` with up to ``n_edits`` factual errors, and the edits."""
    chosen = select_edits(candidates(text, rng, donor=donor, types=types), n_edits, rng)
    return apply_edits(text, chosen)


# --------------------------------------------------------------------------- the protocol


@dataclass(frozen=True)
class DeteriorationSettings:
    """The paper's protocol by default; ``edits_per_answer`` is a mean (4.5 → 4 or 5 with equal odds)."""

    per_category: int = 5
    deteriorated_per_category: int = 4
    edits_per_answer: float = 4.5
    types: tuple[str, ...] = EDIT_TYPES
    seed: int = 0

    def __post_init__(self) -> None:
        if self.per_category < 1:
            raise SettingsError("per_category must be at least 1")
        if not 0 <= self.deteriorated_per_category <= self.per_category:
            raise SettingsError("deteriorated_per_category must be between 0 and per_category")
        if self.edits_per_answer < 1:
            raise SettingsError("edits_per_answer must be at least 1")
        unknown = set(self.types) - set(EDIT_TYPES)
        if unknown or not self.types:
            raise SettingsError(
                f"unknown deterioration type(s) {sorted(unknown)} (known: {', '.join(EDIT_TYPES)})"
            )


UNCATEGORISED = "(uncategorised)"


def _edit_count(mean: float, rng: random.Random) -> int:
    base = int(mean)
    return base + (1 if rng.random() < mean - base else 0)


def deteriorate_examples(
    examples: Sequence[Example],
    settings: DeteriorationSettings = DeteriorationSettings(),
    *,
    donors_from: Sequence[Example] | None = None,
) -> list[DeterioratedAnswer]:
    """Pick ``per_category`` answers per category and deteriorate ``deteriorated_per_category`` of them.

    Examples without a category form one group. An answer chosen for deterioration that yields no edit
    trades places with an intact one that does, so each category keeps its share where it can.
    """
    usable = [e for e in examples if e.answer.strip()]
    if not usable:
        raise DatasetError("no examples with a non-empty answer to deteriorate")
    rng = random.Random(settings.seed)
    donors = donor_sentences(donors_from if donors_from is not None else usable)
    groups: dict[str, list[Example]] = defaultdict(list)
    for e in sorted(usable, key=lambda e: e.article_id):
        groups[e.category or UNCATEGORISED].append(e)
    results: list[DeterioratedAnswer] = []
    for name in sorted(groups):
        picked = rng.sample(groups[name], min(settings.per_category, len(groups[name])))
        order = list(range(len(picked)))
        rng.shuffle(order)
        want = round(settings.deteriorated_per_category * len(picked) / settings.per_category)
        made: dict[int, tuple[str, tuple[Edit, ...]]] = {}
        for k in order:
            if sum(1 for v in made.values() if v[1]) >= want:
                break
            ex = picked[k]
            item_rng = random.Random(f"{settings.seed}:{ex.article_id}")
            donor = pick_donor(ex.answer, ex.article_id, ex.category, donors, item_rng)
            made[k] = deteriorate_text(
                ex.answer,
                _edit_count(settings.edits_per_answer, item_rng),
                item_rng,
                donor=donor,
                types=settings.types,
            )
        for k, ex in enumerate(picked):
            text, edits = made.get(k, (ex.answer, ()))
            extra = {"split": ex.split} if ex.split else {}
            results.append(
                DeterioratedAnswer(ex.article_id, ex.question, ex.category, ex.answer, text, edits, extra)
            )
    return results


# --------------------------------------------------------------------------- files


def edit_from_dict(row: Mapping[str, Any]) -> Edit:
    try:
        return Edit(
            str(row["type"]),
            int(row["start"]),
            int(row["end"]),
            str(row["old"]),
            str(row["new"]),
            int(row["original_start"]),
            int(row["original_end"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"malformed edit {dict(row)!r:.120}: {exc}") from None


def answer_from_dict(row: Mapping[str, Any]) -> DeterioratedAnswer:
    known = {"article_id", "question", "category", "original", "deteriorated", "edits"}
    try:
        answer = DeterioratedAnswer(
            article_id=int(row["article_id"]),
            question=str(row.get("question") or ""),
            category=row.get("category"),
            original=str(row["original"]),
            deteriorated=str(row["deteriorated"]),
            edits=tuple(edit_from_dict(e) for e in row.get("edits") or ()),
            extra={k: v for k, v in row.items() if k not in known},
        )
    except KeyError as exc:
        raise ValueError(f"missing field {exc.args[0]!r}") from None
    problems = check_answer(answer)
    if problems:
        raise ValueError("; ".join(problems))
    return answer


def read_deteriorated(path) -> list[DeterioratedAnswer]:
    from wikihowqa.io import iter_jsonl

    answers = []
    for lineno, row in iter_jsonl(path):
        try:
            answers.append(answer_from_dict(row))
        except ValueError as exc:
            raise DatasetError(f"{path}:{lineno}: {exc}") from None
    return answers


def write_deteriorated(path, answers: Iterable[DeterioratedAnswer]) -> int:
    from wikihowqa.io import write_jsonl

    return write_jsonl(path, (a.to_dict() for a in answers))
