"""A forum thread's posts without what a reader has already read or never reads as the post.

Quotes of earlier posts. A reply that quotes an earlier post repeats that post's text inside a
``<blockquote>`` (every forum engine renders a quote so: phpBB, XenForo, Invision, vBulletin, MyBB,
Discourse), often with a "name said:" header inside it. Read whole, a thread then holds each quoted post
twice or more, and benchmark ground truths keep each post once. A quote whose text is found elsewhere on
the page (the post it repeats) is such a copy, and goes; a quote of something not on the page (a post on
an earlier page, an outside source) is the only place its text is read, and stays.

The furniture every post repeats. Forum engines lay each post out as its author's pane beside the
message (avatar, name, member title, join date, post and reaction counts, location) and below it the
author's signature and an "edited by" note; the engines name these parts in their markup, in words that
say what they are (``message-userExtras``, ``userinfo``, ``cAuthorPane``, ``postprofile``, ``signature``,
``lastEdit``). The author pane is cut down to the author's name (a thread's ground truth reads a post as
its author and message); signatures and edit notes go. So do a post's reactions bar ("Reactions: A, B and
19 others") and what the engine itself keeps out of quotes (``data-excludequote``); a link's preview card
(``onebox``, ``unfurl``: the linked page's title and blurb, fetched by the engine) is cut to its title.
On a Q&A page the remarks under the question and each answer (schema.org ``Comment``s of a ``Question``
or an ``Answer``) are a side conversation and go.

The thread, not one post of it. A thread is a run of same-shaped sibling elements holding most of its
container's text (:func:`posts_of`). An article extractor can settle on one post (the first, often the
longest); :func:`kept_one_post` tells when it did, so that the container is read instead, up to the end of
the last post (:func:`read_thread`), and each long paragraph once (:func:`said_once`: a reply's preview of
the post it answers repeats it).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from lxml import etree
from lxml.html import HtmlElement

from wikihowqa.parse.blocks import Block
from wikihowqa.parse.container import KEY_CHARS, common_ancestor, container_blocks, line_key, shape_of
from wikihowqa.parse.sizes import discount

#: Share of a quote's word 4-grams found elsewhere on the page that makes it a copy of a post.
COPY_SHARE = 0.8
#: Quotes with fewer words than this are left alone: too short to tell a copy from a common phrase.
MIN_WORDS = 6

_WORDS = re.compile(r"\w+")
_QUOTE_BOXES = etree.XPath(
    "//body//blockquote | /descendant::body/descendant::*[self::div or self::aside or self::section]"
    "[contains(@class, 'uote')]"
)
#: A class naming a quote box: ``quote``, ``bbcode_quote``, ``quoteContainer``, ``quotebox`` (the engines
#: that render a quote in a ``<div>``: vBulletin's "Originally Posted by", phpBB's, Discourse's asides).
_QUOTE_NAME = re.compile(r"(?:^|-)quote(?:-?(?:container|box|content|contents|text|wrap|wrapper))?$")
_SKIPPED = frozenset({"script", "style", "noscript", "template"})


def _grams(words: list[str]) -> Counter[tuple[str, ...]]:
    return Counter(tuple(words[i : i + 4]) for i in range(len(words) - 3))


def _words(el: HtmlElement) -> list[str]:
    return _WORDS.findall(" ".join(el.itertext()).casefold())


def _page_words(body: HtmlElement) -> list[str]:
    """The words of ``body`` in reading order, scripts and styles left out."""
    pieces: list[str] = []
    walker = etree.iterwalk(body, events=("start", "end"))
    for event, el in walker:
        if event == "start":
            if el.tag in _SKIPPED:
                walker.skip_subtree()  # its end still comes, and adds its tail
                continue
            if isinstance(el.tag, str) and el.text:
                pieces.append(el.text)
        elif el is not body and el.tail:
            pieces.append(el.tail)
    return _WORDS.findall(" ".join(pieces).casefold())


#: Names of a post's author pane: a user/author/member/poster word joined to a part word.
_PANE = re.compile(
    r"(?:^|-)(?:(?:user|author|member|poster)-?(?:info|information|details?|extras?|stats?|statistics|pane|column"
    r"|card|block|profile)|post-?(?:profile|author|user)|userinfo)(?:-|$)"
)
_SIGNATURE = re.compile(r"(?:^|-)signatures?(?:-|$)")
#: A post's reactions bar ("Reactions: A, B and 19 others", "X likes this"): who reacted, not what was said.
_REACTIONS = re.compile(r"(?:^|-)(?:reactions?|likes?)-?(?:bar|summary|list)(?:-|$)")
#: A link's preview card in a post (Discourse's onebox, XenForo's unfurl): the linked page's title and
#: blurb, fetched by the engine, not written by the poster.
_PREVIEW = re.compile(r"(?:^|-)(?:onebox|unfurl|link-?preview|link-?card)(?:-|$)")
_EDITED = re.compile(r"(?:^|-)(?:last-?edit(?:ed)?|edit-?(?:note|notice|info|reason)|edited(?:-by)?)(?:-|$)")
_DROPPED = re.compile("|".join(p.pattern for p in (_SIGNATURE, _EDITED, _REACTIONS)))
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[-_.:]+")
#: An author pane holds a few short fields; an element so named with more text than this is something else.
PANE_CHARS = 600
#: ``data-excludequote`` marks what an engine leaves out when a post is quoted (the "Edited … by" line):
#: by the engine's own account, not the post's text.
_NAMED = etree.XPath("/descendant::body/descendant::*[@class or @id or @data-role or @data-excludequote]")


def _tokens(el: HtmlElement) -> list[str]:
    """The element's class, id and ``data-role`` names (the role a script knows a part by:
    ``memberSignature``), each as its words joined by ``-`` and lowercased."""
    names = f"{el.get('class') or ''} {el.get('id') or ''} {el.get('data-role') or ''}".split()
    return [_SEPARATORS.sub("-", _CAMEL.sub("-", name)).strip("-").lower() for name in names]


def _name_in(pane: HtmlElement) -> str:
    """The author's name in a pane: the text of its first link or heading that holds a few words (not one
    letter: a letter avatar, the initial an engine draws for a member without a picture, links first)."""
    for el in pane.iter("a", "h2", "h3", "h4", "h5", "strong"):
        text = " ".join(" ".join(el.itertext()).split())
        if len(text) > 1 and len(text.split()) <= 4:
            return text
    return ""


_PERSON_JSON = re.compile(r'^\s*\{[^{}]*"@type"\s*:\s*"Person"')


def _is_pane(el: HtmlElement, tokens: list[str]) -> bool:
    """Whether ``el`` is named an author pane or declares its author (see :func:`_declares_person`)."""
    return any(_PANE.search(t) for t in tokens) or _declares_person(el)


def _declares_person(el: HtmlElement) -> bool:
    """Whether ``el`` is a schema.org ``Person``: an element so typed in microdata, or one whose own JSON-LD
    script declares a ``Person`` (an engine that describes each post's author beside the author's card).
    Small, such an element is the author's card, whatever its class."""
    if "schema.org/Person" in (el.get("itemtype") or ""):
        return True
    return any(
        (script.get("type") or "").lower() == "application/ld+json" and _PERSON_JSON.match(script.text or "")
        for script in el.iterchildren("script")
    )


