"""The page's main content container, read whole: every heading, paragraph, list item and table row in it.

An article extractor (trafilatura) scores paragraphs and drops short lines, link-heavy blocks and lists of
linked items, which is right for a news story and wrong for the pages whose content *is* short lines: a
listing's linked items, a product's specification list, a service page's feature grid. For those the page
usually says where its content is — ``<main>``, ``role="main"``, an ``<article>`` or ``itemprop`` body —
and what lies inside it, less the interface (buttons, form controls, hidden and navigation parts), is the
content. Where the page names no container, the smallest element holding most of the page's text is used.
"""

from __future__ import annotations

import itertools
import re

from lxml import etree
from lxml.html import HtmlElement

from wikihowqa.parse.blocks import Block
from wikihowqa.parse.sizes import text_sizes

#: A named container holding less than this share of the page's text is not the page's content.
MIN_SHARE = 0.3
_SKIP = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "canvas",
        "iframe",
        "button",
        "select",
        "option",
        "input",
        "textarea",
        "nav",
        "dialog",
        "object",
        "embed",
        "video",
        "audio",
        "picture",
        "img",
        "map",
        "head",
        "title",
        "meta",
        "link",
        "label",
        "legend",
    }
)
#: ARIA roles of interface parts (controls, menus and their checkable entries, such as a filter menu's
#: hundreds of language choices): what a reader operates, not reads. Not ``tab`` or
#: ``dialog``: sites wrap whole panels of content in those.
_INTERFACE_ROLES = frozenset(
    {
        "button",
        "checkbox",
        "combobox",
        "listbox",
        "menu",
        "menubar",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "option",
        "progressbar",
        "radio",
        "search",
        "slider",
        "spinbutton",
        "switch",
        "timer",
        "toolbar",
        "tooltip",
    }
)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_ITEMS = frozenset({"li", "dt", "dd"})
_BLOCK = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "footer",
        "aside",
        "blockquote",
        "pre",
        "ul",
        "ol",
        "dl",
        "table",
        "tbody",
        "thead",
        "tfoot",
        "tr",
        "figure",
        "figcaption",
        "address",
        "details",
        "summary",
        "fieldset",
        "legend",
        "center",
        "form",
        "hr",
        "br",
        "caption",
    }
    | _HEADINGS
    | _ITEMS
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_WORD = re.compile(r"\w")
_WORDS = re.compile(r"\w+")
#: A block of link text this short is an action label, not a linked title.
ACTION_WORDS = 4


def _hidden(el: HtmlElement) -> bool:
    """Never shown (an inline ``display:none``), or a part of the interface (see :data:`_INTERFACE_ROLES`).

    Not the ``hidden`` attribute or ``aria-hidden``: pages mark their collapsed accordions and inactive
    tabs so (FAQ answers, specification tabs), which are content a reader opens (measured: word F1 +0.004
    on the web-extraction pages, and the service pages' +0.03)."""
    role = el.get("role")
    if role is not None and role.lower() in _INTERFACE_ROLES:
        return True
    style = el.get("style")
    return style is not None and _HIDDEN_STYLE.search(style) is not None


KEY_CHARS = 30  # characters of a paragraph's start that find it in the tree


def line_key(text: str) -> str:
    return " ".join(text.split())[:KEY_CHARS].casefold()  # split's whitespace is the same as \s


def shape_of(el: HtmlElement) -> tuple[str, str]:
    """Tag and first class: posts of a thread share them while their other classes (odd/even, the post's
    id) differ."""
    classes = (el.get("class") or "").split()
    return el.tag, classes[0] if classes else ""


#: Elements whose own text (before their first child) may be ``$n`` characters or more, found in C: the
#: paragraphs' starts are looked for only among them. lxml's ``text`` joins the text nodes that open the
#: element: where there are two or more, the element is read in Python.
_LONG_TEXT = etree.XPath(
    "descendant-or-self::*[string-length(node()[1][self::text()]) >= $n"
    " or (node()[1][self::text()] and node()[2][self::text()])]"
)


