"""Elements a reader never sees, out of the tree before it is read: ``<template>``s, closed ``<dialog>``s
(a modal shows only once a script opens it: terms of use, a sign-in form, a consent manager), ``popover``
elements (the HTML popover API keeps them hidden until a button or script opens one: a menu's dropdown,
an "install this app" card, a notifications prompt), and the
``<noscript>``s that a browser with scripts does not render, except where the ``<noscript>`` *is* the page.

A client-side application (a forum engine, a single-page site) serves a shell that its scripts fill in, and
puts its server-rendered view of the page (the thread's posts, the article) inside a ``<noscript>`` for
crawlers and for browsers without scripts. Dropping every ``<noscript>`` leaves such a page empty, while on
an ordinary page a ``<noscript>`` is a tracking pixel or an "enable JavaScript" notice, to be dropped. What
tells the two apart is where the text is: when what a scripted browser shows holds next to no text and a
``<noscript>`` holds plenty, the ``<noscript>`` is the page's fallback view and is read.
"""

from __future__ import annotations

from lxml import etree
from lxml.html import HtmlElement

#: A ``<noscript>`` holding at least this many characters of text can be a page's fallback view.
FALLBACK_CHARS = 1000
#: The page shown to scripts holds less than this share of the fallback's text: it is a shell.
SHELL_SHARE = 0.1

#: ``/descendant::x[…]`` is ``//x[…]`` without libxml2's walk of every node's children (text nodes' too).
_HIDDEN = etree.XPath(
    "//noscript | //template | /descendant::dialog[not(@open)] | /descendant::body/descendant::*[@popover]"
)
_LARGE = etree.XPath("string-length(normalize-space()) >= $n")
_SHOWN_TEXT = etree.XPath(
    "//body//text()[not(ancestor::script or ancestor::style or ancestor::noscript or ancestor::template)]",
    smart_strings=False,
)


def fallback_view(root: HtmlElement, hidden: list[HtmlElement] | None = None) -> HtmlElement | None:
    """The ``<noscript>`` that holds the page's server-rendered view, when the page shown to scripts is an
    empty shell (under :data:`SHELL_SHARE` of its text), else ``None``. ``hidden``: what :data:`_HIDDEN`
    finds in ``root``, when already known (the ``<noscript>``s are among it)."""
    large = [
        el
        for el in (_HIDDEN(root) if hidden is None else hidden)
        if el.tag == "noscript"
        and next(el.iterancestors("body"), None) is not None
        and _LARGE(el, n=FALLBACK_CHARS)
    ]
    if not large:  # nearly every page: no noscript with text to speak of
        return None
    best = max(large, key=lambda el: len(" ".join(el.text_content().split())))
    held = len(" ".join(best.text_content().split()))
    shown = sum(len(text.strip()) for text in _SHOWN_TEXT(root))
    return best if shown < SHELL_SHARE * held else None


def drop_hidden(root: HtmlElement) -> None:
    """Remove ``<template>``s, closed ``<dialog>``s, popovers and ``<noscript>``s, keeping the content of a
    shell page's fallback view (see :func:`fallback_view`) in its place."""
    found = _HIDDEN(root)
    keep = fallback_view(root, found)
    for hidden in found:
        if hidden is keep:
            hidden.drop_tag()
        else:
            hidden.drop_tree()