def _title_in(preview: HtmlElement) -> str:
    """A link preview's title: its first heading's text, else its first link's that holds words."""
    for el in (*preview.iter("h1", "h2", "h3", "h4", "h5", "h6"), *preview.iter("a")):
        text = " ".join(" ".join(el.itertext()).split())
        if _WORDS.search(text):
            return text
    return ""


def _cut_to(el: HtmlElement, text: str, sizes: tuple[dict, dict]) -> None:
    """Replace everything ``el`` holds with ``text``, keeping ``sizes`` true."""
    chars = sizes[0]
    discount(sizes, el)
    for child in list(el):
        el.remove(child)  # keeps the child's tail with it: the element's own text goes too
    el.text = text
    for ancestor in (el, *el.iterancestors()):
        if ancestor in chars:
            chars[ancestor] += len(text)


def drop_post_furniture(root: HtmlElement, sizes: tuple[dict, dict]) -> int:
    """Cut each post's author pane down to the author's name and each link preview down to its title, and
    remove signatures, edit notes, reactions bars and what the engine keeps out of quotes (see the module's
    docstring); return how many elements changed. ``sizes`` are kept true."""
    chars = sizes[0]
    changed = 0
    for el in _NAMED(root):
        if el.getparent() is None or not isinstance(el.tag, str) or el.tag in {"body", "html", "main"}:
            continue
        tokens = _tokens(el)
        if any(_DROPPED.search(t) for t in tokens) or el.get("data-excludequote") is not None:
            discount(sizes, el)
            el.drop_tree()
        elif any(_PREVIEW.search(t) for t in tokens):
            _cut_to(el, _title_in(el), sizes)
        elif _is_pane(el, tokens) and chars.get(el, 0) <= PANE_CHARS:
            _cut_to(el, _name_in(el), sizes)
        else:
            continue
        changed += 1
    return changed


