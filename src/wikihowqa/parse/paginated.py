"""A paginated article's pages joined into one document, in reading order.

:func:`wikihowqa.parse.page.parse_html` records a page's continuation links
(:mod:`wikihowqa.parse.pagination`); the parse stage fetches them through the collector and joins what it
found here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from wikihowqa.parse.blocks import Block
from wikihowqa.parse.page import ParsedPage
from wikihowqa.parse.pagination import Pagination, page_number
from wikihowqa.parse.pagination import continuation_urls as pagination_urls
from wikihowqa.parse.passages import DEFAULT_MAX_WORDS, passage_spans


def continuation_urls(page: ParsedPage | Pagination) -> list[str]:
    """URLs to fetch to complete a paginated article (empty for a page that is whole)."""
    return pagination_urls(page.pagination if isinstance(page, ParsedPage) else page)


def _paragraphs(markdown: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", markdown) if p.strip()]


def join_pages(pages: list[ParsedPage], max_words: int = DEFAULT_MAX_WORDS) -> ParsedPage:
    """One article from its pages in reading order; rejected pages are skipped, and a block repeated from an
    earlier page (a standfirst or a byline shown on every page) is kept once."""
    usable = [p for p in pages if p.ok]
    if not usable:
        if not pages:
            raise ValueError("join_pages needs at least one page")
        return pages[0]
    first = usable[0]
    if len(usable) == 1:
        return first
    seen_blocks: set[str] = set()
    seen_md: set[str] = set()
    blocks: list[Block] = []
    markdown: list[str] = []
    groups = 0
    for page in usable:
        offset = groups
        for block in page.blocks:
            if block.text in seen_blocks and block.kind in {"heading", "paragraph"}:
                continue
            blocks.append(replace(block, group=block.group + offset) if block.group >= 0 else block)
            groups = max(groups, block.group + offset + 1)
        seen_blocks.update(b.text for b in page.blocks)
        for para in _paragraphs(page.markdown):
            if para not in seen_md:
                markdown.append(para)
        seen_md.update(_paragraphs(page.markdown))
    text = "\n".join(b.text for b in blocks)
    removed: dict[str, int] = {}
    for page in usable:
        for kind, n in page.removed.items():
            removed[kind] = removed.get(kind, 0) + n
    return replace(
        first,
        text=text,
        markdown="\n\n".join(markdown),
        truncated=next((page.truncated for page in usable if page.truncated), None),
        blocks=tuple(blocks),
        spans=tuple(passage_spans(text, blocks, max_words)),
        pages=tuple(url for page in usable for url in page.pages),
        removed=removed,
    )


def collect_pages(
    first: ParsedPage,
    fetch: Callable[[str], ParsedPage | None],
    max_pages: int = 20,
    max_words: int = DEFAULT_MAX_WORDS,
) -> ParsedPage:
    """Follow a paginated article's continuation links with ``fetch`` (URL → parsed page, or ``None`` when
    it cannot be had) and join what was found. A view-all page, when it parses, replaces the pages."""
    if not first.ok or not first.pagination.paginated:
        return first
    if first.pagination.view_all_url:
        whole = fetch(first.pagination.view_all_url)
        if whole is not None and whole.ok:
            return replace(whole, pagination=first.pagination, pages=(first.url, *whole.pages))
        if not first.pagination.next_url and not first.pagination.page_urls:
            return first
    seen = {first.url}
    parts = [first]
    queue = [u for u in continuation_urls(replace(first.pagination, view_all_url=None)) if u not in seen]
    while queue and len(parts) < max_pages:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        page = fetch(url)
        if page is None or not page.ok:
            break
        parts.append(page)
        later = continuation_urls(replace(page.pagination, view_all_url=None))
        queue.extend(u for u in later if u not in seen and u not in queue)
    rest = sorted(parts[1:], key=lambda p: page_number(p.url)[1] or 0)
    return join_pages([first, *rest], max_words)
