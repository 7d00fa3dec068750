"""Remove what the paper's documents kept by mistake: comment sections, related-article blocks, share
widgets, cookie and newsletter banners, "was this page helpful?" boxes, and lists that are only links.

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
from functools import lru_cache

from lxml import etree
from lxml.html import HtmlElement

from wikihowqa.parse.related import LABELS, RELATED_HEADING, link_paragraphs, related_label, teaser_run
from wikihowqa.parse.sizes import discount, text_sizes


def _words(*names: str) -> str:
    return "|".join(re.escape(n) for n in names)


# Each kind is a set of words (or word sequences) that a class or id name must contain *as whole words*:
# names are split into words at "-", "_" and camelCase, so "social-share-bar" and "shareButtons" are
# share widgets while "themeform", "cmp-container" (an AEM component) and "commentary" are not. A word may
# be run together with the noun of the widget it names ("relatedposts", "commentlist", "sharebar").
_COMPOUND = "(?:posts?|articles?|stories|links|buttons?|bar|box|list|widget|area|icons|items?)?"
KINDS: Mapping[str, re.Pattern[str]] = {
    name: re.compile(rf"(?:^|-)(?:{pattern}){_COMPOUND}(?:-|$)")
    for name, pattern in {
        "comments": _words(
            "comment",
            "comments",
            "commentlist",
            "commentform",
            "comment-form",
            "disqus",
            "reply-form",
            "post-comment",
            "user-comments",
        )
        + r"|^(?:respond|replies|discussion)$",
        "related": _words(
            "related",
            "recommend",
            "recommended",
            "recommendations",
            "more-stories",
            "more-articles",
            "more-from",
            "more-news",
            "more-like-this",
            "more-posts",
            "more-to-read",
            "read-next",
            "read-more-stories",
            "also-read",
            "also-like",
            "you-may",
            "you-might",
            "popular",
            "trending",
            "taboola",
            "outbrain",
            "recirc",
            "recirculation",
            "suggested",
            "yarpp",
        ),
        "share": _words(
            "share",
            "shares",
            "sharing",
            "social",
            "addthis",
            "sharedaddy",
            "sociable",
            "shariff",
            "sharethis",
            "follow-us",
            "socials",
        ),
        "cookie": _words(
            "cookie",
            "cookies",
            "consent",
            "gdpr",
            "onetrust",
            "cookiebot",
            "privacy-banner",
            "privacy-notice",
        )
        + r"|^cc-(?:window|banner)",
        "legal": _words("disclaimer", "copyright", "legal-notice"),
        # The writer's box: name, photo, a bio and links to their other posts, printed with every article
        # they write (a byline's bare "author" is not enough: it also names the article's own header).
        "author": _words(
            "author-bio",
            "author-box",
            "authorbox",
            "author-profile",
            "author-card",
            "author-info",
            "author-details",
            "author-wrapper",
            "author-description",
            "about-author",
            "about-the-author",
            "bio-box",
        ),
        "feedback": _words("feedback", "was-this-helpful", "helpful", "page-feedback"),
        "forum": _words("postprofile", "post-profile", "online-list", "who-is-online", "whoisonline")
        + r"|^(?:stat-block|signature)$",
        "newsletter": _words(
            "newsletter",
            "newsletters",
            "subscribe",
            "subscription",
            "signup",
            "sign-up",
            "mailing-list",
            "opt-in",
            "optin",
            "mc4wp",
            "mailchimp",
            "email-capture",
        ),
    }.items()
}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[-_.:]+")
_TAXONOMY = re.compile(r"^(?:category|cat|tag|tags|topic|section|term|has)-", re.I)
#: A block named like a widget but holding more than this share of the page's text (and mostly text, not
#: links) is the content in a container with an unlucky name (``div.entry.themeform.share``), not a widget.
CONTENT_SHARE = 0.5
# Substrings every name the patterns above match contains: a cheap first test (a regex union over every
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
    "yarpp",
    "shar",
    "social",
    "addthis",
    "sociable",
    "follow",
    "cookie",
    "consent",
    "gdpr",
    "onetrust",
    "privacy",
    "cc-",
    "newsletter",
    "profile",
    "online",
    "stat",
    "signature",
    "disclaimer",
    "copyright",
    "legal",
    "subscri",
    "signup",
    "sign",
    "mailing",
    "opt",
    "mc4wp",
    "mailchimp",
    "capture",
    "feedback",
    "helpful",
    "author",
    "bio-box",
)
_COMMENT_HEADING = re.compile(
    r"^\s*(?:\d+\s+)?(?:(?:reader|visitor|user|guest)s?'?\s+)?(?:comments?|responses?|replies|discussion|"
    r"(?:leave|post|add|write) a (?:reply|comment)|join the (?:discussion|conversation)|"
    r"\d+\s+thoughts? on\b.*)\s*:?\s*$",
    re.I,
)
#: The heading an author box opens with: the writer's (or medical reviewer's) bio, photo and other posts,
#: which a page prints after or beside every article it publishes, not a part of this one.
_AUTHOR_HEADING = re.compile(r"^\s*(?:about|meet) the (?:author|writer|reviewer)s?\s*:?\s*$", re.I)
_SITE_ROLES = {"navigation", "contentinfo", "banner"}
_NEVER = {"html", "body", "main", "head", "title", "h1"}
#: A list whose items are this share link text (or more) is navigation, not prose.
LINK_LIST_DENSITY = 0.9
LINK_LIST_MIN_ITEMS = 3


def _tokens(el: HtmlElement) -> Iterator[str]:
    """The element's class and id names, each as its words joined by ``-`` and lowercased (``shareButtons``
    → ``share-buttons``); names CMSs derive from a post's categories or tags are left out."""
    for attr in ("class", "id"):
        value = el.get(attr)
        if value:
            for token in value.split():
                word = _word_of(token)
                if word is not None:
                    yield word