#: A code block in a post holding more text than this (about 500 words: a screenful many times over) is a
#: pasted log, not code the poster wrote out (the forum pages' code listings kept by their ground truths
#: hold at most 110 words; the build and debug logs left out, 1,200 to 3,500).
LOG_CHARS = 4000


def drop_pasted_logs(root: HtmlElement, sizes: tuple[dict, dict]) -> int:
    """Remove the code blocks (``<pre>``, ``<code>``) of a thread that hold :data:`LOG_CHARS` or more: a
    program's output pasted into a post (a build log, a traceback of hundreds of lines) is what the poster
    asks about, not what they say, and a reader skims past it; return how many went. ``sizes`` are kept
    true."""
    chars = sizes[0]
    gone = 0
    for el in list(root.iter("pre", "code")):
        if el.getparent() is None or chars.get(el, 0) < LOG_CHARS:
            continue
        if any(a.tag in {"pre", "code"} for a in el.iterancestors()):
            continue
        discount(sizes, el)
        el.drop_tree()
        gone += 1
    return gone


def _quotes(root: HtmlElement) -> list[HtmlElement]:
    """``<blockquote>``s and boxes named a quote, in document order."""
    return [
        el
        for el in _QUOTE_BOXES(root)
        if el.tag == "blockquote" or any(_QUOTE_NAME.search(t) for t in _tokens(el))
    ]


def drop_quoted_copies(root: HtmlElement, sizes: tuple[dict, dict] | None = None) -> int:
    """Remove the quotes that repeat text found elsewhere on the page (see the module's docstring); return
    how many went. ``sizes`` (:func:`wikihowqa.parse.sizes.text_sizes` of the tree) are kept true.

    Quotes are looked at last first, since a quote repeats an earlier post: where an engine renders each
    post's own body as a ``<blockquote>`` too (vBulletin), the body of a post quoted later stays and its
    copy goes, and a quote nested in a post's body is looked at before that body."""
    quotes = _quotes(root)
    body = root.find("body")
    if not quotes or body is None:
        return 0
    page = _grams(_page_words(body))
    gone: set[HtmlElement] = set()
    for quote in reversed(quotes):
        if any(a in gone for a in quote.iterancestors()):
            continue
        words = _words(quote)
        if len(words) < MIN_WORDS:
            continue
        own = _grams(words)
        elsewhere = sum(n for g, n in own.items() if page[g] > n)
        if own and elsewhere >= COPY_SHARE * own.total():
            page.subtract(own)
            if sizes is not None:
                discount(sizes, quote)
            quote.drop_tree()
            gone.add(quote)
    return len(gone)


#: Posts of the same shape a container must hold for trafilatura's one post to be a fragment of a thread.
MIN_POSTS = 3
#: Characters of text a sibling must hold to count as a post (not an empty spacer of the same shape).
POST_CHARS = 50


#: Tags a post of a thread is laid out in (not a paragraph or a list item of running text).
_POST_TAGS = ("div", "article", "section", "li", "table", "tbody", "tr")


def _is_post(node: HtmlElement, chars: dict) -> bool:
    """Whether ``node`` is one of a run of at least :data:`MIN_POSTS` same-shaped siblings with text."""
    parent = node.getparent()
    if parent is None:
        return False
    shape = shape_of(node)
    twins = sum(
        1
        for sib in parent
        if isinstance(sib.tag, str) and shape_of(sib) == shape and chars.get(sib, 0) >= POST_CHARS
    )
    return twins >= MIN_POSTS


def _texts(main: HtmlElement) -> Iterator[tuple[HtmlElement, str]]:
    """Each run of text in ``main`` with the element it lies in: an element's text, and the text after a
    child (a line after a ``<br>``) with the child's parent."""
    for el in main.iter():
        if not isinstance(el.tag, str):
            continue
        if el.text:
            yield el, el.text
        if el.tail and el is not main:
            parent = el.getparent()
            if parent is not None:
                yield parent, el.tail