def _anchor(scope: HtmlElement, lines: list[str]) -> HtmlElement | None:
    """The smallest element holding the extractor's paragraphs (found by how they start), widened to the
    run of same-shaped siblings it is one of (the extractor kept one post of a thread, one card of a list)."""
    wanted = {line_key(line) for line in lines if len(line.strip()) >= KEY_CHARS}
    if not wanted:
        return None
    found: list[HtmlElement] = []
    for el in _LONG_TEXT(scope, n=KEY_CHARS):
        if el.text and len(el.text.strip()) >= KEY_CHARS and line_key(el.text) in wanted:
            found.append(el)
            wanted.discard(line_key(el.text))
            if not wanted:
                break
    if not found:
        return None
    node = common_ancestor(found)
    while node is not None and node is not scope:
        parent = node.getparent()
        if parent is None:
            break
        shape = shape_of(node)
        twins = sum(1 for sib in parent if isinstance(sib.tag, str) and shape_of(sib) == shape)
        if twins < 2:
            break
        node = parent
    return node


def common_ancestor(elements: list[HtmlElement]) -> HtmlElement | None:
    """The deepest element holding all of ``elements`` (one of them, when it holds the others)."""
    chains = [[el, *el.iterancestors()][::-1] for el in elements]
    common = None
    for level in zip(*chains, strict=False):
        if any(node is not level[0] for node in level):
            break
        common = level[0]
    return common


def is_named(el: HtmlElement) -> bool:
    """Whether the page itself names ``el`` its main content (``<main>``, ``role=main``, ``articleBody``)."""
    return el.tag == "main" or el.get("role") == "main" or el.get("itemprop") in {"articleBody", "mainEntity"}


def _found(lines: list[str] | tuple[str, ...]) -> int:
    return sum(len(line) for line in lines)


#: What a page names its main content, in one walk of the tree (a union of three paths walked it thrice;
#: ``/descendant::*[…]`` is ``//*[…]`` without libxml2's walk of every node's children, text nodes' too).
_NAMED = etree.XPath(
    "/descendant::*[self::main or @role='main' or @itemprop='articleBody' or @itemprop='mainEntity']"
)


def main_container(
    root: HtmlElement,
    lines: list[str] | tuple[str, ...] = (),
    sizes: tuple[dict, dict] | None = None,
    *,
    shop: bool = False,
) -> HtmlElement | None:
    """The element holding the page's main content; ``None`` for a page without text.

    The element the page names as its main content (``<main>``, ``role=main``, the one ``<article>``,
    ``articleBody``) when it holds a fair share of the page's text; else the smallest element holding most
    of the page's text when the extractor's paragraphs (``lines``) lie in it; else the element they lie in
    (widened to its run of same-shaped siblings). Where no element below ``<body>`` holds most of the
    text (a service page of side-by-side boxes), the body is no region at all: reading it whole took a
    page's price cards, add-ons and app promotion along with its description.

    The named element holding the page's one ``<h1>`` is its content whatever its share on a ``shop`` page
    (a collection, listing or product: a grid of four products or a short description is little text
    beside a shop's mega-menu, country selector, promotion carousel and footer), and on any page where the
    extractor's paragraphs (``lines``) come to no more text than it holds. Where they come to more, the
    headline's ``<main>`` is the page's header and the story lies outside it."""
    body = root.find("body")
    scope = body if body is not None else root
    chars, _ = sizes or text_sizes(scope)
    total = chars.get(scope, 0)
    if total == 0:
        return None
    named = _NAMED(root)
    top = root.getroottree().getroot()  # the paths above are the whole document's, as is this
    articles = [a for a in top.iter("article") if next(a.iterancestors("article"), None) is None]
    if len(articles) == 1:
        named.append(articles[0])
    best = max(named, key=lambda el: chars.get(el, 0), default=None)
    held = chars.get(best, 0) if best is not None else 0
    if best is not None and (
        held >= MIN_SHARE * total or (_HEADED(best) and (shop or _found(lines) <= held))
    ):
        return best
    node = scope
    while True:  # descend while one child still holds most of the text
        children = [c for c in node if isinstance(c.tag, str) and c.tag not in _SKIP]
        sizes = [(c, chars.get(c, 0)) for c in children]
        top = max(sizes, key=lambda pair: pair[1], default=None)
        if top is None or top[1] < 0.6 * total:
            break
        node = top[0]
    anchor = _anchor(scope, list(lines))
    if anchor is None or node is anchor:
        return node
    if node is scope:  # no element holds most of the text: the extractor's region is the best guess
        return anchor
    if node in anchor.iterancestors():
        return node
    return anchor  # most of the text lies elsewhere than the paragraphs found (a modal, a mega-menu)


