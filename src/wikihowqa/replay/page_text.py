"""What the replay wiki serves out of a page's wikitext: a section (``rvsection``), a Quick Summary (the
``{{#quicksummary:position|last_sentence|content}}`` parser function of ``Summary:`` pages) and the files
it shows (for the tracking category of pages with missing files).

Parsing is mwparserfromhell's, as in the collector (:mod:`wikihowqa.collect.wikitext_reading`): comments,
``<nowiki>`` and ``<pre>`` hide what they hold, headings are found as MediaWiki finds them, and a ``|``
inside a link or a nested template does not split a parser function's arguments.
"""

from __future__ import annotations

import functools

import mwparserfromhell
from mwparserfromhell.nodes import Template, Text

_FILE_PREFIXES = ("file:", "image:")


def images(wikitext: str) -> list[str]:
    """Names of the files shown (``[[File:…]]``, ``[[Image:…]]``), in order, as MediaWiki keys them."""
    return list(_images(wikitext))


@functools.lru_cache(maxsize=8192)
def _images(wikitext: str) -> tuple[str, ...]:
    # The wiki asks this of every page when it starts. Parsing all 57 demo pages takes ~320 ms, against
    # 0.5 ms with the regular expressions this replaced (best of 7, measured): a page that cannot hold a
    # file link is not parsed (~125 ms left, 24 pages), and a corpus served again in this process is not
    # parsed again.
    lowered = wikitext.lower()
    if "file:" not in lowered and "image:" not in lowered:
        return ()
    out: dict[str, None] = {}
    for link in mwparserfromhell.parse(wikitext).filter_wikilinks(recursive=True):
        target = str(link.title).strip()
        if target.lower().startswith(_FILE_PREFIXES):
            name = target.split(":", 1)[1].strip().replace(" ", "_")
            out.setdefault(name[:1].upper() + name[1:])
    return tuple(out)


def parse_quicksummary(wikitext: str) -> tuple[str, str, str] | None:
    """``(position, last_sentence, content)`` of a ``Summary:`` page, or None if it holds none."""
    nodes = [n for n in mwparserfromhell.parse(wikitext).nodes if not (isinstance(n, Text) and not n.strip())]
    if len(nodes) != 1 or not isinstance(nodes[0], Template):
        return None
    function, colon, position = str(nodes[0].name).partition(":")
    if not colon or function.strip().lower() != "#quicksummary":
        return None
    parts = [position, *(str(p) for p in nodes[0].params)]
    rest = "|".join(parts[2:])  # the content may hold a "|": everything after the second one
    parts = [*parts[:2], rest] if len(parts) > 2 else parts
    while len(parts) < 3:
        parts.append("")
    return parts[0].strip(), parts[1].strip(), parts[2].strip()


def section_text(wikitext: str, number: int) -> str | None:
    """Wikitext of section ``number`` (0 = the lead), as ``rvsection`` returns it; None if absent."""
    code = mwparserfromhell.parse(wikitext)
    if number == 0:
        return str(code.get_sections(include_lead=True, flat=True)[0]) if code.nodes else wikitext
    headings = code.filter_headings(recursive=False)
    if not 1 <= number <= len(headings):
        return None
    section = code.get_sections(include_lead=False)[number - 1]
    return str(section).rstrip("\n")