def _found(main: HtmlElement, lines: list[str] | tuple[str, ...]) -> list[HtmlElement]:
    """The elements of ``main`` whose runs of text start as the extractor's ``lines`` do."""
    wanted = {line_key(line) for line in lines if len(line.strip()) >= KEY_CHARS}
    if not wanted:
        return []
    return [el for el, text in _texts(main) if len(text.strip()) >= KEY_CHARS and line_key(text) in wanted]


def _units(found: list[HtmlElement], posts: list[HtmlElement]) -> set[HtmlElement | None]:
    """The posts the ``found`` elements lie in (``None`` for any outside the run)."""
    run = set(posts)
    return {next((a for a in (el, *el.iterancestors()) if a in run), None) for el in found}


def kept_one_post(
    main: HtmlElement, lines: list[str] | tuple[str, ...], chars: dict, posts: list[HtmlElement]
) -> bool:
    """Whether the extractor's ``lines`` all lie in one post of a thread that ``main`` holds several of.

    A thread is a run of same-shaped siblings with text (a ``<div class="post …">``, an ``<article>`` per
    message; ``posts``, from :func:`posts_of`, when found). An article extractor that scores paragraphs
    can settle on the one post with the most running text and drop the rest: then all it kept lies in one
    of the run's posts, or all outside them (a first post rendered apart from the replies). A Q&A page's
    question and answers, read by it, lie in several. Without a run found, the element holding all it
    kept is looked at: one of a run of same-shaped siblings, or inside one, is a post.
    ``chars``: the tree's text sizes (:func:`wikihowqa.parse.sizes.text_sizes`)."""
    found = _found(main, lines)
    if not found:
        return False
    if posts:
        return len(_units(found, posts)) == 1
    common = common_ancestor(found)
    if common is None or (common is not main and main not in common.iterancestors()):
        return False
    node = common
    while node is not main:
        if _is_post(node, chars):
            return True
        node = node.getparent()
    return False


#: Share of a thread's post text lying in posts the extractor read nothing of that makes its text a part.
MISSED_SHARE = 0.15


def missed_posts(lines: list[str] | tuple[str, ...], chars: dict, posts: list[HtmlElement]) -> bool:
    """Whether the extractor's ``lines`` leave out whole posts of the thread: :data:`MISSED_SHARE` of its
    posts' text or more lies in posts of which it read under half the words. An extractor that scores
    paragraphs drops replies it takes for comments, and what it kept is then a part of the thread, however
    close its size to the thread's."""
    if not posts:
        return False
    said = Counter(_WORDS.findall(" ".join(lines).casefold()))
    total = missed = 0
    for post in posts:
        words = Counter(_words(post))
        size = words.total()
        if not size:
            continue
        read = words & said
        said -= read
        total += chars.get(post, 0)
        if read.total() < 0.5 * size:
            missed += chars.get(post, 0)
    return total > 0 and missed >= MISSED_SHARE * total


def thread_within(
    main: HtmlElement, lines: list[str] | tuple[str, ...], chars: dict
) -> tuple[HtmlElement, list[HtmlElement]]:
    """``main`` and its posts (:func:`posts_of`), or, where ``main`` holds no run of posts that is most of
    its text, the largest element between it and the extractor's ``lines`` that does: a container that
    also holds a sidebar as large as the thread (who is online, similar threads, ads) hides the thread's
    run of posts inside it."""
    posts = posts_of(main, chars)
    found = _found(main, lines)
    if posts or not found:
        return main, posts
    chain = [a for a in found[0].iterancestors() if a is not main and main in a.iterancestors()][::-1]
    for inner in chain:
        if not all(inner in el.iterancestors() or el is inner for el in found):
            break
        inner_posts = posts_of(inner, chars)
        if inner_posts:
            return inner, inner_posts
    return main, posts


def _holds_posts(el: HtmlElement, chars: dict) -> bool:
    """Whether ``el`` holds a run of posts (see :func:`_is_post`) among its children or grandchildren."""
    for child in el:
        if isinstance(child.tag, str) and (_is_post(child, chars) or any(_is_post(c, chars) for c in child)):
            return True
    return False


def posts_region(main: HtmlElement, region: HtmlElement | None, chars: dict) -> HtmlElement:
    """``region`` (the element holding most of the page's text) instead of ``main`` (found from the
    extractor's paragraphs) where the two lie apart and ``region`` holds a thread's run of posts: the
    extractor read a copy of one post kept elsewhere (a hidden first post), and the thread is the region.
    Elsewhere ``main``: a region that holds no posts is a modal or a mega-menu."""
    if region is None or region is main or main in region.iterancestors() or region in main.iterancestors():
        return main
    return region if _holds_posts(region, chars) else main


