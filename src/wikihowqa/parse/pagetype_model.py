"""A learned page-type classifier: a small random forest over the page's structural signals.

The rules of :func:`wikihowqa.parse.pagetype.classify` read a few strong signals in a fixed order; a page
that declares nothing and mixes shapes (a blog post with dated sections read as a thread, a listing with
prose) falls through them. The forest weighs the same signals together with counts of the page's
elements and the shape of its URL path (words such as ``forum`` or ``product`` in the path, its depth), all
structure, no site names. It was fitted on the development half of the web-extraction benchmark's labels
(``benchmarks/train_pagetype.py``) and is stored as plain arrays in ``pagetype_model.json``, read with no
scikit-learn at run time: the same page always gets the same type.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lxml import etree
from lxml.html import HtmlElement

from wikihowqa.parse.pagetype import ARTICLE, COLLECTION, FORUM, PAGE_TYPES, SERVICE, Signals, classify
from wikihowqa.parse.thread import posts_of

#: The forest's forum share above which a thread's structure makes the page a forum (chosen on the dev
#: half's out-of-fold shares: threads the rules found scored 0.3 and up, articles and listings 0.2 and less).
FORUM_SUPPORT = 0.25
#: The forest's collection share from which a page the rules read as an article is read as a collection (a
#: clear majority: at 0.5 to 0.6 the gains and losses on the dev half's collections were even, and a
#: product page at 0.61 lost its description among its reviews).
COLLECTION_SUPPORT = 0.62
#: The forest's forum share from which a page of one long post with short replies (the rules' article with
#: its comments) is read as a thread all the same: a clear majority (a thread whose opening post is a long
#: guide, under a ``/threads/`` path, got 0.71; a blog post with three short comments 0.28).
COMMENTED_FORUM_SUPPORT = 0.5
MODEL_FILE = Path(__file__).with_name("pagetype_model.json")

_COUNTED = (
    "p",
    "li",
    "a",
    "form",
    "input",
    "button",
    "table",
    "tr",
    "pre",
    "code",
    "h1",
    "h2",
    "h3",
    "time",
    "article",
    "section",
    "img",
    "select",
    "dl",
    "blockquote",
    "nav",
    "aside",
    "ul",
    "span",
    "div",
)
#: Words of a URL path that say what kind of page lives there (a generic vocabulary of paths, no hosts).
_PATH_WORDS: dict[str, re.Pattern[str]] = {
    "forum": re.compile(
        r"^(?:forums?|threads?|topics?|community|communities|questions?|discussions?|t|r|"
        r"board|boards|viewtopic.*|showthread.*|answers)$"
    ),
    "product": re.compile(r"^(?:products?|p|dp|item|items|shop|store|buy|sku)$"),
    "listing": re.compile(
        r"^(?:category|categories|collections?|c|search|tags?|list|lists|directory|"
        r"browse|results|archive|page)$"
    ),
    "article": re.compile(
        r"^(?:blog|blogs|news|articles?|posts?|story|stories|insights|resources|"
        r"(?:19|20)\d\d)$"
    ),
    "docs": re.compile(r"^(?:docs?|documentation|manual|reference|api|guide|guides|kb|wiki|help|learn)$"),
    "service": re.compile(r"^(?:services?|solutions?|pricing|plans|features|about|contact|locations?)$"),
}
_PRICE = re.compile(r"(?:[$€£¥₹]\s?\d|\d(?:[.,]\d{2})?\s?(?:€|EUR|USD|GBP|\$))")

FEATURES: tuple[str, ...] = (
    *(f"declared_{t}" for t in PAGE_TYPES),
    "posts",
    "lead",
    "longest_reply",
    "items",
    "priced_items",
    "code_blocks",
    "doc_url",
    "prose_words",
    "dated_article",
    *(f"tag_{t}" for t in _COUNTED),
    "text_chars",
    "link_share",
    "prices",
    "path_depth",
    "slug_words",
    "has_query",
    *(f"path_{k}" for k in _PATH_WORDS),
)


def _shown_texts(scope: HtmlElement) -> list[str]:
    """The texts outside scripts and styles, in one walk (an XPath with an ancestor test merges its node
    sets in quadratic time on pages of many text nodes: 25 s at 20,000 ``<br>``-separated lines)."""
    texts = []
    for el in scope.iter():
        tag = el.tag  # each of lxml's properties makes a new string: each read once
        if tag != "script" and tag != "style" and isinstance(tag, str):
            text = el.text
            if text:
                texts.append(text)
        tail = el.tail
        if tail and el is not scope:
            texts.append(tail)
    return texts


def page_features(
    root: HtmlElement, url: str, found: Signals, sizes: tuple[dict[Any, int], dict[Any, int]]
) -> list[float]:
    """The feature vector :data:`FEATURES` of a parsed page (before boilerplate removal)."""
    body = root.find("body")
    scope = body if body is not None else root
    chars, links = sizes
    counts = dict.fromkeys(_COUNTED, 0)
    for el in scope.iter(*_COUNTED):
        counts[el.tag] += 1
    text_chars = chars.get(scope, 0)
    text = " ".join(_shown_texts(scope)) if text_chars < 400_000 else ""
    parts = urlsplit(url) if url.startswith(("http://", "https://")) else None
    segments = [s.lower() for s in parts.path.split("/") if s] if parts else []
    slug = segments[-1] if segments else ""
    declared = [found.declared.count(t) for t in PAGE_TYPES]
    return [
        *map(float, declared),
        float(found.posts),
        found.lead,
        found.longest_reply,
        float(found.items),
        float(found.priced_items),
        float(found.code_blocks),
        float(found.doc_url),
        float(found.prose_words),
        float(found.dated_article),
        *(float(counts[t]) for t in _COUNTED),
        float(text_chars),
        links.get(scope, 0) / text_chars if text_chars else 0.0,
        float(len(_PRICE.findall(text))),
        float(len(segments)),
        float(len(re.findall(r"[a-z0-9]+", slug))),
        float(bool(parts and parts.query)),
        *(float(any(p.match(s) for s in segments)) for p in _PATH_WORDS.values()),
    ]


@lru_cache(maxsize=1)
def load_model(path: Path = MODEL_FILE) -> dict[str, Any] | None:
    """The stored forest, or ``None`` when the file is missing or was made for other features."""
    if not path.is_file():
        return None
    model: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if tuple(model.get("features", ())) != FEATURES:
        return None
    return model


def predict(features: list[float], model: dict[str, Any]) -> str:
    """The class with the highest mean leaf probability over the forest's trees."""
    shares = probabilities(features, model)
    return max(shares, key=shares.__getitem__)


