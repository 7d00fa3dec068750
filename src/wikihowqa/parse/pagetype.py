"""What kind of page this is — article, forum, product, service, documentation, listing or collection — read
from the page's structure and semantics, never from its site.

How-to articles cite blogs, forum threads, shop pages, service pages, manuals and lists, and each keeps its
content differently: a forum thread's posts *are* its content (on an article the same markup is a comment
section to drop), a product page's description and specifications may be only in its JSON-LD, a listing's
content is the list of linked items an article extractor throws away as navigation. The signals, strongest
first:

1. what the page says it is: schema.org types in JSON-LD and microdata (``Product``, ``QAPage``,
   ``DiscussionForumPosting``, ``TechArticle``, ``NewsArticle``, ``CollectionPage``, ``Service``…) and
   ``og:type``;
2. repeated post structures: sibling blocks of one shape, each with its author or date, that hold most of
   the page's text (a thread), unless the first holds most of theirs: one post with short replies reads
   as an article with its comments, the paper's documents without them;
3. repeated item structures: many sibling cards of one shape, each a link with a short text (a listing),
   with prices (a collection of products);
4. documentation markers: code blocks with a table-of-contents sidebar, or a ``docs``/``manual``/
   ``reference`` host or path segment;
5. otherwise an article when the page has running prose or an ``<article>`` with its headline and date,
   else a service page.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from lxml import etree
from lxml.html import HtmlElement

from wikihowqa.parse.sizes import discount, text_sizes

ARTICLE = "article"
FORUM = "forum"
PRODUCT = "product"
SERVICE = "service"
DOCUMENTATION = "documentation"
LISTING = "listing"
COLLECTION = "collection"
PAGE_TYPES = (ARTICLE, FORUM, PRODUCT, SERVICE, DOCUMENTATION, LISTING, COLLECTION)

_SCHEMA = {
    "product": PRODUCT,
    "productgroup": PRODUCT,
    "individualproduct": PRODUCT,
    "productmodel": PRODUCT,
    "car": PRODUCT,
    "book": PRODUCT,
    "softwareapplication": PRODUCT,
    "qapage": FORUM,
    "discussionforumposting": FORUM,
    "techarticle": DOCUMENTATION,
    "apireference": DOCUMENTATION,
    "article": ARTICLE,
    "newsarticle": ARTICLE,
    "blogposting": ARTICLE,
    "reportagenewsarticle": ARTICLE,
    "analysisnewsarticle": ARTICLE,
    "opinionnewsarticle": ARTICLE,
    "scholarlyarticle": ARTICLE,
    "report": ARTICLE,
    "recipe": ARTICLE,
    "howto": ARTICLE,
    "collectionpage": LISTING,
    "searchresultspage": LISTING,
    "itemlist": LISTING,
    "offercatalog": COLLECTION,
    "service": SERVICE,
    "professionalservice": SERVICE,
    "financialproduct": SERVICE,
    "course": SERVICE,
    "educationaloccupationalprogram": SERVICE,
}
_OG = {"article": ARTICLE, "product": PRODUCT, "product.item": PRODUCT, "og:product": PRODUCT}
_DOC_SEGMENT = re.compile(
    r"^(?:docs?|documentation|manual|manuals|reference|api|guide|guides|userguide|usersguide|handbook|"
    r"tutorial|tutorials|kb|knowledge-?base|wiki|help|learn|library)$",
    re.I,
)
_PRICE = re.compile(r"(?:[$€£¥₹]\s?\d|\d(?:[.,]\d{2})?\s?(?:€|EUR|USD|GBP|\$))")
_WORD = re.compile(r"\w+")
_TEXTS = etree.XPath(".//text()[not(ancestor::script or ancestor::style)]", smart_strings=False)
_LINK_TEXTS = etree.XPath(".//a//text()", smart_strings=False)
_DOC_HOSTS = frozenset({"docs", "doc", "developer", "developers", "api", "manual", "wiki"})
#: An opening post holding this share of a thread's text, its replies short, is an article with comments.
LEAD_SHARE = 0.6
#: A comment holds less than this share of the post it answers.
REPLY_SHARE = 0.5
#: Repeated blocks holding at least this share of the page's text are the page (posts, items).
MAJORITY = 0.5


@dataclass(frozen=True, slots=True)
class Signals:
    """What the type was decided from (kept for the benchmark's confusion table and for debugging)."""

    declared: tuple[str, ...]  # page types named by schema.org / og:type, in order of appearance
    posts: int  # repeated post-like siblings holding most of the text
    lead: float  # the first post's share of their text (a post with short replies: an article and comments)
    items: int  # repeated card-like siblings
    priced_items: int  # of those, the ones showing a price
    code_blocks: int
    doc_url: bool
    prose_words: int  # words in paragraphs of running text (``<p>`` with at least 20 words)
    dated_article: bool = False  # an ``<article>`` holding the headline and a ``<time>``
    replies: tuple[HtmlElement, ...] = field(
        default=(), repr=False, compare=False
    )  # the posts after the first
    longest_reply: float = 0.0  # the longest later post's share of the posts' text

    @property
    def commented(self) -> bool:
        """One post with short replies: an article and its comments. A "reply" holding half the opening
        post's text or more is no comment but a second block of the page (a blog's classless layout
        ``<div>``s, one holding the post and one the sidebar, read as two dated posts)."""
        return self.posts >= 2 and self.lead >= LEAD_SHARE and self.longest_reply < REPLY_SHARE * self.lead


# Found in C: ``iterfind`` answers ``[@…]`` conditions in Python, element by element.
_TYPED_SCRIPTS = etree.XPath("descendant::script[@type]")
_LINKS = etree.XPath("boolean(descendant::a[@href])")
_ITEMTYPED = etree.XPath("descendant::*[@itemtype]")
_PROPERTIES = etree.XPath("descendant::meta[@property]")


def json_ld(root: HtmlElement) -> Iterator[dict]:
    """Every object of the page's JSON-LD, ``@graph`` members and nested ``mainEntity`` included."""
    for script in _TYPED_SCRIPTS(root):
        if "ld+json" not in (script.get("type") or "").lower():
            continue
        raw = (script.text or "").strip()
        if raw.startswith("<!--"):
            raw = raw[4:]
        if raw.endswith("-->"):
            raw = raw[:-3]
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        stack = data if isinstance(data, list) else [data]
        seen = 0
        while stack and seen < 500:
            item = stack.pop(0)
            seen += 1
            if not isinstance(item, dict):
                continue
            yield item
            for key in ("@graph", "mainEntity", "mainEntityOfPage"):
                nested = item.get(key)
                if isinstance(nested, list):
                    stack.extend(nested)
                elif isinstance(nested, dict):
                    stack.append(nested)


def _types_of(item: dict) -> list[str]:
    value = item.get("@type")
    values = value if isinstance(value, list) else [value]
    return [v.rsplit("/", 1)[-1].lower() for v in values if isinstance(v, str)]


def declared_types(root: HtmlElement) -> list[str]:
    """Page types the page declares (JSON-LD ``@type``, microdata ``itemtype`` outside lists, ``og:type``)."""
    found: list[str] = []
    for item in json_ld(root):
        for name in _types_of(item):
            if name in _SCHEMA:
                found.append(_SCHEMA[name])
    for el in _ITEMTYPED(root):
        if el.get("itemprop"):  # a part of something else (an offer of a product, a review…)
            continue
        if next((a for a in el.iterancestors() if a.get("itemtype")), None) is not None:
            continue
        for url in (el.get("itemtype") or "").split():
            name = url.rstrip("/").rsplit("/", 1)[-1].lower()
            if name in _SCHEMA:
                found.append(_SCHEMA[name])
    for meta in _PROPERTIES(root):
        if meta.get("property") == "og:type":
            kind = _OG.get((meta.get("content") or "").strip().lower())
            if kind:
                found.append(kind)
    return found


_POST_NAMES = re.compile("author|username|user-name|poster|posted|post-date|byline")
_POST_PROPS = etree.XPath(
    "boolean(descendant-or-self::*[@itemprop='author' or @itemprop='creator' or @itemprop='datePublished' "
    "or @itemprop='dateCreated'])"
)
_NAMES_OF = etree.XPath("descendant-or-self::*/@class | descendant-or-self::*/@id", smart_strings=False)


def _is_post(el: HtmlElement) -> bool:
    """A block carrying its author or date: a ``<time>``, microdata, or an author/user/date-named part.

    The names are read as strings in one XPath call and searched at once (one per line, so no name runs
    into the next): walking the post's elements in Python took twice as long."""
    if el.tag == "time" or next(el.iter("time"), None) is not None:  # iter's tag test is lxml's, in C
        return True
    names = _NAMES_OF(el)
    if names and _POST_NAMES.search("\n".join(names).lower()) is not None:
        return True
    return bool(_POST_PROPS(el))


#: Elements with ``$n`` element children or more, found in C (most elements have fewer).
_PARENTS = etree.XPath("descendant-or-self::*[*[$n]]")
_NOT_ITEMS = frozenset({"script", "style", "br", "option", "tr", "td"})


def repeated_groups(
    root: HtmlElement, min_count: int = 3, within: Callable[[HtmlElement], bool] | None = None
) -> list[list[HtmlElement]]:
    """Runs of sibling elements of one tag and class (three or more); with ``within``, only under the
    parents it accepts (a caller that wants runs holding much of the page's text skips the parents holding
    a few words, most of them: reading their children was most of the page typing's time)."""
    groups: list[list[HtmlElement]] = []
    body = root.find("body")
    for parent in _PARENTS(body if body is not None else root, n=min_count):
        if within is not None and not within(parent):
            continue
        by_shape: dict[tuple[str, str], list[HtmlElement]] = {}
        for child in parent:
            tag = child.tag
            if not isinstance(tag, str) or tag in _NOT_ITEMS:
                continue
            classes = child.get("class")
            first = classes.split(None, 1)[0] if classes and not classes.isspace() else ""
            by_shape.setdefault((tag, first), []).append(child)  # posts alternate their other classes
        for members in by_shape.values():
            if len(members) >= min_count:
                groups.append(members)
    return groups


#: Characters a post holds at least (about a dozen words), and a card at most on average (about 80).
POST_CHARS = 60
CARD_CHARS = 480


def signals(root: HtmlElement, url: str, sizes: tuple[dict, dict] | None = None) -> Signals:
    """What the page's structure says (``sizes``: :func:`text_sizes` of ``root``, when already known)."""
    body = root.find("body")
    scope = body if body is not None else root
    chars, _ = sizes or text_sizes(root)
    total = max(chars.get(scope, 0), 1)
    posts = items = priced = 0
    lead = 0.0
    replies: tuple[HtmlElement, ...] = ()
    longest = 0.0
    # A run holds no more text than its parent: under a parent holding less than the smaller share below,
    # it counts for nothing.
    for group in repeated_groups(root, 2, lambda parent: chars.get(parent, 0) / total >= MAJORITY * 0.6):
        sizes = [chars.get(el, 0) for el in group]
        share = sum(sizes) / total
        long = sum(n >= POST_CHARS for n in sizes)
        if share >= MAJORITY * 0.8 and long >= max(2, len(group) // 2) and long > posts:  # enough to be posts
            posty = [(el, n) for el, n in zip(group, sizes, strict=True) if n >= POST_CHARS and _is_post(el)]
            if len(posty) >= max(2, len(group) // 2) and len(posty) > posts:
                held = sum(n for _, n in posty)
                posts, lead = len(posty), posty[0][1] / held
                after = group[group.index(posty[0][0]) + 1 :]  # the posts' run after the opening one
                replies, longest = tuple(after), max(n for _, n in posty[1:]) / held
        if len(group) < 4 or len(group) <= items or sum(sizes) / len(group) >= CARD_CHARS:
            continue
        if share < MAJORITY * 0.6:  # a menu or a side list, not the page's items
            continue
        linked = [el for el in group if el.tag == "a" or _LINKS(el)]
        if len(linked) >= 0.8 * len(group):
            items = len(group)
            priced = sum(1 for el in group if _PRICE.search(" ".join(_TEXTS(el))))
    code = len(scope.findall(".//pre"))
    parts = urlsplit(url) if url.startswith(("http://", "https://")) else None
    doc_url = False
    if parts is not None:
        host = parts.netloc.lower().split(":")[0]
        segments = [s for s in parts.path.split("/") if s]
        doc_url = host.split(".")[0] in _DOC_HOSTS or any(
            _DOC_SEGMENT.match(s) for s in segments[:-1] or segments
        )
    prose = 0
    for p in scope.iter("p"):
        if chars.get(p, 0) >= 100:
            n = len(_WORD.findall(p.text_content()))
            prose += n if n >= 20 else 0
    dated = bool(scope.xpath("boolean(/descendant::article[.//h1 and .//time])"))
    return Signals(
        tuple(declared_types(root)), posts, lead, items, priced, code, doc_url, prose, dated, replies, longest
    )


def classify(found: Signals) -> str:
    """The page type the signals point to (see the module's docstring for the order)."""
    declared = Counter(found.declared)
    discussion = found.posts >= 2 and found.lead < LEAD_SHARE
    if discussion or (declared[FORUM] and not declared[ARTICLE] and found.lead < LEAD_SHARE):
        return FORUM
    if declared[PRODUCT]:
        if declared[PRODUCT] >= 3 or found.priced_items >= 4:
            return COLLECTION
        return PRODUCT
    if found.priced_items >= 4:
        return COLLECTION
    if declared[DOCUMENTATION]:
        return DOCUMENTATION
    if found.doc_url and (found.code_blocks or found.prose_words >= 150) and not declared[ARTICLE] > 1:
        return DOCUMENTATION
    if declared[LISTING] and found.prose_words < 400:
        return LISTING
    if declared[COLLECTION]:
        return COLLECTION
    if declared[ARTICLE]:
        return ARTICLE
    if declared[SERVICE]:
        return SERVICE
    if found.items >= 6 and found.prose_words < 300:
        return LISTING
    if found.code_blocks >= 2:
        return DOCUMENTATION
    return ARTICLE if found.prose_words >= 150 or found.dated_article else SERVICE


def page_type(root: HtmlElement, url: str) -> str:
    """The type of the page parsed into ``root`` (one of :data:`PAGE_TYPES`)."""
    return classify(signals(root, url))


def drop_replies(found: Signals, sizes: tuple[dict, dict] | None = None) -> int:
    """Remove the replies under an opening post that holds most of a thread (:attr:`Signals.commented`):
    they are that article's comment section. Returns how many went."""
    if not found.commented:
        return 0
    for reply in found.replies:
        if sizes is not None:
            discount(sizes, reply)
        reply.drop_tree()
    return len(found.replies)


_TAGS = re.compile(r"<[^>]+>")


def _plain(value: object) -> str:
    if not isinstance(value, str):
        return ""
    import html

    return " ".join(html.unescape(_TAGS.sub(" ", value)).split())


def product_facts(root: HtmlElement) -> tuple[str, list[tuple[str, str]]]:
    """A product's description and specifications as its JSON-LD states them (``description``,
    ``additionalProperty`` name/value pairs): shops often render them with scripts, so the served page may
    hold them nowhere else."""
    for item in json_ld(root):
        if not any(_SCHEMA.get(name) == PRODUCT for name in _types_of(item)):
            continue
        specs = []
        props = item.get("additionalProperty")
        for prop in props if isinstance(props, list) else [props] if isinstance(props, dict) else []:
            if isinstance(prop, dict):
                name, value = _plain(prop.get("name")), _plain(str(prop.get("value", "")))
                if name and value:
                    specs.append((name, value))
        description = _plain(item.get("description"))
        if description or specs:
            return description, specs
    return "", []
