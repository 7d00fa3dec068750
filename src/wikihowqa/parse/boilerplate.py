"""Remove what the paper's documents kept by mistake: comment sections, related-article blocks, share
widgets, cookie and newsletter banners, and lists that are only links.

Runs on the parsed tree before main-content extraction, so an extractor's fallback (which reads the whole
page when its first guess is short) can no longer pick these up. Elements are recognised by their
``class``/``id``/``role``, schema.org microdata, or a heading such as "12 Comments"; the containers of the
article itself (ancestors of the ``<h1>`` or of ``itemprop=articleBody``) are never removed, and tokens that
CMSs derive from a post's category or tags (``category-social-media``) never count.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping

from lxml import etree
from lxml.html import HtmlElement

KINDS: Mapping[str, re.Pattern[str]] = {
    "comments": re.compile(r"comment(?!ar)|disqus|^respond$|^replies$|reply-?form|^discussion$", re.I),
    "related": re.compile(
        r"related|recommend|more-?(?:stories|articles|from|news|like|posts|to-?read)|read-?next|"
        r"also-?(?:read|like)|you-?may|you-?might|popular|trending|taboola|outbrain|recirc|suggested",
        re.I,
    ),
    "share": re.compile(r"share|sharing|social|addthis|sharedaddy|sociable|shariff|^follow-?us", re.I),
    "cookie": re.compile(
        r"cookie|consent|gdpr|onetrust|^cmp-|privacy-?(?:banner|notice)|^cc-(?:window|banner)", re.I
    ),
    "legal": re.compile(r"disclaimer|copyright|legal-?notice", re.I),
    "forum": re.compile(r"postprofile|online-?list|who-?is-?online|^stat-?block$|^signature$", re.I),
    "newsletter": re.compile(
        r"newsletter|subscribe|subscription|signup|sign-up|mailing-?list|opt-?in|mc4wp|mailchimp|email-?capture",
        re.I,
    ),
}
# Substrings every match of the patterns above contains: a cheap first test (a regex union over every
# element's class and id took four times as long on the benchmark pages).
HINTS = (
    "comment",
    "disqus",
    "respond",
    "repl",
    "discussion",
    "related",
    "recommend",
    "more",
    "read",
    "also",
    "you",
    "popular",
    "trending",
    "taboola",
    "outbrain",
    "recirc",
    "suggest",
    "shar",
    "social",
    "addthis",
    "sociable",
    "follow",
    "cookie",
    "consent",
    "gdpr",
    "onetrust",
    "cmp-",
    "privacy",
    "cc-",
    "newsletter",
    "postprofile",
    "online",
    "stat",
    "signature",
    "disclaimer",
    "copyright",
    "legal",
    "subscri",
    "signup",
    "sign-up",
    "mailing",
    "opt",
    "mc4wp",
    "mailchimp",
    "capture",
)
_TAXONOMY = re.compile(r"^(?:category|cat|tag|tags|topic|section|term|has)-", re.I)
_COMMENT_HEADING = re.compile(
    r"^\s*(?:\d+\s+)?(?:(?:reader|visitor|user|guest)s?'?\s+)?(?:comments?|responses?|replies|discussion|"
    r"(?:leave|post|add|write) a (?:reply|comment)|join the (?:discussion|conversation)|"
    r"\d+\s+thoughts? on\b.*)\s*:?\s*$",
    re.I,
)
_SITE_ROLES = {"navigation", "contentinfo", "banner"}
_NEVER = {"html", "body", "main", "head", "title", "h1"}
#: A list whose items are this share link text (or more) is navigation, not prose.
LINK_LIST_DENSITY = 0.9
LINK_LIST_MIN_ITEMS = 3


def _tokens(el: HtmlElement) -> Iterator[str]:
    for attr in ("class", "id"):
        value = el.get(attr)
        if value:
            for token in value.split():
                if not _TAXONOMY.match(token):
                    yield token


def _kind(el: HtmlElement) -> str | None:
    if el.get("itemprop") == "comment" or "schema.org/Comment" in (el.get("itemtype") or ""):
        return "comments"
    role = (el.get("role") or "").lower()
    if role in {"complementary", "dialog", "alertdialog"} and el.tag != "main":
        tokens = " ".join(_tokens(el))
        if "cookie" in tokens or "consent" in tokens:
            return "cookie"
    for token in _tokens(el):
        for kind, pattern in KINDS.items():
            if pattern.search(token):
                return kind
    return None


def _protected(root: HtmlElement) -> set[HtmlElement]:
    keep: set[HtmlElement] = set()
    for anchor in root.xpath("//h1 | //*[@itemprop='articleBody']"):
        keep.add(anchor)
        keep.update(anchor.iterancestors())
    return keep


_TEXTS = etree.XPath(".//text()", smart_strings=False)
_LINK_TEXTS = etree.XPath(".//a//text()", smart_strings=False)
_CANDIDATES = etree.XPath(
    "//*[@class or @id or @role or @itemprop or @itemtype] | //ul[count(li) >= $n] | //ol[count(li) >= $n] "
    "| //h2 | //h3 | //h4 | //nav | //footer | //table[count(.//tr) >= $n] "
    "| //b[string-length(normalize-space(.)) < 40] | //strong[string-length(normalize-space(.)) < 40]"
)
_BLOCKS = {
    "br",
    "p",
    "div",
    "table",
    "hr",
    "ul",
    "ol",
    "section",
    "td",
    "tr",
    "center",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
}


def _text_len(texts: list[str]) -> int:
    return sum(len(t.strip()) for t in texts)


def _is_link_list(el: HtmlElement) -> bool:
    total = _text_len(_TEXTS(el))
    return total > 0 and _text_len(_LINK_TEXTS(el)) >= LINK_LIST_DENSITY * total


def _pseudo_heading(el: HtmlElement) -> HtmlElement | None:
    """The block a bold label such as "Visitor Comments" stands in as a heading of (old table layouts have
    no ``<h3>``), or ``None`` when the label sits inside running text."""
    text = " ".join(el.text_content().split())
    node = el
    parent = node.getparent()
    while parent is not None and parent.tag in {"font", "span", "b", "strong", "u", "i", "em"}:
        if " ".join(parent.text_content().split()) != text:
            break
        node, parent = parent, parent.getparent()
    if parent is None or (node.tail and node.tail.strip()):
        return None
    previous = node.getprevious()
    before = parent.text if previous is None else previous.tail
    if before and before.strip():
        return None
    if previous is not None and previous.tag not in _BLOCKS:
        return None
    following = node.getnext()
    return node if following is None or following.tag in _BLOCKS else None


def _in_article(el: HtmlElement) -> bool:
    return any(a.tag == "article" or a.get("itemprop") == "articleBody" for a in el.iterancestors())


def remove_boilerplate(root: HtmlElement) -> Counter[str]:
    """Drop boilerplate from ``root`` in place; return how many blocks of each kind went."""
    keep = _protected(root)
    marked: dict[HtmlElement, str] = {}
    for el in _CANDIDATES(root, n=LINK_LIST_MIN_ITEMS):
        tag = el.tag
        if tag in _NEVER or el in keep:
            continue
        role = el.get("role")
        if tag == "nav" or role in _SITE_ROLES or (tag == "footer" and not _in_article(el)):
            marked[el] = "navigation"
            continue
        if tag in {"ul", "ol", "table"} and _is_link_list(el):
            marked[el] = "link_list"
            continue
        if tag in {"b", "strong"}:
            if el.get("class") is None and _COMMENT_HEADING.match(el.text_content() or ""):
                heading = _pseudo_heading(el)
                if heading is not None and heading not in keep:
                    marked[heading] = "comments"
                    for sibling in heading.itersiblings():
                        marked[sibling] = "comments+"
            if el.get("class") is None and el.get("id") is None:
                continue
        if tag in {"h2", "h3", "h4"} and _COMMENT_HEADING.match(el.text_content() or ""):
            parent = el.getparent()
            first = parent is not None and next(parent.iterchildren(etree.Element), None) is el
            if first and parent not in keep and parent.tag not in _NEVER:
                marked[parent] = "comments"
            else:
                marked[el] = "comments"
                for sibling in el.itersiblings():
                    if isinstance(sibling.tag, str):
                        marked[sibling] = "comments+"  # part of the section the heading opened
            continue
        attrs = f"{el.get('class') or ''} {el.get('id') or ''}".lower()
        if not (any(h in attrs for h in HINTS) or el.get("itemprop") or el.get("itemtype") or el.get("role")):
            continue
        kind = _kind(el)
        if kind is not None:
            marked[el] = kind
    removed: Counter[str] = Counter()
    for el, kind in marked.items():
        if any(ancestor in marked for ancestor in el.iterancestors()):
            continue
        if not kind.endswith("+"):
            removed[kind] += 1
        el.drop_tree()
    return removed