def probabilities(features: list[float], model: dict[str, Any]) -> dict[str, float]:
    """Each class's mean leaf probability over the forest's trees."""
    classes = model["classes"]
    totals = [0.0] * len(classes)
    for tree in model["trees"]:
        node = 0
        left, right, feature, threshold, value = (
            tree["left"],
            tree["right"],
            tree["feature"],
            tree["threshold"],
            tree["value"],
        )
        while left[node] != -1:
            node = left[node] if features[feature[node]] <= threshold[node] else right[node]
        for i, share in enumerate(value[node]):
            totals[i] += share
    return {str(c): total / len(model["trees"]) for c, total in zip(classes, totals, strict=True)}


def _declaration(itemtype: str, json_ld: str) -> etree.XPath:
    """Whether a page declares a schema.org type: an ``itemtype`` holding ``itemtype``, or a JSON-LD script
    holding ``json_ld``."""
    return etree.XPath(
        f"boolean(/descendant::*[@itemtype][contains(@itemtype, '{itemtype}')]"
        f" | /descendant::script[@type='application/ld+json'][contains(., '{json_ld}')])"
    )


_DECLARED = _declaration("DiscussionForumPosting", "DiscussionForumPosting")
_DECLARED_QA = _declaration("schema.org/QAPage", "QAPage")


def declares_qa(root: HtmlElement) -> bool:
    """Whether the page declares a schema.org ``QAPage`` (microdata ``itemtype`` or JSON-LD)."""
    return bool(_DECLARED_QA(root))