_PICTURED = etree.XPath("boolean(.//img | .//picture | .//figure)")
#: Whether an element holds the page's headline, the page having one.
_HEADED = etree.XPath("boolean(.//h1) and count(//h1) = 1")
_PICTURED_ITEM = etree.XPath(
    "boolean(descendant::*[self::li or self::dt or self::dd][.//img or .//picture or .//figure])"
)


def has_pictured_items(container: HtmlElement) -> bool:
    """Whether ``container_blocks(container, pictures=False)`` would leave anything out (asked in C: most
    containers have no pictured list item, and their reading without pictures is the one already made)."""
    return bool(_PICTURED_ITEM(container))


def container_blocks(
    container: HtmlElement, *, keep_links: bool = False, pictures: bool = True
) -> list[Block]:
    """The container's text as blocks: a heading per ``<h1>``–``<h6>``, an item per list entry, a row per
    table row (cells joined by ``" | "``), a paragraph per other block of text.

    A short block that is all link text ("Post Reply", "Return to top", "1 2 Next", "Read more") is an
    action or a way elsewhere, and is left out unless ``keep_links`` (a listing, whose items are links); a
    longer one is a linked title, kept. Without ``pictures``, a list item holding an image (a gallery's
    caption) is left out."""
    blocks: list[Block] = []
    line: list[str] = []
    state = {"links": 0, "plain": False}
    kinds: list[str] = []  # the kind of each open block element, innermost last
    groups: list[int] = []  # the group of each open list or table
    next_group = 0

    def add(text: str | None) -> None:
        if text:
            line.append(text)
            if not state["links"] and not state["plain"] and _WORD.search(text):
                state["plain"] = True

    def flush() -> None:
        if not line:  # most block boundaries close nothing (a <div> that only wraps others)
            state["plain"] = False
            targets.clear()
            return
        text = " ".join("".join(line).split())  # as _SPACES.sub(" ", …).strip(): the same whitespace
        line.clear()
        plain, state["plain"] = state["plain"], False
        if not text or not (plain or keep_links or len(text.split()) > ACTION_WORDS):
            targets.clear()
            return
        kind = next((k for k in reversed(kinds) if k != "paragraph"), "paragraph")
        group = groups[-1] if kind in {"item", "row"} and groups else -1
        blocks.append(Block(kind, text, group))
        if not plain and len(text.split()) <= ACTION_WORDS:
            labels.append((blocks[-1], " ".join(targets)))
        targets.clear()

    labels: list[tuple[Block, str]] = []  # short all-link blocks kept, and where they lead
    targets: list[str] = []  # where the links of the open block lead
    controls = itertools.count()
    concealed: list[tuple[int, int]] = []  # block ranges of hidden blocks (see _drop_copies)
    opened: list[tuple[HtmlElement, int]] = []
    skipped: set[HtmlElement] = set()
    walker = etree.iterwalk(container, events=("start", "end"))
    for event, el in walker:
        tag = el.tag if isinstance(el.tag, str) else ""
        if event == "start":
            if not tag or tag in _SKIP or _hidden(el) or (not pictures and tag in _ITEMS and _PICTURED(el)):
                skipped.add(el)
                walker.skip_subtree()
                continue
            if tag in _BLOCK:
                flush()
                if not opened and _concealed(el):
                    opened.append((el, len(blocks)))
                if tag in {"ul", "ol", "dl", "table"}:
                    groups.append(next_group)
                    next_group += 1
                kinds.append(
                    "heading"
                    if tag in _HEADINGS
                    else "item"
                    if tag in _ITEMS
                    else "row"
                    if tag == "tr"
                    else "paragraph"
                )
            if tag == "a":
                state["links"] += 1
                targets.append(_target(el, next(controls)))
            add(el.text)
            continue
        # end
        if el in skipped:
            pass
        elif tag in _BLOCK:
            flush()
            kinds.pop()
            if tag in {"ul", "ol", "dl", "table"} and groups:
                groups.pop()
            if opened and opened[-1][0] is el:
                concealed.append((opened.pop()[1], len(blocks)))
        elif tag in {"td", "th"}:
            line.append(" | ")
        elif tag == "a":
            state["links"] -= 1
        if el is not container:
            add(el.tail)
    flush()
    return [_row(b) for b in _without_actions(_drop_copies(blocks, concealed), labels)]