@lru_cache(maxsize=1 << 16)
def _word_of(token: str) -> str | None:
    if _TAXONOMY.match(token):
        return None
    return _SEPARATORS.sub("-", _CAMEL.sub("-", token)).strip("-").lower()


@lru_cache(maxsize=1 << 16)
def _kind_of(token: str) -> str | None:
    """The first kind (in :data:`KINDS` order) whose words a normalised name holds (names repeat: each is
    matched once)."""
    return next((kind for kind, pattern in KINDS.items() if pattern.search(token)), None)


def name_kind(el: HtmlElement) -> str | None:
    """The boilerplate kind an element's class, id, role or schema.org type names, else ``None``."""
    if el.get("itemprop") == "comment" or "schema.org/Comment" in (el.get("itemtype") or ""):
        return "comments"
    role = (el.get("role") or "").lower()
    dialog = role in {"complementary", "dialog", "alertdialog"} and el.tag != "main"
    if dialog and any(KINDS["cookie"].search(token) for token in _tokens(el)):
        return "cookie"
    for token in _tokens(el):
        kind = _kind_of(token)
        if kind is not None and not _spells_text(el, token):  # a heading's slug is no name for any kind
            return kind
    return None


_ID_WORD = re.compile(r"[^\W_]+")
#: Words of a name that CMSs put before a heading's slug (``h-``, ``toc-``, a number) and are not its text.
_SLUG_PREFIXES = frozenset({"h", "toc", "section", "heading", "anchor"})


_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: Words a heading's slug must have to be told from a widget's name (``related-posts`` on "Related posts").
SLUG_WORDS = 3
#: The same for a section whose ``id`` is its heading's slug (documentation generators give every section
#: one: ``section#respond-to-review-comments``): longer, and not starting with a widget's word, since a
#: widget's box is often named after its own heading (``div#you-may-also-like`` on "You may also like").
SECTION_SLUG_WORDS = 4


