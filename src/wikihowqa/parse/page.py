"""One archived web page → :class:`ParsedPage` (text, Markdown, passages, title), or a rejection reason.

:func:`parse_html` never raises on bad input: an empty body, bytes that are not HTML, a page over the size
limit, markup nested deeper than :data:`MAX_DEPTH` levels, or a page without article text each come back as a
``ParsedPage`` whose ``rejection`` names the reason, so a crawl of millions of pages loses none of its work
to one bad page. A page that was cut off (a short transfer or capture) keeps the text it has, for a
dataset is better with it than without, and is flagged ``truncated``.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from wikihowqa.core.errors import SettingsError
from wikihowqa.parse.blocks import Block, is_shell
from wikihowqa.parse.boilerplate import remove_boilerplate
from wikihowqa.parse.decode import decode_html
from wikihowqa.parse.noscript import drop_hidden
from wikihowqa.parse.pagetype import (
    COLLECTION,
    FORUM,
    LISTING,
    PRODUCT,
    drop_replies,
    product_facts,
    signals,
)
from wikihowqa.parse.pagetype_model import page_type_of
from wikihowqa.parse.pagination import Pagination, detect
from wikihowqa.parse.passages import DEFAULT_MAX_WORDS, PassageSpan, passage_spans
from wikihowqa.parse.repeats import read_once
from wikihowqa.parse.sizes import text_sizes

# Rejection reasons (the collector's funnel counts documents by these).
EMPTY_BODY = "empty_body"
NON_HTML = "non_html"
TOO_LARGE = "too_large"
TOO_DEEP = "too_deep"
EMPTY_TEXT = "empty_text"
PARSE_ERROR = "parse_error"
TIMEOUT = "timeout"
REJECTIONS = (EMPTY_BODY, NON_HTML, TOO_LARGE, TOO_DEEP, EMPTY_TEXT, PARSE_ERROR, TIMEOUT)

_MAGIC = (
    (b"%PDF", "pdf"),
    (b"\x89PNG", "png"),
    (b"GIF8", "gif"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"RIFF", "riff"),
    (b"PK\x03\x04", "zip"),
    (b"\x1f\x8b", "gzip"),
    (b"BM", "bmp"),
    (b"ID3", "mp3"),
    (b"OggS", "ogg"),
    (b"\x00\x00\x01\x00", "ico"),
    (b"wOFF", "woff"),
    (b"\xd0\xcf\x11\xe0", "ms-office"),
    (b"{\\rtf", "rtf"),
)
_HTML_TYPES = ("html", "xml", "text/plain")
_CONTROL_BYTES = bytes([*range(0, 9), *range(14, 27), *range(28, 32)])
_MARKUP = re.compile(r"<(?:[a-zA-Z][a-zA-Z0-9-]*|!--|!doctype)[\s>/]", re.I)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*>", re.I)
# Characters an XML tree cannot hold (lxml refuses them in text); browsers do not show them either.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
#: Deepest markup kept (levels of elements). libxml2 nests 256 levels by default and up to 2048 with
#: ``huge_tree``; past 256 a page is parsed again with it and kept up to this depth. The deepest recursion
#: met downstream, trafilatura's nested-list handler, takes about one Python frame per level: a page of
#: nested lists this deep needs about 550 of Python's default 1000 frames, leaving the rest to the caller.
MAX_DEPTH = 512
#: Elements of a page kept: the largest of the 450 web-extraction benchmark pages has 15,795. Past this the
#: page is cut (flag ``truncated="cut"``): trafilatura's extraction grows faster than the page (N × ``<p>``:
#: 1.8 s at 25k, 9.8 s at 100k, 38 s at 200k, its fallback baseline 4.6 s of them; no result in 150 s at
#: 500k), so a pathological page would otherwise hold a worker for minutes and gigabytes.
MAX_ELEMENTS = 50_000
CUT = "cut"
_NEVER_SHOWN = ("script", "style", "svg", "canvas", "iframe", "object", "embed", "link", "meta")
_TITLE_SEP = re.compile(r"\s+(?:[|·•–—»-]|::)\s+")
_DOCUMENT_END = re.compile(r"</(?:body|html)\s*>", re.I)
# The last tag of a whole document that leaves out its optional </body></html>: an end tag, a void or
# self-closed tag, or a declaration. A page cut off ends in text, inside a tag or comment, or on a start tag.
_CLOSING_TAG = re.compile(
    r"</[a-zA-Z][^<>]*>|<(?:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)\b[^<>]*>"
    r"|<[a-zA-Z][^<>]*/>|<![^<>]*>",
    re.I,
)
# Containers whose end tag is never optional: more of them opened than closed means the page stops inside.
_CONTAINER = re.compile(r"<(/?)(?:div|table|ul|ol|dl|section|article|main|form|blockquote)\b", re.I)
_RAW_OPEN = re.compile(r"<(script|style)\b|<!--", re.I)
_RAW_CLOSE = {
    "script": re.compile(r"</script\s*>", re.I),
    "style": re.compile(r"</style\s*>", re.I),
    None: re.compile(r"-->"),
}


@dataclass(frozen=True, slots=True)
class ParseSettings:
    """How pages are parsed. ``pagination``: ``join`` fetches (through the collector) and joins the pages
    of a paginated article, ``flag`` only records its continuation links. ``timeout_s`` and
    ``max_memory_mb`` are applied by the parse stage (:func:`wikihowqa.parse.stage.parse_one` and its worker
    processes), not by :func:`parse_html`: a page past either is rejected as ``timeout`` or ``too_large``."""

    max_words: int = DEFAULT_MAX_WORDS
    min_words: int = 1  # fewer words of article text than this: rejected as empty_text
    max_bytes: int = 20_000_000
    remove_boilerplate: bool = True
    pagination: str = "join"
    max_pages: int = 20
    timeout_s: float = 60.0
    max_memory_mb: int = 2048  # address space of each of the stage's worker processes (0: no limit)

    def __post_init__(self) -> None:
        if self.min_words < 1:
            raise SettingsError(f"min_words must be at least 1, got {self.min_words}")
        if self.max_words < 1:
            raise SettingsError(f"max_words must be at least 1, got {self.max_words}")
        if self.pagination not in {"join", "flag"}:
            raise SettingsError(f"pagination must be 'join' or 'flag', got {self.pagination!r}")
        if self.max_bytes < 1 or self.max_pages < 1 or self.timeout_s <= 0:
            raise SettingsError("max_bytes, max_pages and timeout_s must be positive")
        if self.max_memory_mb < 0:
            raise SettingsError(f"max_memory_mb must be 0 (no limit) or positive, got {self.max_memory_mb}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "max_words": self.max_words,
            "min_words": self.min_words,
            "max_bytes": self.max_bytes,
            "remove_boilerplate": self.remove_boilerplate,
            "pagination": self.pagination,
            "max_pages": self.max_pages,
            "timeout_s": self.timeout_s,
            "max_memory_mb": self.max_memory_mb,
        }


@dataclass(frozen=True, slots=True)
class ParsedPage:
    """A page's main content as plain text (``text``), Markdown and passages, or why there is none."""

    url: str
    text: str = ""
    markdown: str = ""
    title: str | None = None
    blocks: tuple[Block, ...] = ()
    spans: tuple[PassageSpan, ...] = ()
    encoding: str | None = None
    encoding_source: str | None = None
    pagination: Pagination = field(default_factory=Pagination)
    pages: tuple[str, ...] = ()  # URLs whose content is joined here, in reading order
    removed: Mapping[str, int] = field(default_factory=dict)  # boilerplate blocks removed, by kind
    mode: str = "none"  # extraction pass that produced the text
    page_type: str | None = None  # article, forum, product, service, documentation, listing or collection
    truncated: str | None = None  # why the page is cut off ("content_length", "unclosed" or "cut"), else None
    rejection: str | None = None
    detail: str | None = None  # more about the rejection, for people

    @property
    def passages(self) -> tuple[str, ...]:
        return tuple(span.text for span in self.spans)

    @property
    def ok(self) -> bool:
        return self.rejection is None

    @property
    def comments_removed(self) -> bool:
        return self.removed.get("comments", 0) > 0

    @property
    def flags(self) -> tuple[str, ...]:
        found = []
        if self.comments_removed:
            found.append("comments_removed")
        if self.pagination.paginated:
            found.append("paginated")
        if len(self.pages) > 1:
            found.append("pages_joined")
        if self.truncated:
            found.append("truncated")
        return tuple(found)

    def info(self) -> dict[str, Any]:
        """What a document row keeps about how it was parsed (stored under ``extra['parse']``)."""
        return {
            "encoding": self.encoding,
            "encoding_source": self.encoding_source,
            "mode": self.mode,
            "page_type": self.page_type,
            "removed": dict(self.removed),
            "pagination": self.pagination.as_dict() if self.pagination.paginated else None,
            "pages": list(self.pages),
            "truncated": self.truncated,
            "flags": list(self.flags),
        }


