"""What the operators know about an answer's words: tokens, sentences, parts of speech and inflections.

No tagger model ships offline; ``lemminflect``'s dictionary supplies parts of speech and inflections.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from wikihowqa.humaneval.deteriorate.edits import Candidate, Change
from wikihowqa.humaneval.text import TOKEN, WORD, indefinite_article, match_case, sentence_of, sentence_spans


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
class _Analyzed:
    text: str
    tokens: tuple[_Token, ...]
    sentences: tuple[tuple[int, int], ...]
    sentence_starts: frozenset[int]  # token indices that open a sentence

    def sentence(self, position: int) -> int:
        found = sentence_of(list(self.sentences), position)
        return 0 if found is None else found


def _analyze(text: str) -> _Analyzed:
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
    return _Analyzed(text, tokens, sentences, frozenset(starts))


def _single(kind: str, a: _Analyzed, start: int, end: int, new: str) -> Candidate:
    return Candidate(kind, (Change(start, end, new),), a.sentence(start))


def _with_article(a: _Analyzed, index: int, new_word: str, kind: str) -> Candidate:
    """Replace token ``index`` by ``new_word``, fixing a preceding a/an when the sound changes."""
    tok = a.tokens[index]
    new = match_case(tok.text, new_word)
    prev = a.tokens[index - 1] if index > 0 else None
    if prev is not None and prev.lower in {"a", "an"} and prev.end + 1 == tok.start:
        article = indefinite_article(new_word)
        if article != prev.lower:
            return _single(kind, a, prev.start, tok.end, f"{match_case(prev.text, article)} {new}")
    return _single(kind, a, tok.start, tok.end, new)