def _read_as_thread(
    root: HtmlElement, ruled: str, found: Signals, forum_share: float, chars: dict[HtmlElement, int]
) -> bool:
    """Whether a page the forest calls a forum is read with the forum profile though the rules found no
    thread (see :func:`page_type_of`): ``chars`` are the tree's text sizes."""
    if ruled == SERVICE:
        return True
    if ruled != ARTICLE or declares_qa(root):
        return False
    if found.commented and forum_share < COMMENTED_FORUM_SUPPORT:
        return False
    body = root.find("body")
    return body is not None and bool(posts_of(body, chars))


def declares_thread(root: HtmlElement) -> bool:
    """Whether the page declares a schema.org forum post (microdata ``itemtype`` or JSON-LD)."""
    return bool(_DECLARED(root))


def page_type_of(
    root: HtmlElement, url: str, found: Signals, sizes: tuple[dict[Any, int], dict[Any, int]]
) -> tuple[str, str]:
    """The page's type and the extraction profile to read it with: the stored forest's type (the rules'
    where no forest is stored), and the profile of that type unless it needs a structure the page lacks.

    - A page that declares itself a forum thread in schema.org terms (a ``DiscussionForumPosting``, in
      microdata or JSON-LD) is a forum, whatever the forest says: forum engines declare so (61 of the 113
      forum pages of the web-extraction dev split, and none of its 1,384 other pages). Not a ``QAPage``:
      a Q&A site's question and answers are read as well by the forest's type (two such pages lost 0.1
      each read as a forum).
    - A thread's structure (sibling posts, each with its author or date, none holding most of their text:
      the rules' forum) makes the page a forum wherever the forest gives a forum :data:`FORUM_SUPPORT` or
      more: the forum profile keeps the posts an article's profile drops as comments.
    - The forum profile (keep every comment-named block) needs that thread structure, or a page the rules
      read as a service page: a thread of short posts looks to them like a page of short boxes, and the
      forum profile (posts kept, their quotes, author panes and signatures dropped) gained 0.17 page-F1
      points on the web-extraction dev split's forum pages so read, and lost none elsewhere. A page
      the rules read as an article takes it too where its body holds a thread's run of posts
      (:func:`wikihowqa.parse.thread.posts_of`: same-shaped siblings holding most of its text) that the
      rules did not count, their posts naming no author or date in markup they know: the article profile
      drops its replies as comments (+0.48 page-F1 points on three dev-half forum pages, -0.08 on one whose
      quotes its ground truth keeps; no other page so read). Not where the page declares a schema.org
      ``QAPage`` (the forest's type reads a question and its answers well, see above), nor where the rules
      see one long post with short replies (an article and its comments) unless the forest is sure of a
      thread (:data:`COMMENTED_FORUM_SUPPORT`). The collection profile (keep link lists, read linked cards)
      needs repeated priced cards or declared products where
      the rules would read an article. Without them the page is read with the rules' profile: on the dev
      half, forum-called pages without a thread lost 0.8 page-F1 points with the forum profile (an
      article's comments kept).
    - A page the forest calls a collection and the rules an article is read as a collection only where the
      forest gives a collection :data:`COLLECTION_SUPPORT` or more: a category page of product tiles with no
      priced markup the rules can count (prices drawn by scripts, tiles as plain links) is then read as its
      grid, which trafilatura's article reading drops down to the category's blurb. Below that share the
      page mixes shapes (a service or product page with a few teaser tiles), and the collection profile,
      which reads the whole container, adds the tiles around its text."""
    if declares_thread(root):
        return FORUM, FORUM
    model = load_model()
    ruled = classify(found)
    if model is None:
        return ruled, ruled
    shares = probabilities(page_features(root, url, found, sizes), model)
    if ruled == FORUM and shares.get(FORUM, 0.0) >= FORUM_SUPPORT:
        return FORUM, FORUM
    kind = max(shares, key=shares.__getitem__)
    if kind == FORUM:
        return FORUM, FORUM if _read_as_thread(root, ruled, found, shares[FORUM], sizes[0]) else ruled
    if kind == COLLECTION and ruled == ARTICLE and shares[kind] < COLLECTION_SUPPORT:
        return kind, ruled
    return kind, kind