def rejected(url: str, reason: str, detail: str | None = None, **fields: Any) -> ParsedPage:
    return ParsedPage(url=url, rejection=reason, detail=detail, **fields)


def _header(headers: Mapping[str, str] | None, name: str) -> str:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return value or ""
    return ""


def _content_type(headers: Mapping[str, str] | None) -> str:
    return _header(headers, "content-type").split(";", 1)[0].strip().lower()


def truncation(text: str, headers: Mapping[str, str] | None = None, size: int | None = None) -> str | None:
    """Why a page looks cut off (a transfer or an archive capture that stopped early), else ``None``.

    ``content_length``: the body (``size`` bytes, as received) is shorter than its ``Content-Length``
    header says, when no content encoding makes the two lengths differ. ``unclosed``: the document has
    no ``</body>`` or ``</html>`` and ends in text, inside a tag or comment, or on a start tag, or leaves
    containers (``div``, ``table``, lists, ``article``…) open; a whole page that leaves out the optional
    end tags does none of these. Only the rare page without ``</body>``/``</html>`` is looked at further,
    so the common path costs one search."""
    declared = _header(headers, "content-length").strip()
    encoding = _header(headers, "content-encoding").strip().lower()
    if size is not None and declared.isdigit() and encoding in {"", "identity"} and size < int(declared):
        return "content_length"
    if not any(_DOCUMENT_END.search(part) for part in (text[-4096:], text)) and (
        not _ends_whole(text[-4096:].rstrip()) or _open_containers(text) > 0
    ):
        return "unclosed"
    return None


