"""The references of an article's wikitext, by the paper's definition: ``<ref>`` URLs and the
"Sources and Citations" list, never other external links (Tips, Things You'll Need, ...)."""

from __future__ import annotations

import re

_REF = re.compile(r"<ref\b[^>/]*(?<!/)>(.*?)</ref\s*>", re.S | re.I)
_URL = re.compile(r"https?://[^\s\]|<>\"']+")
_SECTION = re.compile(r"^==\s*([^=].*?)\s*==\s*$", re.M)
SOURCES_HEADINGS = ("Sources and Citations", "References")


def _first_url(text: str) -> str | None:
    text = text.strip()
    bracket = re.match(r"\[\s*(https?://[^\s\]]+)", text)
    if bracket:
        return bracket.group(1)
    match = _URL.search(text)
    return match.group(0) if match else None


def sources_section(wikitext: str) -> str:
    """Text of the ``== Sources and Citations ==`` (or ``== References ==``) section, or ''."""
    headings = list(_SECTION.finditer(wikitext))
    for i, heading in enumerate(headings):
        if heading.group(1) in SOURCES_HEADINGS:
            end = headings[i + 1].start() if i + 1 < len(headings) else len(wikitext)
            return wikitext[heading.end() : end]
    return ""


def references(wikitext: str) -> list[str]:
    """Cited URLs in order of first citation, each once."""
    found: list[str] = []
    for match in _REF.finditer(wikitext):
        url = _first_url(match.group(1))
        if url:
            found.append(url)
    for line in sources_section(wikitext).splitlines():
        if line.lstrip().startswith("*"):
            url = _first_url(line.lstrip().lstrip("*"))
            if url:
                found.append(url)
    return list(dict.fromkeys(found))
