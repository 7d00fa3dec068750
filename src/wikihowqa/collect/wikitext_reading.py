"""What the collector reads out of wikitext: cited references, the Quick Summary, plain text.

Parsing is mwparserfromhell's (the parser pywikibot and most Wikipedia bots use), so nested templates,
links with pipes inside parser-function arguments and ``<ref>`` tags in odd places are read as MediaWiki
reads them rather than as a regular expression guesses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import mwparserfromhell
from mwparserfromhell.nodes import ExternalLink, Heading, Tag, Template, Text, Wikilink
from mwparserfromhell.wikicode import Wikicode

#: Section headings under which wikiHow lists an article's sources.
SOURCES_HEADINGS = ("sources and citations", "references", "sources")
_URL = re.compile(r"(?:https?|ftp)://[^\s\[\]<>\"'|{}]+", re.I)
_FILE_LINK = re.compile(r"^\s*(?:file|image|media|category)\s*:", re.I)
_HIDDEN_TAGS = frozenset({"ref", "references", "gallery", "math", "score", "timeline", "imagemap"})
_SPACES = re.compile(r"[ \t\u00a0]+")


def _clean_url(url: str) -> str:
    url = url.strip()
    while url and url[-1] in ".,;:!?)'\"" and not (url.endswith(")") and "(" in url):
        url = url[:-1]
    return url


def _first_url(code: Wikicode | str) -> str | None:
    """The first URL in a piece of wikitext: a bracketed or bare external link, else any URL-looking text
    (a ``{{cite web|url=…}}`` parameter, for instance)."""
    if isinstance(code, str):
        code = mwparserfromhell.parse(code)
    for link in code.filter_external_links(recursive=True):
        url = _clean_url(str(link.url))
        if url.lower().startswith(("http://", "https://", "ftp://", "//")):
            return "https:" + url if url.startswith("//") else url
    match = _URL.search(str(code))
    return _clean_url(match.group(0)) if match else None


def sources_section(code: Wikicode) -> Wikicode | None:
    """The "Sources and Citations" (or "References") section of an article, heading included."""
    for section in code.get_sections(levels=[2]):
        headings = section.filter_headings(recursive=False)
        if headings and str(headings[0].title).strip().lower() in SOURCES_HEADINGS:
            return section
    return None


def references(wikitext: str) -> tuple[str, ...]:
    """URLs the article cites, in order of first citation, each once.

    A reference is a URL inside a ``<ref>…</ref>`` tag (a bare URL, ``[URL label]``, or a citation
    template's ``url=``; a ``<ref name=x />`` reuse adds nothing new) or the URL of a ``*`` line of the
    Sources and Citations section. Other external links (in Tips, Things You'll Need, …) are not.
    """
    code = mwparserfromhell.parse(wikitext)
    found: list[str] = []
    for tag in code.filter_tags(recursive=True):
        if str(tag.tag).strip().lower() != "ref" or tag.self_closing or tag.contents is None:
            continue
        url = _first_url(tag.contents)
        if url:
            found.append(url)
    section = sources_section(code)
    if section is not None:
        body = str(section).split("\n", 1)[1] if "\n" in str(section) else ""
        for line in body.splitlines():
            stripped = line.strip()
            if stripped.startswith("*") or stripped.startswith("#"):
                url = _first_url(stripped.lstrip("*#"))
                if url:
                    found.append(url)
    return tuple(dict.fromkeys(u for u in (_strip_fragment(u) for u in found) if u))


def _strip_fragment(url: str) -> str:
    """A ``#fragment`` never reaches a server, so two citations differing only there are one page."""
    return url.split("#", 1)[0]


# --------------------------------------------------------------------------- plain text


def _plain(code: Wikicode) -> str:
    parts: list[str] = []
    for node in code.nodes:
        if isinstance(node, Text):
            parts.append(str(node))
        elif isinstance(node, Tag):
            name = str(node.tag).strip().lower()
            if name in _HIDDEN_TAGS:
                continue
            if name == "br":
                parts.append(" ")
            elif node.contents is not None:
                parts.append(_plain(node.contents))
        elif isinstance(node, Wikilink):
            title = str(node.title)
            if _FILE_LINK.match(title):
                continue
            parts.append(_plain(node.text) if node.text is not None else title.split("#", 1)[0].strip())
        elif isinstance(node, ExternalLink):
            if node.title is not None:
                parts.append(_plain(node.title))
            elif node.brackets:
                continue  # [URL] alone renders as a footnote number: no text
            else:
                parts.append(str(node.url))
        elif isinstance(node, Heading):
            parts.append(_plain(node.title))
        elif isinstance(node, Template):
            continue  # templates render as markup we do not reproduce (and the release drops them)
        else:
            # Comments are dropped; HTML entities are decoded; anything else keeps its text.
            normal = getattr(node, "normalize", None)
            if callable(normal):
                parts.append(normal())
    return "".join(parts)


def plain_text(wikitext: str) -> str:
    """Wikitext as the reader sees it: links as their text, no markup, refs, templates or files."""
    text = _plain(mwparserfromhell.parse(wikitext))
    text = text.replace("'''", "").replace("''", "")
    lines = [_SPACES.sub(" ", line).strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


# --------------------------------------------------------------------------- the Quick Summary


@dataclass(frozen=True, slots=True)
class QuickSummary:
    position: str
    last_sentence: str
    content: str

    @property
    def answer(self) -> str:
        """The official answer: content, then the last sentence, as plain text on one line."""
        return " ".join(part for part in (_one_line(self.content), _one_line(self.last_sentence)) if part)


def _one_line(wikitext: str) -> str:
    return " ".join(plain_text(wikitext).split())


def quick_summary(wikitext: str) -> QuickSummary | None:
    """The ``{{#quicksummary:position|last_sentence|content}}`` of a ``Summary:`` page, or ``None``."""
    code = mwparserfromhell.parse(wikitext)
    for template in code.filter_templates(recursive=False):
        name = str(template.name).strip()
        head, sep, position = name.partition(":")
        if head.strip().lower() != "#quicksummary" or not sep:
            continue
        values = [str(p.value) if not p.showkey else f"{p.name}={p.value}" for p in template.params]
        if not values:
            return None
        last_sentence = values[0]
        content = "|".join(values[1:])  # a literal "|" in the content split it into more arguments
        summary = QuickSummary(position.strip(), last_sentence, content)
        return summary if summary.answer else None
    return None


def transcludes_summary(wikitext: str) -> bool:
    """Whether an article shows a Quick Summary (``{{Summary:…}}``) anywhere in its wikitext."""
    code = mwparserfromhell.parse(wikitext)
    return any(
        str(t.name).strip().lower().startswith("summary:") for t in code.filter_templates(recursive=True)
    )