def _open_containers(text: str) -> int:
    opened = 0
    for match in _CONTAINER.finditer(_without_raw_text(text)):
        opened += -1 if match.group(1) else 1
    return opened


def _without_raw_text(text: str) -> str:
    """``text`` without scripts, styles and comments, in one pass: an element left open runs to the end of
    the document, as a browser reads it (a lazy ``<script>.*?</script>`` pattern rescans the rest of the
    text for every unclosed one: quadratic, 67 s on 180 KB of ``<script>x``)."""
    pieces: list[str] = []
    position = 0
    while (start := _RAW_OPEN.search(text, position)) is not None:
        pieces.append(text[position : start.start()])
        name = start.group(1)
        end = _RAW_CLOSE[name.lower() if name else None].search(text, start.end())
        if end is None:
            return "".join(pieces)
        position = end.end()
    pieces.append(text[position:])
    return "".join(pieces)


def _ends_whole(tail: str) -> bool:
    if tail.endswith("-->"):
        return True
    return tail.endswith(">") and _CLOSING_TAG.fullmatch(tail[tail.rfind("<") :]) is not None


def sniff(
    body: bytes, headers: Mapping[str, str] | None, settings: ParseSettings
) -> tuple[str, str | None] | None:
    """A rejection ``(reason, detail)`` for bytes that cannot be an HTML page, else ``None``."""
    if not body.strip():
        return EMPTY_BODY, None
    if len(body) > settings.max_bytes:
        return TOO_LARGE, f"{len(body):,} bytes > {settings.max_bytes:,}"
    kind = _content_type(headers)
    if kind and not any(t in kind for t in _HTML_TYPES):
        return NON_HTML, kind
    head = body[:8].lstrip()
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return NON_HTML, name
    start = body[:4096]
    if not start.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        controls = len(start) - len(start.translate(None, _CONTROL_BYTES))
        if controls > 0.05 * len(start):  # text has next to none; a stray NUL in real HTML is not binary
            return NON_HTML, "binary"
    return None


