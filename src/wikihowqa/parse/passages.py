"""Cut a document's text into passages that respect paragraph and list boundaries.

DPR's passages are 100 words; a passage here holds whole paragraphs up to ``max_words``, and only a
paragraph longer than that is cut, at sentence ends where it has them.
"""

from __future__ import annotations

import re

DEFAULT_MAX_WORDS = 100

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z0-9])")


def _words(text: str) -> int:
    return len(text.split())


def _cut_long(paragraph: str, max_words: int) -> list[str]:
    """Pieces of one over-long paragraph: whole sentences where possible, else word windows."""
    pieces: list[str] = []
    current: list[str] = []
    for sentence in _SENTENCE_END.split(paragraph):
        words = sentence.split()
        while len(words) > max_words:  # a run-on "sentence": hard windows
            if current:
                pieces.append(" ".join(current))
                current = []
            pieces.append(" ".join(words[:max_words]))
            words = words[max_words:]
        if current and len(current) + len(words) > max_words:
            pieces.append(" ".join(current))
            current = []
        current.extend(words)
    if current:
        pieces.append(" ".join(current))
    return pieces


def split_passages(text: str, max_words: int = DEFAULT_MAX_WORDS) -> list[str]:
    """Passages of ``text`` (paragraphs separated by newlines), each at most ``max_words`` words."""
    if max_words < 1:
        raise ValueError("max_words must be at least 1")
    paragraphs = [p.strip() for p in re.split(r"\n+", text) if p.strip()]
    passages: list[str] = []
    current: list[str] = []
    size = 0
    for paragraph in paragraphs:
        n = _words(paragraph)
        if n > max_words:
            if current:
                passages.append("\n".join(current))
                current, size = [], 0
            passages.extend(_cut_long(paragraph, max_words))
            continue
        if current and size + n > max_words:
            passages.append("\n".join(current))
            current, size = [], 0
        current.append(paragraph)
        size += n
    if current:
        passages.append("\n".join(current))
    return passages
