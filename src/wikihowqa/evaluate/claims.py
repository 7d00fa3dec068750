"""The claims inside answer sentences that grounding checks against passages.

Pure text analysis, no models: clauses (the units an answer sentence is aligned by), negation cues and
what they negate, quantities with their units, and the sequence words that order steps. Every word list
here (function words, negation cues, number words, sequence words) was written for grounding,
independently of the deterioration generator's lexicons in ``wikihowqa.humaneval``, so that validating
grounding on that generator's errors is not circular.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# Function words that carry no claim. Negations, numbers and the words that order steps (then, once,
# before, after, first, last, ...) are deliberately not here: they are what factual errors change.
_FUNCTION_WORDS = """
    a an the and or but if than so of to in on at by for with from into onto over under about as
    is are was were be been being am do does did doing have has had having it its it's this that these
    those there here you your yours i me my we our us he him his she her they them their what which who
    whom whose when where why how all any each some such can could would should will shall may might must
    also just very too up down out off again further only own same other more most s t ll re ve d m
    o y"""
STOPWORDS = frozenset(_FUNCTION_WORDS.split())
#: The stop list before temporal connectives became content words (kept for the ablation).
STOPWORDS_V1 = STOPWORDS | {"then", "once"}


# --------------------------------------------------------------------------- clauses

NEGATION = re.compile(r"\b(?:not|no|never|without|none|nothing|cannot|nor)\b|n['’]t\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:()\[\]—–]|\s-\s)\s*")
_WORD = re.compile(r"[A-Za-z0-9]+")


# The words negation cues tokenize to ("don't" -> "don"): left out when aligning a clause, so that a
# clause aligns by what it is about and the negation check then compares polarity.
CUE_WORDS = (
    "not no never none nothing cannot nor without don doesn didn isn aren wasn weren won wouldn shouldn"
    " couldn haven hasn hadn mustn needn ain"
)
_SCOPE_END = re.compile(r"[,.;:!?()\[\]—–]|\b(?:and|or|but|because|so|while|when|if|then|unless)\b", re.I)


def negated(text: str) -> bool:
    return NEGATION.search(text) is not None


def negation_scopes(text: str, max_words: int = 5) -> list[str]:
    """What each negation cue negates: the words after it, up to punctuation, a conjunction or
    ``max_words`` words (the window of NegEx-style scope detection)."""
    scopes = []
    for m in NEGATION.finditer(text):
        rest = text[m.end() :]
        end = _SCOPE_END.search(rest)
        words = _WORD.findall(rest[: end.start()] if end else rest)
        scopes.append(" ".join(words[:max_words]))
    return scopes


def _content_count(text: str, stopwords: frozenset[str] = STOPWORDS) -> int:
    return sum(1 for w in _WORD.findall(text.lower()) if w not in stopwords)


def clauses_of(sentence: str, min_words: int = 2, stopwords: frozenset[str] = STOPWORDS) -> list[str]:
    """The sentence cut at punctuation into clauses of at least ``min_words`` content words, each an
    exact substring of the sentence.

    A piece with fewer ("add salt, pepper, and oil" has one-word pieces) joins its predecessor (the
    first joins its successor): a clause must say enough to be aligned on its own.
    """
    text = sentence.strip()
    spans, start = [], 0
    for m in _CLAUSE_BREAK.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    spans = [(a, b) for a, b in spans if _WORD.search(text[a:b])]
    merged: list[list[int]] = []
    pending: int | None = None  # start of a short opening piece waiting for the next one
    for a, b in spans:
        if pending is not None:
            a, pending = pending, None
        if _content_count(text[a:b], stopwords) >= min_words:
            merged.append([a, b])
        elif merged:
            merged[-1][1] = b
        else:
            pending = a
    if pending is not None:
        if merged:
            merged[-1][1] = spans[-1][1]
        else:
            merged.append([pending, spans[-1][1]])
    return [text[a:b] for a, b in merged]


# --------------------------------------------------------------------------- quantities

# English number words, written for this module (not shared with the deterioration lexicons).
_UNITS_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
    " seventeen eighteen nineteen twenty"
)
_TENS_WORDS = "thirty forty fifty sixty seventy eighty ninety"
NUMBER_WORDS: dict[str, float] = {
    **{w: float(i) for i, w in enumerate(_UNITS_WORDS.split(" "))},
    **{w: 10.0 * i for i, w in enumerate(_TENS_WORDS.split(" "), start=3)},
    "hundred": 100.0,
    "thousand": 1000.0,
    "dozen": 12.0,
    "half": 0.5,
    "halves": 0.5,
    "thirds": 1 / 3,
    "quarters": 0.25,
}
_MULTIPLES = {"twice": 2.0, "thrice": 3.0}  # "twice" says "two times"
_VULGAR = {"¼": 0.25, "½": 0.5, "¾": 0.75, "⅓": 1 / 3, "⅔": 2 / 3, "⅛": 0.125}
_NUM = (
    r"\d+\s+\d+/\d+|\d+/\d+|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[¼½¾⅓⅔⅛]"
    r"|\b(?:" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\b"
)
_QUANTITY = re.compile(
    rf"(?<![\w.])(?P<a>{_NUM})(?:\s*(?:-|–|to|or)\s*(?P<b>{_NUM}))?"
    r"(?:\s+(?P<mult>dozen|hundred|thousand)\b)?"
    r"(?:\s*-?\s*(?P<unit>°\s?[A-Za-z]\b|%|[A-Za-z]+(?:-[A-Za-z]+)?))?"
    r"|\b(?P<times>twice|thrice)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number (or a range's ends) with the word after it as its unit, normalised."""

    values: frozenset[float]
    unit: str | None
    text: str


