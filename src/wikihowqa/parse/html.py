"""Main content of a parsed page → text blocks and Markdown.

What is used is trafilatura's extraction core in a cascade the library does not offer, on a tree prepared
first, chosen by measurement on both development sets (``benchmarks/extraction.py``; tables in
``benchmarks/RESULTS.md``): the article-extraction benchmark's 102 news pages and the web-extraction
benchmark's 450 pages of seven page types.

1. boilerplate removal before it (:mod:`wikihowqa.parse.boilerplate`, told the page type by
   :mod:`wikihowqa.parse.pagetype`: a forum keeps its posts, a listing its linked items);
2. an article body split into sibling containers with the same class (one per ad slot, as some CMSs
   render it) joined back into one, because trafilatura keeps only the first;
3. layout tables (the page grid of pre-CSS sites) turned into plain containers, so the whole page is not
   rendered as one Markdown table and its menu column is not kept as table cells;
4. trafilatura in its balanced mode, without its slower readability/jusText comparison (its precision mode
   scored 0.03–0.3 lower on every non-news page type), and its recall mode where that finds almost nothing;
5. the page's main container read whole (:mod:`wikihowqa.parse.container`) where trafilatura kept a
   fragment of it (one post of a thread, one card of a list) or dropped the short lines that are the
   content of listings, forums and documentation: :func:`choose` decides from the two texts' sizes and
   overlap, by page type.

Extraction runs without trafilatura's formatting pass: with it, a paragraph holding bold text directly in a
``<div>`` is split at the bold words and loses a space (seen on forum posts). trafilatura's serializer then
renders the result, so Markdown keeps headings, lists and tables (GFM), but not bold or italics.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from copy import deepcopy
from dataclasses import dataclass

import lxml.html
from lxml import etree
from lxml.etree import _Element
from lxml.html import HtmlElement
from trafilatura.core import bare_extraction
from trafilatura.xml import xmltotxt

from wikihowqa.parse.blocks import Block
from wikihowqa.parse.chunks import body_chunks
from wikihowqa.parse.container import (
    container_blocks,
    has_pictured_items,
    is_named,
    main_container,
    markdown_of,
)
from wikihowqa.parse.facets import drop_collection_interface
from wikihowqa.parse.prepare import divs_to_paragraphs, show_tab_panels, unwrap_text_figures
from wikihowqa.parse.sizes import text_sizes
from wikihowqa.parse.thread import (
    drop_answer_comments,
    drop_pasted_logs,
    drop_post_furniture,
    drop_quoted_copies,
    kept_one_post,
    missed_posts,
    posts_region,
    read_thread,
    said_once,
    thread_within,
)

#: Page types whose text-only ``div``s are read as paragraphs (:func:`divs_to_paragraphs`): pages whose
#: content is cards, accordions and feature grids. Not forums, listings or shops, where such ``div``s
#: are mostly labels and metadata beside the posts and items (measured: -0.006 to -0.009 there), nor
#: articles, whose ``<p>`` text trafilatura already finds.
DIV_PARAGRAPH_TYPES = frozenset({"service", "documentation", "collection"})
#: Below this many characters a precision-mode extraction is taken as a miss (trafilatura's own minimum).
MIN_EXTRACTED_CHARS = 250

_SPACES = re.compile(r"[ \t\u00a0]+")
#: trafilatura's fast pass can settle on a box of the page (an author's bio) and miss its article: when
#: what it kept holds under ``FALLBACK_SHARE`` of the words of the page's running-text paragraphs (and
#: there are ``FALLBACK_PROSE`` of them or more), its slower pass, which compares its pick with
#: readability's and jusText's, runs too, and the longer of the two is kept. Not on forums: those two
#: look for one region of running text, and a thread's content is many posts (they took a consent
#: manager's text over them).
FALLBACK_PROSE = 300
FALLBACK_SHARE = 0.3


@dataclass(frozen=True, slots=True)
class Extraction:
    blocks: tuple[Block, ...]
    markdown: str
    mode: str  # "precision", "recall" or "none"

    @property
    def text(self) -> str:
        return "\n".join(block.text for block in self.blocks)


_BLOCKS_IN_CELLS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "blockquote", "pre", "form"}
)
#: A cell with more words than this is prose laid out in a grid, not a data value.
LAYOUT_CELL_WORDS = 80


def _own(table: _Element, *tags: str) -> list[_Element]:
    """Elements of ``table`` itself, not of the tables nested in it."""
    return [el for el in table.iter(*tags) if next(el.iterancestors("table"), None) is table]


def _is_layout(table: _Element) -> bool:
    if table.get("role") in {"presentation", "none"}:
        return True
    for cell in _own(table, "td", "th"):
        if next(cell.iter("table"), None) is not None:  # a table in a cell: the page grid
            return True
        if sum(1 for el in cell.iter(*_BLOCKS_IN_CELLS)) >= 2:
            return True
        if len(" ".join(cell.itertext()).split()) > LAYOUT_CELL_WORDS:
            return True
    return False


_BLOCKISH = _BLOCKS_IN_CELLS | {"div", "table", "center", "dl", "hr"}
_DOUBLE_BREAK = re.compile(r"(?:<br\s*/?>\s*){2,}", re.IGNORECASE)


def _breaks_to_paragraphs(cell: _Element) -> None:
    """Pre-CSS pages separate paragraphs with ``<br><br>``; make them ``<p>``s, as readability does.

    Inline runs between the cell's block children are split at double breaks; block children stay.
    """
    runs: list[str | _Element] = []
    inline = cell.text or ""
    for child in cell:
        if isinstance(child.tag, str) and child.tag in _BLOCKISH:
            runs += [inline, child]
            inline = child.tail or ""
        else:
            inline += lxml.html.tostring(child, encoding="unicode", with_tail=False) + (child.tail or "")
    runs.append(inline)
    if not any(isinstance(run, str) and _DOUBLE_BREAK.search(run) for run in runs):
        return
    cell.text = None
    for child in list(cell):
        cell.remove(child)
    for run in runs:
        if isinstance(run, str):
            for piece in _DOUBLE_BREAK.split(run):
                if piece.strip():
                    cell.append(lxml.html.fragment_fromstring(piece, create_parent="p"))
        else:
            run.tail = None
            cell.append(run)


def unwrap_layout_tables(root: HtmlElement) -> int:
    """Turn layout tables into ``div``s (outermost first); return how many were unwrapped."""
    unwrapped = 0
    for table in list(root.iter("table")):
        if not _is_layout(table):
            continue
        cells = _own(table, "td", "th")
        for el in _own(table, "tr", "td", "th", "tbody", "thead", "tfoot", "caption"):
            el.tag = "div"
            el.attrib.clear()
        table.tag = "div"
        table.attrib.pop("role", None)
        for cell in cells:
            _breaks_to_paragraphs(cell)
        unwrapped += 1
    return unwrapped


#: Share of the page's text the chunks must hold together to be its body cut into pieces; less is a set of
#: teaser boxes that happen to share the body's class (two promotion cards of 128 and 171 characters on a
#: page of 14,000), and joining them makes trafilatura read the boxes instead of the article.
CHUNKS_SHARE = 0.2


def join_body_chunks(root: HtmlElement, sizes: tuple[dict, dict] | None = None) -> int:
    """Move the content of later sibling article-body containers into the first; return how many moved.

    Only containers matched by the expression trafilatura would choose the first from, with the same tag
    and class as that first one and not nested in it, are joined, and only when together they hold
    :data:`CHUNKS_SHARE` of the page's text (``sizes``: the tree's text sizes, computed when not given).
    """
    found = body_chunks(root)
    if len(found) < 2:
        return 0
    first = found[0]
    above = set(first.iterancestors())
    others = [
        other
        for other in found[1:]
        if other.tag == first.tag
        and other.get("class") == first.get("class")
        and other not in above
        and other.getparent() is not None
        and not any(ancestor is first for ancestor in other.iterancestors())  # not inside the first
    ]
    if not others:
        return 0
    chars = (sizes or text_sizes(root))[0]
    body = root.find("body")
    page = chars.get(body if body is not None else root, 0)
    if sum(chars.get(el, 0) for el in (first, *others)) < CHUNKS_SHARE * page:
        return 0
    for other in others:
        first.extend(list(other))
        other.drop_tree()
    return len(others)


def _run(root: HtmlElement, mode: str, fast: bool = True) -> _Element | None:
    document = bare_extraction(
        root,
        fast=fast,
        favor_precision=mode == "precision",
        favor_recall=mode == "recall",
        include_comments=False,
        include_tables=True,
        include_formatting=False,
        include_links=False,
        include_images=False,
        with_metadata=False,
        deduplicate=False,
        output_format="txt",  # "python" renders the body to text once more, unread here (blocks_of is)
    )
    return None if document is None else document.body


def _clean(line: str) -> str:
    if "  " not in line and "\t" not in line and "\xa0" not in line:  # most lines: nothing to collapse
        return line.strip()
    return _SPACES.sub(" ", line).strip()


def blocks_of(body: _Element) -> list[Block]:
    """Plain-text blocks of an extracted body, one per heading, paragraph, list item and table row."""
    blocks: list[Block] = []
    group = 0
    if body.text and body.text.strip():
        blocks.append(Block("paragraph", _clean(body.text)))
    for child in body:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "table":
            for row in child.iter("row"):
                cells = [_clean(" ".join(cell.itertext())) for cell in row.iterfind("cell")]
                line = " | ".join(cell for cell in cells if cell)
                if line:
                    blocks.append(Block("row", line, group))
            group += 1
            if child.tail and child.tail.strip():
                blocks.append(Block("paragraph", _clean(child.tail)))
            continue
        lines = [_clean(line) for line in xmltotxt(child, False).splitlines() if line.strip()]
        if tag == "list":
            blocks.extend(Block("item", line, group) for line in lines)
            group += 1
        else:
            kind = "heading" if tag == "head" else "paragraph"
            blocks.extend(Block(kind if i == 0 else "paragraph", line) for i, line in enumerate(lines))
    return blocks


#: Where the container's text replaces trafilatura's, by page type: the container is taken when it holds
#: at most ``low`` times trafilatura's words (the same content with the short lines trafilatura drops) or
#: at least ``high`` times (trafilatura kept a fragment: one post, one box). Between the two the container
#: holds much else besides, and trafilatura's scoring of paragraphs is trusted. Pages whose content is short
#: lines (listings, forums, documentation, service pages) take the container more readily; product pages,
#: whose container also holds the buying interface, less. A collection page's content is its grid of
#: product cards (name, price, a line of detail), which trafilatura's paragraph scoring drops almost whole
#: while keeping the one paragraph of category text or a shipping notice: on a collection the container
#: is taken whenever the two read the same region (the band is empty), as far more often the right reading.
#: A listing's content is its entries (title, date, a line of detail, often in ``div``s and short lines),
#: which trafilatura keeps only in part for the same reason: a listing takes its container likewise (the
#: band of 1.7 to 5 times that it had kept trafilatura's fragment on 13 listings: +0.008 on listings).
CONTAINER_RATIOS: dict[str, tuple[float, float]] = {
    "article": (0.0, 2.0),
    "documentation": (0.0, 2.0),
    "service": (0.0, 2.0),
    "forum": (1.4, 5.0),
    "listing": (4.0, 4.0),
    "product": (0.0, 4.0),
    "collection": (4.0, 4.0),
}
#: Page types whose content is a list of linked items.
LINKED = frozenset({"listing", "collection"})
#: Below this share of trafilatura's words found in the container, the two read different parts of the page.
SAME_REGION = 0.5
_WORDS = re.compile(r"\w+")


def _bag(text: str) -> Counter[str]:
    return Counter(_WORDS.findall(text.lower()))


def choose(extracted: str, whole: str, page_type: str, named: bool = False, fragment: bool = False) -> str:
    """``"extracted"`` (trafilatura's pick) or ``"container"`` (the main container read whole).

    When the two hold different text, trafilatura read another part of the page than the container: the
    container wins only where the page names it its main content (``named``) and it holds far more. When
    they read one region and trafilatura's text is known to be a ``fragment`` of it (one post of a thread),
    the container wins whatever the ratio."""
    ours, theirs = _bag(extracted), _bag(whole)
    n_ours, n_theirs = sum(ours.values()), sum(theirs.values())
    if n_theirs == 0:
        return "extracted"
    if n_ours == 0:
        return "container"
    ratio = n_theirs / n_ours
    if sum((ours & theirs).values()) < SAME_REGION * n_ours:
        high = CONTAINER_RATIOS.get(page_type, CONTAINER_RATIOS["article"])[1]
        return "container" if named and ratio >= high else "extracted"
    return "container" if fragment or _by_ratio(ratio, page_type) else "extracted"


def _worth_reading(chars_ratio: float, page_type: str) -> bool:
    """Whether the container's size (in characters, known without reading it) is near enough to the ratios
    for its words to decide; far inside the band between them, trafilatura's text is kept unread."""
    low, high = CONTAINER_RATIOS.get(page_type, CONTAINER_RATIOS["article"])
    return chars_ratio <= low * CHARS_SLACK or chars_ratio >= high / CHARS_SLACK


def _by_ratio(ratio: float, page_type: str) -> bool:
    low, high = CONTAINER_RATIOS.get(page_type, CONTAINER_RATIOS["article"])
    return ratio <= low or ratio >= high


#: How far a container's character count may be from its word count's ratio to trafilatura's text (the
#: actions and labels :func:`container_blocks` leaves out, spacing): beyond this the container is not read.
CHARS_SLACK = 1.5


def _key(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


#: Of trafilatura's blocks, the share that must stand in the container, in the same order, for the two to
#: read one text (see :func:`interior`).
GAP_FOUND = 0.8
#: What :func:`interior` adds between the blocks trafilatura kept: a section's headings and list items.
GAP_KINDS = frozenset({"heading", "item"})


def interior(extracted: Sequence[Block], whole: Sequence[Block]) -> tuple[Block, ...] | None:
    """trafilatura's blocks with the container's headings and list items that lie between them, or
    ``None`` when there are none or the two do not read one text in one order.

    trafilatura's fast pass keeps a body's paragraphs but can drop the section headings and lists between
    them (a ``<h3>`` and its ``<ul>`` between two kept paragraphs). Text the page puts *between* two
    blocks of its main text is part of that text; what lies before the first or after the last (a share
    bar, related links, comments) is not added. ``whole`` is read without pictured items (a gallery's
    captions are items too)."""
    index: dict[str, int] = {}
    for i, block in enumerate(whole):
        index.setdefault(_key(block.text), i)
    found = [index[k] for k in (_key(b.text) for b in extracted) if k in index]
    if not found or len(found) < GAP_FOUND * len(extracted) or found != sorted(found):
        return None
    kept = set(found)
    span = tuple(
        b for i, b in enumerate(whole[found[0] : found[-1] + 1], found[0]) if i in kept or b.kind in GAP_KINDS
    )
    return span if len(span) > len(kept) else None


#: Linked headings after the extracted text that make a run of teasers (related or recent posts).
TEASER_HEADINGS = 3
_LINKED_HEADINGS = etree.XPath(
    "descendant::*[self::h2 or self::h3 or self::h4 or self::h5][.//a[@href] or ancestor::a[@href]]",
    smart_strings=False,
)


def without_teasers(main: HtmlElement, extracted: Sequence[Block], whole: list[Block]) -> list[Block]:
    """The container's blocks without a run of teasers after trafilatura's last block: when what follows
    the text trafilatura kept holds :data:`TEASER_HEADINGS` or more headings that are links, and they are
    most of its headings, it is a list of other posts (title, byline, excerpt; a sidebar inside ``<main>``),
    not the article's own sections, whose headings are not links (a heading in a link or a link in a
    heading)."""
    index = {_key(b.text): i for i, b in enumerate(whole)}
    found = [index[k] for k in (_key(b.text) for b in extracted) if k in index]
    if not found:
        return whole
    tail = whole[max(found) + 1 :]
    headings = [b for b in tail if b.kind == "heading"]
    if len(headings) < TEASER_HEADINGS:
        return whole
    linked = {_key(" ".join(h.itertext())) for h in _LINKED_HEADINGS(main)}
    teasers = sum(1 for h in headings if _key(h.text) in linked)
    if teasers < TEASER_HEADINGS or teasers < 0.5 * len(headings):
        return whole
    return whole[: max(found) + 1]


#: Share of the container's words that may come before its headline for them to be the page's chrome.
BEFORE_HEADLINE = 0.5


def from_headline(main: HtmlElement, whole: list[Block]) -> list[Block]:
    """The container's blocks from its headline (``<h1>``) on, on a listing, collection or product page.

    A container read whole on a shop's category or product page or a listing is often the page's wrapper:
    the header, promotion bar, mega-menu and breadcrumbs come before the category's title (the product's
    name), and the items and their introduction (the product's description) after it. When the blocks
    before the title are under :data:`BEFORE_HEADLINE` of the container's words they are that chrome;
    more, and the title is not where the content starts (a template that puts it after the grid, or a home
    page whose ``<h1>`` heads one section)."""
    h1 = main.find(".//h1")
    if h1 is None:
        return whole
    key = _key(" ".join(h1.itertext()))
    at = next((i for i, b in enumerate(whole) if b.kind == "heading" and _key(b.text) == key), None)
    if not at:
        return whole
    before = sum(len(b.text.split()) for b in whole[:at])
    if before >= BEFORE_HEADLINE * sum(len(b.text.split()) for b in whole):
        return whole
    return whole[at:]


def extract(
    root: HtmlElement,
    page_type: str = "article",
    *,
    join_chunks: bool = True,
    rescue: bool = True,
    container: bool = True,
    sizes: tuple[dict, dict] | None = None,
    prose: int = 0,
) -> Extraction:
    """Main content of a prepared tree (boilerplate already removed): blocks, Markdown and the mode used.

    ``join_chunks``, ``rescue`` and ``container`` switch off steps of the cascade (for the benchmark's
    ablation); ``sizes`` are the tree's :func:`wikihowqa.parse.sizes.text_sizes`, when known; ``prose``
    the words of the page's running-text paragraphs (:attr:`wikihowqa.parse.pagetype.Signals.prose_words`),
    when known."""
    unwrap_layout_tables(root)
    unwrap_text_figures(root)
    if page_type in DIV_PARAGRAPH_TYPES:
        divs_to_paragraphs(root)
    if page_type == "documentation":
        show_tab_panels(root)
    if page_type in LINKED:
        drop_collection_interface(root, sizes)
    if page_type == "forum":
        sizes = sizes or text_sizes(root)
        drop_answer_comments(root, sizes)
        drop_post_furniture(root, sizes)
        drop_quoted_copies(root, sizes)
        drop_pasted_logs(root, sizes)
    read = root  # the tree trafilatura reads
    if join_chunks and page_type == "forum":  # posts joined for trafilatura only; the container keeps order
        read = deepcopy(root)
        join_body_chunks(read)
    elif join_chunks:
        join_body_chunks(root, sizes)
    body, mode = _run(read, "balanced"), "balanced"
    blocks = tuple(blocks_of(body)) if body is not None else ()
    words = sum(len(b.text.split()) for b in blocks)
    if page_type != "forum" and prose >= FALLBACK_PROSE and words < FALLBACK_SHARE * prose:
        compared = _run(root, "balanced", fast=False)  # with trafilatura's readability/jusText comparison
        compared_blocks = tuple(blocks_of(compared)) if compared is not None else ()
        if sum(len(b.text.split()) for b in compared_blocks) > sum(len(b.text.split()) for b in blocks):
            body, blocks = compared, compared_blocks
    lines = [b.text for b in blocks]
    thread = page_type == "forum"
    shop = page_type in LINKED or page_type == "product"
    main = main_container(root, lines, sizes, shop=shop) if container else None
    if main is not None and thread:
        main = posts_region(main, main_container(root, (), sizes), (sizes or text_sizes(root))[0])
    chars = (sizes or text_sizes(root))[0] if main is not None else {}
    held = chars.get(main, 0)
    text_chars = sum(len(line) for line in lines)
    if rescue and text_chars < MIN_EXTRACTED_CHARS and held < MIN_EXTRACTED_CHARS:
        rescued = _run(read, "recall")  # neither found much: trafilatura's widest pass
        rescued_blocks = tuple(blocks_of(rescued)) if rescued is not None else ()
        if sum(len(b.text) for b in rescued_blocks) > text_chars:
            body, mode, blocks = rescued, "recall", rescued_blocks
    posts: list[HtmlElement] = []
    if thread and main is not None:
        main, posts = thread_within(main, lines, chars)
        held = chars.get(main, 0)
    fragment = (
        thread
        and main is not None
        and held > 0
        and (
            kept_one_post(main, lines, chars, posts)
            or (main.tag != "body" and missed_posts(lines, chars, posts))
        )
    )
    readable = not text_chars or fragment or _worth_reading(held / max(text_chars, 1), page_type)
    if main is not None and held and readable:
        whole = read_thread(main, posts) if thread else container_blocks(main, keep_links=page_type in LINKED)
        ours, theirs = "\n".join(b.text for b in blocks), "\n".join(b.text for b in whole)
        if whole and choose(ours, theirs, page_type, is_named(main), fragment) == "container":
            if page_type == "article":  # a listing's linked headings are its items
                whole = without_teasers(main, blocks, whole)
            elif page_type in LINKED or page_type == "product":  # shop and listing templates
                whole = from_headline(main, whole)
            if thread:
                whole = said_once(whole)
            return Extraction(tuple(whole), markdown_of(whole), "container")
        if whole and has_pictured_items(main):
            whole = container_blocks(main, keep_links=page_type in LINKED, pictures=False)
        filled = interior(blocks, whole) if whole else None
        if filled is not None:
            return Extraction(filled, markdown_of(filled), "container")
    if not blocks:
        return Extraction((), "", "none")
    return Extraction(blocks, gfm_tables(xmltotxt(body, True).strip()), mode)


_DELIMITER_ROW = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+\s*$")


def gfm_tables(markdown: str) -> str:
    """Give every pipe table a delimiter row: without one (a table with no ``<th>``) GFM shows raw pipes.

    The first row becomes the header, as HTML-to-Markdown converters do for header-less tables.
    """
    lines = markdown.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        starts_table = line.startswith("|") and (i == 0 or not lines[i - 1].startswith("|"))
        if starts_table and not (i + 1 < len(lines) and _DELIMITER_ROW.match(lines[i + 1].strip())):
            columns = max(line.strip().count("|") - 1, 1)
            out.append("|" + "---|" * columns)
    return "\n".join(out)