def _title(root: Any) -> str | None:
    """The article's headline, not the site's name.

    Sites put their name in ``<title>`` after (or before) the headline, in ``og:site_name``, and often in an
    ``<h1>`` of their own (forums, institutions, old layouts): an ``<h1>`` that is the site's name is passed
    over; the first other ``<h1>`` that the page title or og:title contains is the headline; else og:title;
    else the ``<title>`` part that is not the site's name."""

    def texts(xpath: str) -> list[str]:
        found = (" ".join((f if isinstance(f, str) else f.text_content()).split()) for f in root.xpath(xpath))
        return [t for t in found if t]

    h1s = texts("//h1")
    og = next(
        iter(texts("//meta[@property='og:title' or @name='og:title' or @name='twitter:title']/@content")),
        None,
    )
    title = next(iter(texts("//title")), None)
    parts = [p.strip() for p in _TITLE_SEP.split(title)] if title else []
    sites = {_norm(t) for t in texts("/descendant::meta[@property='og:site_name']/@content")}
    if len(parts) > 1:
        sites.update(
            _norm(h) for h in h1s if _norm(h) in {_norm(parts[0]), _norm(parts[-1])} and len(h1s) > 1
        )
        if any(_norm(h) == _norm(parts[-1]) for h in h1s):
            sites.add(_norm(parts[-1]))
    for h1 in h1s:
        if _norm(h1) in sites:
            continue
        if not title or _norm(h1) in _norm(title) or (og and _norm(h1) in _norm(og)):
            return h1
    if og and _norm(og) not in sites:
        return og
    if parts:
        rest = [p for p in parts if _norm(p) not in sites] or parts
        return rest[0] if len(rest) < len(parts) else max(rest, key=len)
    return h1s[0] if h1s else None


