"""wikiHow's ``action=summary_section&ss_page=<pageid>``: an article's Quick Summary.

Undocumented on wikiHow; this is the shape the replay site defines (the collector reads the ``Summary:``
pages themselves, through ``action=query``; this serves clients written against wikiHow's endpoint)::

    {"summary_section": {
        "pageid": 100123,                       # the article (a redirect is followed to it)
        "title": "How to Brew Pour-Over Coffee",
        "summary_pageid": 50100123,             # the Summary: page (namespace 30)
        "summary_title": "Summary:How to Brew Pour-Over Coffee",
        "position": "bottom",
        "last_sentence": "Finally, …",
        "content": "To brew pour-over coffee, …",
        "timestamp": "2019-08-11T09:31:00Z"}}   # last edit of the Summary: page

The official answer is ``content + " " + last_sentence``. ``ss_page`` may also be a title. Errors:
``missingparam`` (no ``ss_page``), ``nosuchpageid`` / ``missingtitle`` (no such page), ``nosummary``
(the article has no Quick Summary).
"""

from __future__ import annotations

from typing import Any

from wikihowqa.replay.action_api.request import ApiError, Request
from wikihowqa.replay.page_text import parse_quicksummary
from wikihowqa.replay.wiki import SUMMARY_NS, InvalidTitle, Title, Wiki


def summary_section(wiki: Wiki, req: Request, server: str) -> dict[str, Any]:
    raw = req.get("ss_page")
    if raw is None or raw == "":
        raise ApiError("missingparam", 'The "ss_page" parameter must be set.')
    if raw.strip().isdigit():
        page = wiki.by_id.get(int(raw))
        if page is None:
            raise ApiError("nosuchpageid", f"There is no page with ID {int(raw)}.")
    else:
        try:
            page = wiki.page(wiki.parse_title(raw))
        except InvalidTitle:
            raise ApiError("invalidtitle", f'Bad title "{raw}".') from None
        if page is None:
            raise ApiError("missingtitle", "The page you specified doesn't exist.")
    if page.redirect is not None:
        _, target = wiki.resolve_redirect(page)
        if target is None:
            raise ApiError("missingtitle", "The page you specified doesn't exist.")
        page = target
    title = wiki.title_of(page)
    summary_page = wiki.page(
        Title(SUMMARY_NS, title.prefixed, f"{wiki.namespaces[SUMMARY_NS][0]}:{title.prefixed}")
    )
    parsed = parse_quicksummary(summary_page.wikitext) if summary_page else None
    if summary_page is None or parsed is None:
        raise ApiError("nosummary", f'The page "{title.prefixed}" has no Quick Summary.')
    position, last_sentence, content = parsed
    return {
        "summary_section": {
            "pageid": page.pageid,
            "title": title.prefixed,
            "summary_pageid": summary_page.pageid,
            "summary_title": f"{wiki.namespaces[SUMMARY_NS][0]}:{title.prefixed}",
            "position": position,
            "last_sentence": last_sentence,
            "content": content,
            "timestamp": summary_page.revisions[-1].timestamp,
        }
    }
