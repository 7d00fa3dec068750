"""Articles that continue on further pages: recognise them, name the continuation, join the parts.

A link is taken as a continuation only if it stays on the page's site and its URL is the page's own URL
with a page number (``?page=2``, ``/2/``, ``/page/2``, ``-2.html``), or it is marked ``rel=next``; a
"view all" link only needs to stay on the site. This keeps out the "next article" links that blogs put
under every post (``<link rel=next>`` of old WordPress points at the next post, whose URL has no page
number of this one's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urljoin, urlsplit

from lxml import etree
from lxml.html import HtmlElement

_NEXT_TEXT = re.compile(
    r"^(?:next(?:\s+page)?|next\s*(?:[›»>→]+)|[›»>→]|continue(?:\s+reading)?\s+(?:on\s+)?(?:the\s+)?next\s+page|"
    r"page\s+suivante|suivant|nächste\s+seite|weiter|siguiente|página\s+siguiente|próxima(?:\s+página)?|"
    r"pagina\s+successiva|次へ|次のページ)\s*[›»>→]*$",
    re.I,
)
_VIEW_ALL_TEXT = re.compile(
    r"^(?:view|show|read|see)\s+(?:all|as\s+(?:a\s+)?(?:one|single)\s+page|(?:the\s+)?(?:whole|full|entire)\s+"
    r"(?:article|story|list)(?:\s+on\s+one\s+page)?)(?:\s+pages?)?\s*[›»>→]*$|^(?:single|one)[-\s]page(?:\s+view)?$"
    r"|^(?:all\s+on\s+one\s+page)$",
    re.I,
)
_PAGE_PARAMS = {"page", "p", "pg", "pagenum", "paged", "pagina", "seite", "start", "part", "pn"}
_PATH_PAGE = re.compile(r"(?:[/_-](?:page|p|part|seite)?[/_-]?)(\d{1,3})(?:\.\w{2,5})?/?$", re.I)
_VIEW_ALL_HINT = re.compile(
    r"(?:view|show|single|one)[-_]?(?:all|page)|[?&](?:all|full|singlepage)=|/all/?$", re.I
)
MAX_PAGE = 200


@dataclass(frozen=True, slots=True)
class Pagination:
    """Where a page's article continues: the next page, numbered pages, or a single-page version."""

    next_url: str | None = None
    view_all_url: str | None = None
    page_urls: tuple[str, ...] = ()  # numbered pages after this one, in order
    page_number: int | None = None  # this page's number when its URL carries one

    @property
    def paginated(self) -> bool:
        return bool(self.next_url or self.view_all_url or self.page_urls)

    def as_dict(self) -> dict[str, object]:
        return {
            "next": self.next_url,
            "view_all": self.view_all_url,
            "pages": list(self.page_urls),
            "page_number": self.page_number,
        }


def _host(netloc: str) -> str:
    netloc = netloc.lower().rsplit("@", 1)[-1].split(":", 1)[0]
    return netloc[4:] if netloc.startswith("www.") else netloc


def _page_of_query(query: str) -> tuple[dict[str, str], int | None]:
    params = dict(parse_qsl(query, keep_blank_values=True))
    for key, value in params.items():
        if key.lower() in _PAGE_PARAMS and value.isdigit():
            return {k: v for k, v in params.items() if k != key}, int(value)
    return params, None


def page_number(url: str) -> tuple[str, int | None]:
    """``(stem, number)``: the URL without its page number, and the number (``None`` if it has none)."""
    parts = urlsplit(url)
    rest, number = _page_of_query(parts.query)
    if number is not None:
        return f"{_host(parts.netloc)}{parts.path.rstrip('/')}?{sorted(rest.items())}", number
    match = _PATH_PAGE.search(parts.path)
    if match and int(match.group(1)) <= MAX_PAGE:
        stem = parts.path[: match.start()]
        return f"{_host(parts.netloc)}{stem}?{sorted(rest.items())}", int(match.group(1))
    path = re.sub(r"\.\w{2,5}$", "", parts.path.rstrip("/"))
    return f"{_host(parts.netloc)}{path}?{sorted(rest.items())}", None


def is_continuation(current: str, candidate: str) -> bool:
    """Whether ``candidate`` is a later page of the article at ``current`` (by URL alone)."""
    here_stem, here = page_number(current)
    there_stem, there = page_number(candidate)
    return there is not None and there_stem == here_stem and there > (here or 1) and there <= MAX_PAGE


