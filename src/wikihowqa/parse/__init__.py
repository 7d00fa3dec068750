"""Parse stage: archived HTML → clean text, Markdown and passages.

``parse_html(body, url, headers)`` is the library entry point; :mod:`wikihowqa.parse.stage` runs it over
many snapshots in parallel. Pagination: :func:`continuation_urls` names the pages to fetch,
:func:`join_pages` (or :func:`collect_pages`, given a fetch function) joins them.
"""

from wikihowqa.parse.blocks import Block
from wikihowqa.parse.page import REJECTIONS, ParsedPage, ParseSettings, parse_html
from wikihowqa.parse.paginated import collect_pages, continuation_urls, join_pages
from wikihowqa.parse.pagination import Pagination
from wikihowqa.parse.passages import DEFAULT_MAX_WORDS, PassageSpan, passage_spans, split_passages

__all__ = [
    "DEFAULT_MAX_WORDS",
    "REJECTIONS",
    "Block",
    "Pagination",
    "ParseSettings",
    "ParsedPage",
    "PassageSpan",
    "collect_pages",
    "continuation_urls",
    "join_pages",
    "parse_html",
    "passage_spans",
    "split_passages",
]
