"""Parsed Markdown as a tree of whitelisted elements, for the browser to build with ``textContent``.

A document's Markdown is scraped text: rendered to HTML and inserted as markup, a ``<script>`` or an
``onerror`` in it would run. Here markdown-it-py parses it (raw HTML off: HTML in the text stays text) and
the result is a nested list, ``[tag, child, ...]`` with strings as text and, for a link, ``["a", href,
...]`` where ``href`` is kept only for http(s) addresses. The page's script makes elements of these tags
alone and puts every string in with ``textContent``.
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

#: The only elements a document's Markdown becomes (the script checks the same list).
TAGS = frozenset(
    [
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "ul",
        "ol",
        "li",
        "blockquote",
        "pre",
        "code",
        "em",
        "strong",
        "s",
        "a",
        "hr",
        "br",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
    ]
)
_SAFE_SCHEMES = ("http://", "https://")
_PARSER = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(["table", "strikethrough"])

Tree = list[Any]


def safe_href(url: str) -> str:
    """``url`` if it is an http(s) address, else ``""`` (no ``javascript:``, ``data:`` or relative links)."""
    url = url.strip()
    return url if url.lower().startswith(_SAFE_SCHEMES) else ""


def _children(node: SyntaxTreeNode) -> list[Any]:
    out: list[Any] = []
    for child in node.children:
        out.extend(_convert(child))
    return out


def _convert(node: SyntaxTreeNode) -> list[Any]:
    kind = node.type
    if kind == "text":
        return [node.content]
    if kind in ("code_inline",):
        return [["code", node.content]]
    if kind in ("code_block", "fence"):
        return [["pre", ["code", node.content]]]
    if kind in ("softbreak",):
        return [" "]
    if kind == "hardbreak":
        return [["br"]]
    if kind == "image":  # no external loads: the image's description stands for it
        return [node.content] if node.content else []
    if kind == "html_inline" or kind == "html_block":  # not parsed with html on; kept as text if ever
        return [node.content]
    if kind == "inline":
        return _children(node)
    if kind == "link":
        return [["a", safe_href(str(node.attrs.get("href", ""))), *_children(node)]]
    if kind == "paragraph" and node.hidden:  # tight list items
        return _children(node)
    tag = node.tag
    if tag in TAGS:
        return [[tag, *_children(node)]]
    return _children(node)


def markdown_tree(text: str) -> Tree:
    """The blocks of ``text`` as ``[tag, child, ...]`` lists (see the module's docstring)."""
    root = SyntaxTreeNode(_PARSER.parse(text or ""))
    return _children(root)