def _spells_text(el: HtmlElement, token: str) -> bool:
    """Whether the name is a heading's own words, slugged: the anchor a CMS gives a heading
    (``h2#h-what-is-social-shopping``, "What is Social Shopping?") names what the heading says, not a
    widget. Short slugs ("related-posts") are widget names as often as they are headings, and count. So is
    the ``id`` of a section that its first heading spells (``section#respond-to-review-comments`` on
    "Respond to review comments")."""
    if el.tag in _HEADING_TAGS:
        heading, least = el, SLUG_WORDS
    elif el.get("id") and _word_of(el.get("id")) == token:
        heading, least = next(el.iter(*_HEADING_TAGS), None), SECTION_SLUG_WORDS
    else:
        return False
    words = token.split("-")
    while words and (words[0] in _SLUG_PREFIXES or words[0].isdigit()):
        words = words[1:]
    if heading is None or len(words) < least or (heading is not el and _widget_first("-".join(words))):
        return False
    said: list[str] = []
    for piece in heading.itertext():
        said += _ID_WORD.findall(piece.lower())
        if len(said) > len(words) + 2:
            break
    while said and said[0].isdigit() and said[0] != words[0]:  # a list number ("2. Social media")
        said = said[1:]
    return said[: len(words)] == words


def _widget_first(slug: str) -> bool:
    """Whether a widget's word opens the slug (``you-may-also-like``), as it does a widget's name; in a
    section's title it comes later, if at all (``respond-to-review-comments``)."""
    kind = _kind_of(slug)
    found = KINDS[kind].search(slug) if kind is not None else None
    return found is not None and found.start() == 0


def _protected(root: HtmlElement) -> set[HtmlElement]:
    keep: set[HtmlElement] = set()
    for anchor in root.xpath("//h1 | /descendant::*[@itemprop='articleBody']"):
        keep.add(anchor)
        keep.update(anchor.iterancestors())
    return keep


