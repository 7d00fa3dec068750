"""The MediaWiki Action API (``/api.php``) over a :class:`~wikihowqa.replay.wiki.Wiki`, JSON only.

Shapes follow MediaWiki 1.39 as documented on mediawiki.org (API:Query, API:Continue, API:Allpages,
API:Revisions, API:Categories, API:Info, API:Siteinfo, API:Errors and warnings, Manual:Maxlag parameter),
for both ``formatversion=1`` (the default: pages keyed by id, ``"*"`` for content, ``""`` for true) and
``formatversion=2`` (pages as a list, ``content``, booleans). This module reads the request's envelope
and writes the answer's; the actions are :mod:`.query` and :mod:`.summary`.

Supported
    ``action=query``: ``titles``/``pageids`` (``|``-separated, at most 50), ``redirects``,
    ``indexpageids``, ``continue`` exactly as ``ApiContinuationManager`` computes it (module skip lists,
    ``batchcomplete``, ``"-||"`` once a generator is done); ``prop=revisions|categories|info``;
    ``prop=categoryinfo``; ``list=allpages|categorymembers|querypage`` (``Uncategorizedcategories``);
    ``generator=allpages|categories|categorymembers|querypage``;
    ``meta=siteinfo|userinfo``. ``action=summary_section`` (wikiHow's, see :mod:`.summary`). ``maxlag``
    (error ``maxlag`` with ``Retry-After`` and ``X-Database-Lag`` when the configured lag exceeds it).
    Errors as ``{"error": {"code", "info", "*"|"docref"}, "servedby"}`` with a ``MediaWiki-API-Error``
    header and HTTP 200, as MediaWiki answers.

Not supported (answered as MediaWiki answers an unknown value, or ignored)
    Formats other than ``json`` (error ``badvalue``; a missing ``format`` is taken as ``json``),
    ``errorformat``, ``rawcontinue``, ``revids``, ``action=parse`` (the collector reads wikitext, never
    rendered HTML), writing actions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from wikihowqa.core.retry_after import retry_after_value
from wikihowqa.replay.action_api.query import action_query
from wikihowqa.replay.action_api.request import ApiError, Request
from wikihowqa.replay.action_api.summary import summary_section
from wikihowqa.replay.reply import Reply
from wikihowqa.replay.wiki import Wiki

DOCREF = (
    "See {server}/api.php for API usage. Subscribe to the mediawiki-api-announce mailing list at "
    "&lt;https://lists.wikimedia.org/postorius/lists/mediawiki-api-announce.lists.wikimedia.org/&gt; "
    "for notice of API deprecations and breaking changes."
)
SERVED_BY = "replay-site"


class MediaWikiApi:
    """Answers one ``api.php`` request at a time, without I/O: the server sends the reply."""

    def __init__(self, wiki: Wiki) -> None:
        self.wiki = wiki

    def handle(self, params: Mapping[str, str], *, server: str, lag_s: float = 0.0) -> Reply:
        fv = 2 if params.get("formatversion") in ("2", "latest") else 1
        req = Request(params, fv=fv)
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "Cache-Control": "private, must-revalidate, max-age=0",
        }
        try:
            fmt = params.get("format", "json")
            if fmt != "json":
                raise ApiError("badvalue", f'Unrecognized value for parameter "format": {fmt}.')
            if fv == 1 and params.get("formatversion") not in (None, "1"):
                raise ApiError(
                    "badvalue",
                    f'Unrecognized value for parameter "formatversion": {params["formatversion"]}.',
                )
            self._check_maxlag(req, lag_s)
            action = params.get("action")
            if action is None:
                raise ApiError("missingparam", 'The "action" parameter must be set.')
            handler: Callable[[Wiki, Request, str], dict[str, Any]] | None = {
                "query": action_query,
                "summary_section": summary_section,
            }.get(action)
            if handler is None:
                raise ApiError("badvalue", f'Unrecognized value for parameter "action": {action}.')
            result = handler(self.wiki, req, server)
        except ApiError as err:
            error = {"code": err.code, "info": err.info, **err.extra}
            error["docref" if fv == 2 else "*"] = DOCREF.format(server=server)
            result = {"error": error, "servedby": SERVED_BY}
            headers["MediaWiki-API-Error"] = err.code
            headers.update(err.headers)
            if req.warnings:
                result = {**self._warnings(req), **result}
            return Reply(200, headers, self._encode(result, req))
        out: dict[str, Any] = {}
        out.update({k: result.pop(k) for k in ("batchcomplete", "continue") if k in result})
        if req.warnings:
            out.update(self._warnings(req))
        if req.limits:
            out["limits"] = req.limits
        out.update(result)
        return Reply(200, headers, self._encode(out, req))

    def _warnings(self, req: Request) -> dict[str, Any]:
        key = "warnings" if req.fv == 2 else "*"
        return {"warnings": {m: {key: "\n".join(msgs)} for m, msgs in req.warnings.items()}}

    @staticmethod
    def _encode(result: Any, req: Request) -> bytes:
        # PHP's json_encode escapes non-ASCII in formatversion 1 unless utf8 is set; version 2 does not.
        ascii_only = ("utf8" not in req.params) if req.fv == 1 else ("ascii" in req.params)
        return json.dumps(result, ensure_ascii=ascii_only, separators=(",", ":")).encode("utf-8")

    @staticmethod
    def _check_maxlag(req: Request, lag_s: float) -> None:
        maxlag = req.integer("maxlag")
        if maxlag is None or lag_s <= maxlag:
            return
        lag = round(lag_s) if float(lag_s).is_integer() else round(lag_s, 3)
        raise ApiError(
            "maxlag",
            f"Waiting for 127.0.0.1: {lag} seconds lagged.",
            extra={"host": "127.0.0.1", "lag": lag, "type": "db"},
            headers={"Retry-After": retry_after_value(max(maxlag, 5)), "X-Database-Lag": str(int(lag_s))},
        )
