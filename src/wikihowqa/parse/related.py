"""Boxes of the site's other posts that a template prints after or beside every article ("Read this next",
"Latest news", "You may also like"), told by their title rather than by a class name: used by
:mod:`wikihowqa.parse.boilerplate`, which removes them."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lxml.html import HtmlElement

#: The heading a box of other posts opens with ("Read this next", "Latest news", "You may also like"): teasers
#: for the site's other pages that a template prints after (or beside) every article, not a part of it.
RELATED_HEADING = re.compile(
    r"^\s*(?:read (?:this|these) next|what to read next|keep reading|also in the news|"
    r"related (?:posts|articles|stories|content|reading|reads|news|resources|guides|blogs?)|"
    r"you (?:may|might) also (?:like|enjoy)|more (?:stories|articles|news|posts|from \S+(?: \S+)?)|"
    r"(?:latest|recent|popular|trending) (?:news|posts|articles|stories|blogs?)|"
    r"recommended (?:reading|articles)|most (?:popular|read|viewed)|editors?'?s?'? picks|trending(?: now)?|"
    r"related|you (?:may|might) also be interested in|more (?:to explore|like this|in \S+(?: \S+)?))"
    r"\s*:?\s*$",
    re.I,
)


#: Share of link text the blocks after a "Related posts" heading hold (titles of other posts, with at most a
#: date or a line of excerpt each) for them to be the teasers it introduces, not a section of the text.
TEASER_LINKS = 0.5


def teaser_run(
    heading: HtmlElement, keep: set[HtmlElement], chars: dict[HtmlElement, int], links: dict[HtmlElement, int]
) -> list[HtmlElement]:
    """The blocks after a heading that names a list of other posts, when it does not open a box of its own
    but heads the rest of its parent (``<h3>Related articles</h3><ul>...</ul>`` at the end of a post's
    body): all of them, if they are mostly links; else none."""
    followers = [s for s in heading.itersiblings() if isinstance(s.tag, str)]
    total = sum(chars.get(s, 0) for s in followers)
    if not followers or total == 0 or any(s in keep for s in followers):
        return []
    return followers if sum(links.get(s, 0) for s in followers) >= TEASER_LINKS * total else []


#: Tags a template's box title is set in when it is no heading (``div.box-title`` "Related Posts").
LABELS = frozenset({"div", "span", "p", "h5", "h6"})
LABEL_CHARS = 40


def related_label(el: HtmlElement) -> bool:
    """Whether a childless element says only that what follows is other posts ("Read this next")."""
    text = el.text
    if len(el) or not text or len(text) >= LABEL_CHARS:
        return False
    return RELATED_HEADING.match(text) is not None


#: Paragraphs in a row that are each one link (a link's text, at most :data:`LINK_LINE` of it) for them to be
#: a list of the site's other pages set as paragraphs ("Average costs in Tampa", "... in Tucson", one a
#: line), not text: an ``<ul>`` of three links is a link list; paragraphs ask for many more, since a few
#: linked lines (sources, downloads) can be part of a post.
LINK_PARAGRAPHS = 10
LINK_LINE = 0.9


def link_paragraphs(
    root: HtmlElement, chars: dict[HtmlElement, int], links: dict[HtmlElement, int]
) -> Iterator[HtmlElement]:
    """The paragraphs of each run of :data:`LINK_PARAGRAPHS` or more sibling ``<p>`` that are only a link
    (empty paragraphs between them do not break the run)."""
    done: set[HtmlElement] = set()
    for first in root.iter("p"):
        parent = first.getparent()
        if parent is None or parent in done:
            continue
        done.add(parent)
        run: list[HtmlElement] = []
        for child in (*parent, None):
            if child is not None and child.tag == "p":
                total = chars.get(child, 0)
                if total == 0:
                    continue
                if links.get(child, 0) >= LINK_LINE * total:
                    run.append(child)
                    continue
            if len(run) >= LINK_PARAGRAPHS:
                yield from run
            run = []