# Steps with a condition are written ``/descendant::x[…]``, not ``//x[…]``: the same elements, but libxml2
# walks ``//`` with a condition as every node's children (text nodes' too), a quarter slower.
_CANDIDATES = etree.XPath(
    "/descendant::*[@class or @id or @role or @itemprop or @itemtype] | /descendant::ul[count(li) >= $n]"
    " | /descendant::ol[count(li) >= $n] | //h2 | //h3 | //h4 | //nav | //footer"
    " | /descendant::table[count(.//tr) >= $n] | /descendant::b[string-length(normalize-space(.)) < 40]"
    " | /descendant::strong[string-length(normalize-space(.)) < 40]"
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


def _is_link_list(el: HtmlElement, chars: dict, links: dict) -> bool:
    total = chars.get(el, 0)
    return total > 0 and links.get(el, 0) >= LINK_LIST_DENSITY * total


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


def _opened_by(heading: HtmlElement) -> HtmlElement | None:
    """The box a heading is the first thing in, or ``None`` when it heads a passage of running text (an
    "About the author" section in the body of a post about its author stays)."""
    parent = heading.getparent()
    if parent is None or parent.tag in _NEVER or (parent.text and parent.text.strip()):
        return None
    return parent if next(parent.iterchildren(etree.Element), None) is heading else None


def _in_article(el: HtmlElement) -> bool:
    return any(a.tag == "article" or a.get("itemprop") == "articleBody" for a in el.iterancestors())


_HINTED = re.compile("|".join(re.escape(h) for h in HINTS))
#: Tags with a rule of their own in :func:`remove_boilerplate`, whatever their class.
_BY_TAG = frozenset({"nav", "footer", "ul", "ol", "table", "b", "strong", "h2", "h3", "h4"})


@lru_cache(maxsize=1 << 16)
def _hinted_name(name: str) -> bool:
    return _HINTED.search(name.lower()) is not None


def _hinted(name: str | None) -> bool:
    """Whether a class or id value holds one of :data:`HINTS` (names repeat across a page and a site:
    each is looked at once)."""
    return bool(name) and _hinted_name(name)


def _guarded(el: HtmlElement, kind: str, page_chars: int, chars: dict, links: dict) -> bool:
    """Whether a block marked ``kind`` is in truth the page's content: a widget (share bar, cookie notice,
    newsletter box, related links, a menu) is small or made of links; a block holding most of the page's
    running text is not one, whatever its class says."""
    if kind in {"comments", "comments+", "link_list", "repeats"} or page_chars == 0:
        return False
    total = chars.get(el, 0)
    if kind in _WIDGETS and total - links.get(el, 0) >= WIDGET_CHARS:
        return True
    if kind == "cookie" and _MODAL(el):
        return False
    if total <= CONTENT_SHARE * page_chars:
        return False
    return links.get(el, 0) < 0.5 * total


#: Kinds that are small boxes (a share bar, a sign-up form, a "was this helpful?" box): one holding this
#: many characters of text besides links is the page's text in a container named after its subject
#: (``article.newsletter-content`` on a newsletter's own page). Not cookie notices or legal text: a
#: consent manager's preference centre is pages long.
_WIDGETS = frozenset({"share", "newsletter", "feedback"})
WIDGET_CHARS = 2500
#: A cookie-named block that is or holds a modal (``role=dialog``, ``aria-modal``) is a consent manager's
#: banner and preference centre, however much of the page's text its purposes and vendors make up; a page's
#: own text about cookies (a cookie policy) is never laid out in a modal.
_MODAL = etree.XPath(
    "boolean(descendant-or-self::*[@role='dialog' or @role='alertdialog' or @aria-modal='true'])"
)
#: Names inside code are a highlighter's token classes (``span.hljs-comment``), never widgets.
_IN_CODE = etree.XPath("boolean(ancestor::pre or ancestor::code)")

_POST_PARTS = frozenset({"comments", "author"})

_FLAG = "data-wikihowqa-boilerplate"
_OUTERMOST = etree.XPath(f"/descendant::*[@{_FLAG}][not(ancestor::*[@{_FLAG}])]")


def remove_boilerplate(
    root: HtmlElement,
    *,
    keep_comments: bool = False,
    keep_link_lists: bool = False,
    sizes: tuple[dict, dict] | None = None,
) -> Counter[str]:
    """Drop boilerplate from ``root`` in place; return how many blocks of each kind went.

    ``keep_comments``: on a forum thread or Q&A page the posts are the content, so comment-named blocks and
    "N replies" headings stay. ``keep_link_lists``: on a listing or collection page the list of linked items
    is the content. On either, a box titled as other posts ("Latest news") stays: it may be what the page
    lists, or a thread's own posts. ``sizes``: :func:`wikihowqa.parse.sizes.text_sizes` of ``root``, when
    already known (kept true: what goes is taken out of them)."""
    keep = _protected(root)
    body = root.find("body")
    sizes = sizes or text_sizes(root)
    chars, links = sizes
    page_chars = chars.get(body if body is not None else root, 0)
    marked: dict[HtmlElement, str] = {}
    others = not (keep_link_lists or keep_comments)  # boxes of other posts go (not on listings, threads)
    for el in _CANDIDATES(root, n=LINK_LIST_MIN_ITEMS):
        tag = el.tag
        if (  # most candidates: a class or id that names no widget, on a tag with no rule of its own
            tag not in _BY_TAG
            and not _hinted(el.get("class"))
            and not _hinted(el.get("id"))
            and el.get("role") is None
            and el.get("itemprop") is None
            and el.get("itemtype") is None
        ):
            if others and tag in LABELS and related_label(el):
                box = _opened_by(el)
                if box is not None and box not in keep:
                    marked[box] = "related"
            continue
        if tag in _NEVER or el in keep:
            continue
        role = el.get("role")
        if tag == "nav" or role in _SITE_ROLES or (tag == "footer" and not _in_article(el)):
            marked[el] = "navigation"
            continue
        if tag in {"ul", "ol", "table"}:
            if (
                not keep_link_lists
                and _is_link_list(el, chars, links)
                and not (tag == "table" and _is_data_table(el))
            ):
                marked[el] = "link_list"
            continue
        if tag in {"b", "strong"}:
            label = el.get("class") is None and _COMMENT_HEADING.match(el.text_content() or "")
            if label and not keep_comments:
                heading = _pseudo_heading(el)
                if heading is not None and heading not in keep:
                    marked[heading] = "comments"
                    for sibling in heading.itersiblings():
                        marked[sibling] = "comments+"
            if el.get("class") is None and el.get("id") is None:
                continue
        if tag in {"h2", "h3", "h4"} and _COMMENT_HEADING.match(el.text_content() or ""):
            if keep_comments:
                continue
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
        if tag in {"h2", "h3", "h4"} and not keep_comments and _AUTHOR_HEADING.match(el.text_content() or ""):
            box = _opened_by(el)
            if box is not None and box not in keep:
                marked[box] = "author"
            continue
        if tag in {"h2", "h3", "h4"} and others and RELATED_HEADING.match(el.text_content() or ""):
            box = _opened_by(el)
            if box is not None and box not in keep:
                marked[box] = "related"
                continue
            followers = teaser_run(el, keep, chars, links)
            if followers:
                marked[el] = "related"
                for follower in followers:
                    marked[follower] = "related+"  # the links the heading introduced
                continue
        named = _hinted(el.get("class")) or _hinted(el.get("id"))
        if not (named or el.get("itemprop") or el.get("itemtype") or el.get("role")):
            continue
        kind = name_kind(el)
        # On a thread each post has its own author box (name, join date): part of the post, not a widget.
        if kind is not None and not (keep_comments and kind in _POST_PARTS) and not _IN_CODE(el):
            marked[el] = kind
    if not keep_link_lists:
        for el in link_paragraphs(root, chars, links):
            if el not in keep:
                marked.setdefault(el, "link_list")
    for el in _repeating(root, chars):
        for copy in [child for child in el if isinstance(child.tag, str)][1:]:
            if copy not in keep:
                marked.setdefault(copy, "repeats")
    for el, kind in marked.items():
        if not _guarded(el, kind, page_chars, chars, links):
            el.set(_FLAG, kind)
    removed: Counter[str] = Counter()
    for el in _OUTERMOST(root):  # what lies inside a dropped block goes with it, uncounted
        kind = el.get(_FLAG)
        if not kind.endswith("+"):
            removed[kind] += 1
        discount(sizes, el)
        el.drop_tree()
    return removed


def _is_data_table(table: HtmlElement) -> bool:
    """A table whose rows have several cells, some holding text besides links, is data (a job board, a
    price list), not a menu laid out in cells."""
    rows = [row for row in table.iter("tr") if len(row.findall("td")) + len(row.findall("th")) >= 2]
    return len(rows) >= LINK_LIST_MIN_ITEMS


#: Children saying one and the same thing this many times over are a ticker, not text.
REPEATS = 6
_WORD_RUN = re.compile(r"\w+")
_MANY_CHILDREN = etree.XPath("descendant-or-self::*[*[$n]]")


def _repeating(root: HtmlElement, chars: dict) -> Iterator[HtmlElement]:
    """Elements whose :data:`REPEATS` or more children all say the same phrase of two words or more: a
    marquee (a call to action or a slogan copied a hundred times so it can scroll without end), a row of
    identical buttons or photo credits. No text says a phrase over and over in a row: the first copy is
    what the page says, the others go. Not code (lines that each start with one keyword). Children of one
    size are compared first, so the text of only a few elements is read."""
    for el in _MANY_CHILDREN(root, n=REPEATS):  # found in C: most elements have fewer children
        kids = [child for child in el if isinstance(child.tag, str)]
        if len(kids) < REPEATS or el.tag in {"pre", "code"}:
            continue
        size = chars.get(kids[0], 0)
        if size == 0 or any(chars.get(kid, 0) != size for kid in kids):
            continue
        said = {" ".join(_WORD_RUN.findall(kid.text_content().casefold())) for kid in kids}
        if len(said) == 1 and len(next(iter(said)).split()) >= 2 and not _IN_CODE(el):
            yield el