def _number(text: str) -> float:
    text = text.strip().lower().replace(",", "")
    if text in NUMBER_WORDS:
        return NUMBER_WORDS[text]
    if text in _VULGAR:
        return _VULGAR[text]
    if "/" in text:
        whole, _, frac = text.rpartition(" ")
        num, den = frac.split("/")
        return (float(whole) if whole else 0.0) + (float(num) / float(den) if float(den) else 0.0)
    return float(text)


def _unit(word: str | None, stopwords: frozenset[str]) -> str | None:
    if not word:
        return None
    word = word.lower().replace(" ", "")
    if word.startswith("°") or word == "%":
        return word
    if word in stopwords or word in NUMBER_WORDS:
        return None
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxhz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def quantities(text: str, stopwords: frozenset[str] = STOPWORDS) -> tuple[Quantity, ...]:
    """Numbers (digits, fractions, number words, ranges) with their units: "30 to 45 seconds" is one
    quantity {30, 45} of "second"; "93°C" is 93 of "°c"; "2 dozen eggs" is 24 of "egg"; "twice" is 2 of
    "time". The unit is simply the next word (stemmed by dropping a plural s), whatever it is."""
    found = []
    for m in _QUANTITY.finditer(text):
        if m.group("times"):
            found.append(Quantity(frozenset({_MULTIPLES[m.group("times").lower()]}), "time", m.group()))
            continue
        try:
            values = {round(_number(m.group("a")), 6)}
            if m.group("b"):
                values.add(round(_number(m.group("b")), 6))
        except ValueError:
            continue
        if m.group("mult"):  # "2 dozen", "three hundred"
            values = {round(v * NUMBER_WORDS[m.group("mult").lower()], 6) for v in values}
        unit = _unit(m.group("unit"), stopwords)
        found.append(Quantity(frozenset(values), unit, m.group().strip()))
    return tuple(found)


def stated(quantity: Quantity, evidence: Sequence[Quantity]) -> bool:
    """Whether every value of ``quantity`` appears in ``evidence`` with the same unit (or no unit)."""
    values = set()
    for e in evidence:
        if quantity.unit is None or e.unit is None or e.unit == quantity.unit:
            values |= e.values
    return quantity.values <= values


def contradicted(quantity: Quantity, evidence: Sequence[Quantity]) -> bool:
    """Whether ``evidence`` states another amount of the same unit, or the same amount of another unit.

    A number the evidence does not mention at all is merely unsupported (lexical precision sees it);
    a different number for the same thing is a contradiction.
    """
    if stated(quantity, evidence) or quantity.unit is None:
        return False
    for e in evidence:
        if e.unit is None:
            continue
        if e.unit == quantity.unit and not quantity.values <= e.values:
            return True
        if e.unit != quantity.unit and quantity.values & e.values:
            return True
    return False


# --------------------------------------------------------------------------- step order

# Sequence markers at the start of a clause, written for this module: what each says about the step's
# place among the answer's other steps.
_ORDER_MARKERS = {
    "early": r"first|firstly|initially|to (?:start|begin)(?: with)?|(?:start|begin) (?:by|with)",
    "late": r"finally|lastly|last|in the end|at the end|eventually",
    "follows": r"then|next|afterwards?|after (?:that|this)|subsequently|later",
    "precedes": r"before (?:that|this|then)|beforehand|prior to (?:that|this)|earlier",
}
_ORDER = re.compile(
    r"^\W*(?:(?:and|but|so)\s+)?(?:" + "|".join(f"(?P<{k}>{v})" for k, v in _ORDER_MARKERS.items()) + r")\b",
    re.IGNORECASE,
)


def order_marker(clause: str) -> str | None:
    """``early``, ``late``, ``follows`` (the previous step) or ``precedes`` (it), from the clause's
    opening sequence word; None when it opens with none."""
    m = _ORDER.match(clause)
    return next((k for k, v in m.groupdict().items() if v), None) if m else None


def order_clash(marker: str, position: int, previous: int | None, others: Sequence[int]) -> bool:
    """Whether the marked step's evidence sits where the marker says it cannot, in the source's order:
    a first step after every other step of the answer, a last one before all, a next step before the
    previous one (``previous``/``others``: evidence positions in the same document)."""
    if marker == "early":
        return bool(others) and position > max(others)
    if marker == "late":
        return bool(others) and position < min(others)
    if previous is None:
        return False
    return position < previous if marker == "follows" else position > previous
