"""Sentences, words and spans of answer text; every offset is a character index into the exact string.

Offsets are the contract between deterioration, tasks, the web app and the analysis, so everything here
returns ``(start, end)`` pairs into the text it was given and never normalises the text itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

# the project's one sentence splitter, under the name humaneval's modules know it by
from wikihowqa.core.sentences import spans as sentence_spans

#: A word: letters/digits, with inner apostrophes and hyphens kept ("won't", "oven-safe").
WORD = re.compile(r"\w+(?:[-'’]\w+)*")
#: A token: a word, or any single non-space character (punctuation, symbols).
TOKEN = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]")


def word_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in WORD.finditer(text)]


def words_in_spans(text: str, spans: Iterable[tuple[int, int]]) -> set[str]:
    """Unique lower-cased words touched by the spans (the paper's highlight word sets)."""
    spans = sorted(spans)
    found: set[str] = set()
    if not spans:
        return found
    for m in WORD.finditer(text):
        s, e = m.span()
        if any(a < e and s < b for a, b in spans):
            found.add(m.group().lower())
    return found


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Half-open intervals share a character; an empty interval overlaps one it lies strictly inside."""
    (s1, e1), (s2, e2) = a, b
    if s1 == e1:
        return s2 < s1 < e2
    if s2 == e2:
        return s1 < s2 < e1
    return s1 < e2 and s2 < e1


def sentence_of(spans: list[tuple[int, int]], position: int) -> int | None:
    """Index of the sentence span containing ``position`` (or ending right at it)."""
    for i, (s, e) in enumerate(spans):
        if s <= position <= e:
            return i
    return None


def match_case(template: str, word: str) -> str:
    """``word`` written with the capitalisation of ``template`` (all caps, initial cap, or lower)."""
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


@lru_cache(maxsize=1)
def _vowel_sound_exceptions() -> tuple[frozenset[str], frozenset[str]]:
    an_words = frozenset({"hour", "hours", "honest", "honour", "honor", "heir", "herb", "herbs"})
    a_words = frozenset(
        {
            "one",
            "once",
            "unit",
            "use",
            "used",
            "user",
            "usual",
            "useful",
            "uniform",
            "union",
            "unique",
            "universal",
            "university",
            "european",
            "utensil",
            "utility",
            "ewe",
            "euro",
        }
    )
    return an_words, a_words


def indefinite_article(next_word: str) -> str:
    """``a`` or ``an`` before ``next_word``, by sound for the common exceptions, else by first letter."""
    word = next_word.lower().lstrip("\"'“(")
    an_words, a_words = _vowel_sound_exceptions()
    head = re.split(r"[-\s]", word, maxsplit=1)[0]
    if head in an_words:
        return "an"
    if head in a_words or head.startswith(("uni", "eu")):
        return "a"
    if head[:1].isdigit():
        return "an" if head.startswith(("8", "11", "18")) and not head.startswith(("110", "180")) else "a"
    return "an" if head[:1] in "aeiou" else "a"


def answer_block(text: str) -> dict[str, Any]:
    """An answer as a task shows it: its text and its sentences' character spans."""
    return {"text": text, "sentences": [{"start": s, "end": e} for s, e in sentence_spans(text)]}
