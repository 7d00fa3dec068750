"""The article-body containers trafilatura would choose its body from, found without its XPath's callbacks.

trafilatura's first body expression (``BODY_XPATH[0]``) tests each ``div``, ``article``, ``main`` and
``section`` against two regular expressions with EXSLT's ``re:test``, which libxml2 answers by calling back
into Python once per element: evaluated on a whole page it was 4% of the parse time on the web-extraction
pages. The same test, asked of those elements from Python (found by tag in C), takes a third of that. The
expression is read from trafilatura itself; when its text is not the known shape (another trafilatura), it
is evaluated as it stands, so the containers found are always the ones trafilatura's expression finds.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml.html import HtmlElement

try:  # trafilatura's own article-container expressions: the chunks it would pick the first of
    from trafilatura.xpaths import BODY_XPATH as _BODY_XPATH
except ImportError:  # pragma: no cover - internal name; without it chunk joining is skipped
    _BODY_XPATH = []

#: ``BODY_XPATH[0]`` as trafilatura 2.3 writes it (whitespace collapsed), its two patterns left open.
_SHAPE = re.compile(
    r"\.//\*\[self::article or self::div or self::main or self::section\]\[ "
    r"@class='post' or @class='entry' or @itemprop='articleBody' or @id='articleContent' or "
    r"re:test\(@id, '([^']*)'\) or re:test\(@class, '([^']*)'\) \]\[1\]"
)
_TAGS = ("article", "div", "main", "section")


def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """The id and class patterns of trafilatura's expression, or ``None`` when it has another shape."""
    if not _BODY_XPATH:
        return None
    shape = _SHAPE.fullmatch(" ".join(_BODY_XPATH[0].path.split()))
    if shape is None:
        return None
    by_id, by_class = re.compile(shape.group(1)), re.compile(shape.group(2))
    # re:test reads a missing attribute as "": a pattern matching that would pick unnamed containers too
    return None if by_id.search("") or by_class.search("") else (by_id, by_class)


_PATTERNS = _patterns()


def body_chunks(root: HtmlElement) -> list[HtmlElement]:
    """What ``BODY_XPATH[0]`` selects under ``root``: of each element's children, the first container
    whose class or id names an article body, in document order (its ``[1]`` is per parent)."""
    if _PATTERNS is None:
        return list(_BODY_XPATH[0](root)) if _BODY_XPATH else []
    by_id, by_class = _PATTERNS
    found: list[HtmlElement] = []
    parents: set[HtmlElement] = set()
    get: Callable[..., str | None] = HtmlElement.get
    for el in root.iterdescendants(*_TAGS):
        name, ident = get(el, "class"), get(el, "id")
        if (
            name == "post"
            or name == "entry"
            or ident == "articleContent"
            or (ident is not None and by_id.search(ident) is not None)
            or (name is not None and by_class.search(name) is not None)
            or get(el, "itemprop") == "articleBody"
        ):
            parent = el.getparent()
            if parent not in parents:  # document order: a parent's first match comes first
                parents.add(parent)
                found.append(el)
    return found