def parse_html(
    html: bytes | str,
    url: str,
    headers: Mapping[str, str] | None = None,
    settings: ParseSettings | None = None,
) -> ParsedPage:
    """Parse one page fetched from ``url`` (its original URL; links resolve against it).

    No time limit is applied here, whatever ``settings.timeout_s`` says: stopping a parse that is stuck
    inside libxml2 or trafilatura takes a timer signal (main thread only, replacing the caller's own
    ``SIGALRM`` handler) or a process per page (slow), neither fit for a library call. For a limit, parse
    through :func:`wikihowqa.parse.stage.parse_one` (one page) or the stage (many), which use the signal in
    their worker processes."""
    settings = settings or ParseSettings()
    try:
        with _collector_paused():
            return _parse(html, url, headers, settings)
    except RecursionError:
        return rejected(url, TOO_DEEP, "recursion limit")
    except MemoryError:
        return rejected(url, TOO_LARGE, "out of memory")
    except Exception as exc:  # a parser bug must cost one page, not the crawl
        return rejected(url, PARSE_ERROR, f"{type(exc).__name__}: {exc}"[:300])


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector held off for one parse, as it was before it when the caller had it off.

    A parse allocates element proxies and strings by the million and frees them by reference counting;
    the collector, run every 700 net allocations, scanned them again and again for cycles there are none
    of: 10–15% of the parse time on the web-extraction pages. The cycles a parse does leave (tracebacks of
    caught errors) are collected at the next collection after it. The switch is process-wide: another
    thread parsing at the same time may see the collector back on before its own parse ends (only slower,
    never wrong)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _parse(
    html: bytes | str, url: str, headers: Mapping[str, str] | None, settings: ParseSettings
) -> ParsedPage:
    from lxml import etree

    from wikihowqa.parse.html import extract  # heavy: trafilatura (0.3 s), loaded only to parse a page

    if isinstance(html, str):
        if len(html) > settings.max_bytes:
            return rejected(url, TOO_LARGE, f"{len(html):,} characters > {settings.max_bytes:,}")
        if not html.strip():
            return rejected(url, EMPTY_BODY)
        text, encoding, source, size = html, None, None, None
    else:
        problem = sniff(html, headers, settings)
        if problem:
            return rejected(url, *problem)
        decoded = decode_html(html, headers)
        text, encoding, source, size = decoded.text, decoded.encoding, decoded.source, len(html)
    seen = {"encoding": encoding, "encoding_source": source}
    text = _XML_DECL.sub("", _NOT_XML.sub("", text) if _NOT_XML.search(text) else text, count=1)
    if not _MARKUP.search(text[:65536]):
        return rejected(url, NON_HTML, "no markup", **seen)
    seen["truncated"] = truncation(text, headers, size)
    try:
        root, too_deep = _tree(text, huge=False)
        if too_deep:  # rare: try again without libxml2's default depth limit
            root, too_deep = _tree(text, huge=True)
            if too_deep:
                return rejected(url, TOO_DEEP, "nested past libxml2's limit even with huge_tree", **seen)
            depth = tree_depth(root)
            if depth > MAX_DEPTH:
                return rejected(url, TOO_DEEP, f"{depth} levels of markup > {MAX_DEPTH}", **seen)
    except Exception as exc:  # lxml raises ParserError on documents it cannot recover at all
        return rejected(url, PARSE_ERROR, f"{type(exc).__name__}: {exc}"[:300], **seen)
    if cut_after(root, MAX_ELEMENTS):
        seen["truncated"] = CUT
    title = _title(root)
    pagination = detect(root, url)
    drop_hidden(root)  # shown only without scripts (unless the page is their shell), or never
    sizes = text_sizes(root)  # one pass, kept true through the removals below
    found = signals(root, url, sizes)
    _, kind = page_type_of(root, url, found, sizes)  # the profile it is read with is the type recorded
    facts = product_facts(root) if kind == PRODUCT else ("", [])
    # Read (JSON-LD) and never shown: out before the steps below copy and walk the tree.
    etree.strip_elements(root, *_NEVER_SHOWN, with_tail=False)
    replies = drop_replies(found, sizes) if settings.remove_boilerplate and kind != FORUM else 0
    removed = (
        dict(
            remove_boilerplate(
                root, keep_comments=kind == FORUM, keep_link_lists=kind in {LISTING, COLLECTION}, sizes=sizes
            )
        )
        if settings.remove_boilerplate
        else {}
    )
    if replies:
        removed["comments"] = removed.get("comments", 0) + 1
    extraction = _with_facts(
        _without_headline(read_once(extract(root, kind, sizes=sizes, prose=found.prose_words)), title), *facts
    )
    common = {
        **seen,
        "title": title,
        "pagination": pagination,
        "removed": removed,
        "pages": (url,),
        "page_type": kind,
    }
    full = extraction.text
    if not extraction.blocks or len(full.split()) < settings.min_words:
        return rejected(url, EMPTY_TEXT, f"{len(full.split())} words", **common)
    if is_shell(extraction.blocks):
        shell = f"{len(full.split())} words, no running text: an app's shell"
        return rejected(url, EMPTY_TEXT, shell, **common)
    return ParsedPage(
        url=url,
        text=full,
        markdown=extraction.markdown,
        blocks=extraction.blocks,
        spans=tuple(passage_spans(full, extraction.blocks, settings.max_words)),
        mode=extraction.mode,
        **common,
    )


def _html_classes() -> Any:
    """lxml.html's element classes chosen in C: its own lookup is a Python method called for every element
    proxy lxml makes (3.3 million calls, 7% of the parse time on the web-extraction pages, trafilatura's
    included). Only the form controls' own classes (``FormElement.fields``…) are lost: nothing here uses
    them."""
    import lxml.html
    from lxml import etree

    return etree.ElementDefaultClassLookup(
        element=lxml.html.HtmlElement,
        comment=lxml.html.HtmlComment,
        pi=lxml.html.HtmlProcessingInstruction,
        entity=lxml.html.HtmlEntity,
    )


_HTML_CLASSES = _html_classes()


