"""The project's one sentence splitter: nupunkt's pre-trained English Punkt model (offline, no NLTK data).

Every stage that needs sentences (ROUGE-Lsum, the dataset statistics, grounding's claims, the extractive
baselines, passage cutting, the human-evaluation texts) asks here, so they all agree on where a sentence
ends. The variants differ only in what the caller keeps of the same Punkt boundaries: nupunkt's strings as
they come (``split``), the non-blank ones (``sentences``), or character spans into the text (``spans``).
"""

from __future__ import annotations

import re
from functools import cache
from importlib.metadata import version as _version
from typing import Any

_LINES = re.compile(r"\n+")


@cache
def _tokenizer() -> Any:
    # nupunkt is imported (and its model loaded) on first use, not when a stage module is imported
    import nupunkt

    return nupunkt.load("default")


def split(text: str) -> list[str]:
    """Punkt's sentences exactly as nupunkt gives them (``nupunkt.sent_tokenize``): the first may keep the
    text's leading whitespace. ROUGE-Lsum joins these with newlines, as rouge-score's users do."""
    return list(_tokenizer().tokenize(text))


def sentences(text: str, *, strip: bool = True, lines: bool = False) -> list[str]:
    """The non-blank Punkt sentences of ``text``.

    ``strip``: without their surrounding whitespace (``strip=False`` keeps nupunkt's strings, as the
    statistics do: the Multi-News script tokenizes Punkt's sentences as they are). ``lines``: each line
    (paragraph) split on its own, its whitespace collapsed first, so no sentence runs across a line break
    (the extractive baselines' sentences of a passage)."""
    if lines:
        out: list[str] = []
        for paragraph in _LINES.split(text):
            paragraph = " ".join(paragraph.split())
            if paragraph:
                out.extend(sentences(paragraph, strip=strip))
        return out
    if not text.strip():
        return []
    return [s.strip() if strip else s for s in split(text) if s.strip()]


def spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence in ``text``, trimmed of surrounding whitespace, none empty.

    From nupunkt's contiguous spans (each runs to the next sentence's start), so what lies between two
    sentences belongs to the first until it is trimmed; offsets index the exact string given."""
    if not text.strip():
        return []
    out = []
    for _, (start, end) in _tokenizer().tokenize_with_spans(text):
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            out.append((start, end))
    return out


def version() -> str:
    """The splitter's version (reports name it: its model decides the sentence counts)."""
    return _version("nupunkt")