#: Times a short link label must recur in the container to be an action of every card, not a title.
ACTION_REPEATS = 3


def _target(link: HtmlElement, n: int) -> str:
    """Where a link leads; a link to nowhere (``#``, a script) is a control, made unlike every other one
    (``n``: a number of its own)."""
    href = (link.get("href") or "").strip()
    if not href or href.startswith("#") or href.lower().startswith("javascript:"):
        return f"#control-{n}"
    return href


def _without_actions(blocks: list[Block], labels: list[tuple[Block, str]]) -> list[Block]:
    """The blocks without the short link labels that recur, each time leading somewhere else: on a listing,
    where short links are kept (an item's title is a link), the same label in every card leading to that
    card's item ("Add to cart", "Choose options", "View company profile") is the card's action. Titles
    differ from card to card, and a recurring label that always leads to one place is a tag of the item
    ("Full-Time", a region, a category: the listing filtered by it), part of its description."""
    if not labels:
        return blocks
    places: dict[str, set[str]] = {}
    for label, target in labels:
        places.setdefault(label.text.casefold(), set()).add(target)
    drop = {id(label) for label, _ in labels if len(places[label.text.casefold()]) >= ACTION_REPEATS}
    return [b for b in blocks if id(b) not in drop] if drop else blocks


def _concealed(el: HtmlElement) -> bool:
    return el.get("hidden") is not None or (el.get("aria-hidden") or "").lower() == "true"


#: Share of a hidden block's word 4-grams found in the rest of the container that makes it a copy.
COPY_SHARE = 0.8


def _drop_copies(blocks: list[Block], concealed: list[tuple[int, int]]) -> list[Block]:
    """The blocks without hidden ones that repeat the container's shown text: a raw-Markdown or mobile
    copy of the article kept for machines (``<pre hidden aria-hidden>``) is read twice otherwise. A hidden
    block of text found nowhere else (a collapsed FAQ answer, an inactive tab) is content, and stays."""
    if not concealed:
        return blocks
    hidden = {i for start, end in concealed for i in range(start, end)}
    shown = _grams(" ".join(b.text for i, b in enumerate(blocks) if i not in hidden))
    dropped: set[int] = set()
    for start, end in concealed:
        own = _grams(" ".join(blocks[i].text for i in range(start, end)))
        if own and sum(1 for g in own if g in shown) >= COPY_SHARE * len(own):
            dropped.update(range(start, end))
    return [b for i, b in enumerate(blocks) if i not in dropped]


def _grams(text: str) -> set[tuple[str, ...]]:
    words = _WORDS.findall(text.casefold())
    return {tuple(words[i : i + 4]) for i in range(len(words) - 3)}


def _row(block: Block) -> Block:
    if block.kind != "row":
        return block
    cells = [c.strip() for c in block.text.strip(" |").split(" | ")]
    return Block("row", " | ".join(c for c in cells if c), block.group)


def markdown_of(blocks: list[Block]) -> str:
    """GitHub-flavoured Markdown of container blocks: headings, bulleted items, pipe tables, paragraphs."""
    out: list[str] = []
    previous: Block | None = None
    for block in blocks:
        if block.kind == "heading":
            out += ["", f"## {block.text}", ""]
        elif block.kind == "item":
            if previous is None or previous.kind != "item" or previous.group != block.group:
                out.append("")
            out.append(f"- {block.text}")
        elif block.kind == "row":
            cells = block.text.split(" | ")
            new_table = previous is None or previous.kind != "row" or previous.group != block.group
            if new_table:
                out += ["", "| " + " | ".join(cells) + " |", "|" + "---|" * len(cells)]
            else:
                out.append("| " + " | ".join(cells) + " |")
        else:
            out += ["", block.text]
        previous = block
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()