def _tree(text: str, *, huge: bool) -> tuple[Any, bool]:
    """The parsed document, and whether libxml2 stopped nesting at its depth limit (256 levels by
    default; ``huge_tree`` raises it to 2048) and so lost what lay deeper."""
    import lxml.html

    parser = lxml.html.HTMLParser(
        recover=True, remove_comments=True, remove_pis=True, collect_ids=False, huge_tree=huge
    )
    parser.set_element_class_lookup(_HTML_CLASSES)
    root = lxml.html.document_fromstring(text, parser=parser)
    return root, any("Excessive depth" in entry.message for entry in parser.error_log)


def cut_after(root: Any, limit: int) -> bool:
    """Keep the first ``limit`` elements of ``root`` in document order and drop the rest (what follows the
    last kept one: its own content, later siblings, and the later siblings of each ancestor). Returns
    whether anything was cut. One pass over at most ``limit`` elements."""
    if root.xpath("count(//*)") <= limit:  # counted in C: the common case makes no element objects
        return False
    last = None
    for count, el in enumerate(root.iter(), 1):
        if count > limit:
            last = el
            break
    if last is None:
        return False
    node = last
    parent = node.getparent()
    while parent is not None:
        for later in list(node.itersiblings()):
            parent.remove(later)
        if node is last:
            parent.remove(node)
        else:
            node.tail = None
        node, parent = parent, parent.getparent()
    return True


def tree_depth(root: Any) -> int:
    """Levels of elements below and including ``root``, counted without recursion."""
    from lxml import etree

    depth = deepest = 0
    for event, _ in etree.iterwalk(root, events=("start", "end")):
        depth += 1 if event == "start" else -1
        deepest = max(deepest, depth)
    return deepest


#: Share of a JSON-LD product description's words the page's text must hold for it to count as shown.
SHOWN = 0.6


def _with_facts(extraction: Any, description: str, specs: list[tuple[str, str]]) -> Any:
    """A product page's text with what only its JSON-LD states: the description (when the page's text holds
    too few of its words) first, the specifications not shown as a table after."""
    from wikihowqa.parse.html import Extraction  # heavy: trafilatura, as in _parse

    if not description and not specs:
        return extraction
    words = set(re.findall(r"\w+", extraction.text.casefold()))
    blocks = list(extraction.blocks)
    markdown = [extraction.markdown] if extraction.markdown else []
    said = re.findall(r"\w+", description.casefold())
    if said and sum(w in words for w in said) < SHOWN * len(said):
        blocks.insert(0, Block("paragraph", description))
        markdown.insert(0, description)
    missing = [(k, v) for k, v in specs if not set(re.findall(r"\w+", f"{k} {v}".casefold())) <= words]
    if missing:
        group = max((b.group for b in blocks), default=-1) + 1
        blocks += [Block("row", f"{k} | {v}", group) for k, v in missing]
        markdown.append(
            "\n".join(["| Specification | Value |", "|---|---|", *[f"| {k} | {v} |" for k, v in missing]])
        )
    mode = extraction.mode if extraction.mode != "none" else "json-ld"
    return Extraction(tuple(blocks), "\n\n".join(markdown), mode)


#: Blocks above the headline this short (a kicker, breadcrumbs, a date) go with it; a longer one is text.
KICKER_WORDS = 6


def _without_headline(extraction: Any, title: str | None) -> Any:
    """The body without its headline: the title has a field of its own, and the body's text should not
    start with it (benchmarks' and the demo corpus's ground truths alike leave it out). Short labels above
    the headline (a section kicker, breadcrumbs) are not the article's text either."""
    from wikihowqa.parse.html import Extraction  # heavy: trafilatura, as in _parse

    blocks = extraction.blocks
    if not title:
        return extraction
    at = None
    for i, block in enumerate(blocks[:4]):
        if block.kind == "heading" and _norm(block.text) == _norm(title):
            at = i
            break
        if len(block.text.split()) > KICKER_WORDS:
            return extraction
    if at is None:
        return extraction
    lines = extraction.markdown.split("\n")
    cut = next(
        (
            i
            for i, line in enumerate(lines[:12])
            if line.lstrip("#").strip() and _norm(line.lstrip("#")) == _norm(title)
        ),
        None,
    )
    markdown = "\n".join(lines[cut + 1 :]).lstrip("\n") if cut is not None else extraction.markdown
    return Extraction(blocks[at + 1 :], markdown, extraction.mode)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()