def _about_this_page(current: str, candidate: str) -> bool:
    """Whether a "view all" link is a version of this page (same path, or a path below it), not a
    site-wide "all products" or "all articles" page."""
    here, there = urlsplit(current), urlsplit(candidate)
    if _host(here.netloc) != _host(there.netloc):
        return False
    stem = re.sub(r"\.\w{2,5}$", "", here.path.rstrip("/"))
    stem = _PATH_PAGE.sub("", stem) if _PATH_PAGE.search(stem) else stem
    path = there.path.rstrip("/")
    if not stem:
        return path == "" and there.query != here.query
    return path == here.path.rstrip("/") or path.startswith(stem)


def _same_site(a: str, b: str) -> bool:
    return _host(urlsplit(a).netloc) == _host(urlsplit(b).netloc)


def _absolute(base: str, href: str | None) -> str | None:
    if not href:
        return None
    href = href.strip()
    if not href or href.startswith(("#", "javascript:", "mailto:", "tel:")):
        return None
    try:  # a malformed link (``http://[oops/``) is skipped, never the page it is on
        url = urljoin(base, href).split("#", 1)[0]
        urlsplit(url)
    except ValueError:
        return None
    return url if url.startswith(("http://", "https://")) else None


def _label(anchor: HtmlElement) -> str:
    text = " ".join("".join(_TEXT(anchor)).split())
    if not text:
        text = (anchor.get("aria-label") or anchor.get("title") or "").strip()
    return text


_TEXT = etree.XPath(".//text()", smart_strings=False)
# Anchors worth a look: short labels only (a pagination link never carries a sentence).
# (``/descendant::a[…]`` is ``//a[…]`` without libxml2's walk of every node's children, text nodes' too.)
_ANCHORS = etree.XPath("/descendant::a[@href][string-length(normalize-space(.)) < 60]")
_ALL_HINT = re.compile(r"\ball\b|single|one\s+page", re.I)


def detect(root: HtmlElement, url: str) -> Pagination:
    """Pagination of the page at ``url`` (its original URL, so relative links resolve as they did)."""
    try:
        urlsplit(url)
    except ValueError:  # a page whose own URL is malformed has no continuation we could name
        return Pagination()
    base_href = root.find(".//base[@href]")
    base = _absolute(url, base_href.get("href")) if base_href is not None else url
    base = base or url
    own = url.split("#", 1)[0]
    _, current = page_number(url)
    next_url = view_all = hinted = None
    numbered: dict[int, str] = {}

    def target_of(element: HtmlElement) -> str | None:
        target = _absolute(base, element.get("href"))
        return target if target and target != own and _same_site(url, target) else None

    for link in root.iterfind(".//link[@rel]"):
        if "next" in link.get("rel", "").lower().split():
            target = target_of(link)
            if target and is_continuation(url, target):
                next_url = next_url or target
    for anchor in _ANCHORS(root):
        label = _label(anchor)
        rel = (anchor.get("rel") or "").lower().split()
        if _VIEW_ALL_TEXT.match(label):
            target = target_of(anchor)
            if view_all is None and target and _about_this_page(url, target):
                view_all = target
            continue
        if "next" in rel or _NEXT_TEXT.match(label):
            target = target_of(anchor)
            if next_url is None and target and is_continuation(url, target):
                next_url = target
        elif label.isdigit() and len(label) <= 3:
            target = target_of(anchor)
            if target and is_continuation(url, target) and page_number(target)[1] == int(label):
                numbered.setdefault(int(label), target)
        elif hinted is None and _ALL_HINT.search(label):
            target = target_of(anchor)
            if target and _VIEW_ALL_HINT.search(target) and _about_this_page(url, target):
                hinted = target
    view_all = view_all or hinted
    start = current or 1
    pages = tuple(numbered[n] for n in sorted(numbered) if n > start)
    if next_url is None and pages and min(numbered) == start + 1:
        next_url = numbered[start + 1]
    return Pagination(next_url, view_all, pages, current)


def continuation_urls(pagination: Pagination) -> list[str]:
    """URLs to fetch to complete the article: the single-page version if there is one, else the pages after
    this one that the page lists (all at once, so they can be fetched together), else the next page."""
    if pagination.view_all_url:
        return [pagination.view_all_url]
    if pagination.page_urls:
        return list(pagination.page_urls)
    return [pagination.next_url] if pagination.next_url else []