#: A paragraph this long read twice in a thread is a copy (a preview of the post replied to, a teaser).
COPY_WORDS = 8


def said_once(blocks: list[Block]) -> list[Block]:
    """A thread's blocks with each paragraph of :data:`COPY_WORDS` words or more kept where it is first
    read: a reply's "in reply to" preview of its parent post, or an engine's copy of a post for another
    view, repeats a paragraph of the thread word for word, and no one writes the same long paragraph
    twice."""
    seen: set[str] = set()
    kept: list[Block] = []
    for block in blocks:
        words = _WORDS.findall(block.text.casefold())
        key = " ".join(words)
        if len(words) >= COPY_WORDS:
            if key in seen:
                continue
            seen.add(key)
        kept.append(block)
    return kept


#: Share of the container's text its run of posts must hold to be taken for the thread's posts: not quite
#: half, since an opening post rendered apart from the run of replies (laid out unlike them, above a
#: "comments" heading) can hold as much text as all of them (at 0.4 rather than 0.5: +0.32 page-F1 on one
#: such forum page, +0.07 and -0.09 on two whose runs hold 40-50%, nothing elsewhere).
POSTS_SHARE = 0.4


def posts_of(main: HtmlElement, chars: dict) -> list[HtmlElement]:
    """The thread's posts in ``main``: of the runs of same-shaped sibling elements (see :func:`_is_post`)
    holding :data:`POSTS_SHARE` of ``main``'s text, the longest (then the one with the most text); else
    none. Longest, not largest: a page's layout blocks (a summary box, the block of messages, a block of
    similar threads) are a short run of one shape too, and can hold more text than the posts inside one
    of them."""
    least = POSTS_SHARE * chars.get(main, 0)
    best: list[HtmlElement] = []
    best_key = (0, 0)
    for parent in main.iter():
        runs: dict[tuple[str, str], list[HtmlElement]] = {}
        for child in parent:
            if isinstance(child.tag, str) and child.tag in _POST_TAGS and chars.get(child, 0) >= POST_CHARS:
                runs.setdefault(shape_of(child), []).append(child)
        for run in runs.values():
            total = sum(chars.get(el, 0) for el in run)
            key = (len(run), total)
            if len(run) >= MIN_POSTS and total >= least and key > best_key:
                best, best_key = run, key
    return best


def read_thread(main: HtmlElement, posts: list[HtmlElement]) -> list[Block]:
    """A thread's container read up to the end of its last post, when it has a run of ``posts`` (see
    :func:`posts_of`): what follows the last post in it (the reply form, similar threads, who is viewing)
    is not the thread. What comes before the run stays: a question laid out unlike its answers, a first
    post rendered apart from the replies."""
    if posts:
        node = posts[-1]
        while node is not main:
            parent = node.getparent()
            for later in list(node.itersiblings()):
                parent.remove(later)
            node = parent
    return container_blocks(main)


#: A schema.org ``Comment`` attached to a question or an answer: the "add a comment" remarks under a post
#: of a Q&A page. A thread's replies are its posts, but a Q&A page's answers are, and the short remarks
#: under each (a request for clarification, a nitpick) are a side conversation that its ground truth and a
#: reader leave out. Where a forum engine marks its replies as ``Comment``s of a ``DiscussionForumPosting``
#: (as schema.org describes a thread), those replies are the thread and stay.
_POST_COMMENTS = etree.XPath(
    "/descendant::body/descendant::*[@itemscope][contains(@itemtype, 'schema.org/Comment')]"
    "[ancestor::*[@itemscope][1]"
    "[contains(@itemtype, 'schema.org/Answer') or contains(@itemtype, 'schema.org/Question')]]"
)


def drop_answer_comments(root: HtmlElement, sizes: tuple[dict, dict]) -> int:
    """Remove the comments under a Q&A page's question and answers (see :data:`_POST_COMMENTS`); return
    how many went. ``sizes`` are kept true."""
    gone = 0
    for comment in _POST_COMMENTS(root):
        if comment.getparent() is None:
            continue
        discount(sizes, comment)
        comment.drop_tree()
        gone += 1
    return gone
