"""The MediaWiki Action API (``/api.php``) over a :class:`~wikihowqa.replay.wiki.Wiki`, JSON only.

Shapes follow MediaWiki 1.39 as documented on mediawiki.org (API:Query, API:Continue, API:Allpages,
API:Revisions, API:Categories, API:Info, API:Siteinfo, API:Parsing wikitext, API:Errors and warnings,
Manual:Maxlag parameter), for both ``formatversion=1`` (the default: pages keyed by id, ``"*"`` for
content, ``""`` for true) and ``formatversion=2`` (pages as a list, ``content``, booleans).

Supported
    ``action=query``: ``titles``/``pageids`` (``|``-separated, at most 50), ``redirects``,
    ``indexpageids``, ``continue`` exactly as ``ApiContinuationManager`` computes it (module skip lists,
    ``batchcomplete``, ``"-||"`` once a generator is done); ``prop=revisions|categories|info``;
    ``prop=categoryinfo``; ``list=allpages|categorymembers|querypage`` (``Uncategorizedcategories``);
    ``generator=allpages|categories|categorymembers|querypage``;
    ``meta=siteinfo|userinfo``. ``action=parse`` (``page``/``pageid``, ``prop`` = text, wikitext,
    categories, externallinks, sections, links, templates, images, revid, displaytitle). ``maxlag``
    (error ``maxlag`` with ``Retry-After`` and ``X-Database-Lag`` when the configured lag exceeds it).
    Errors as ``{"error": {"code", "info", "*"|"docref"}, "servedby"}`` with a ``MediaWiki-API-Error``
    header and HTTP 200, as MediaWiki answers.

Not supported (answered as MediaWiki answers an unknown value, or ignored)
    Formats other than ``json`` (error ``badvalue``; a missing ``format`` is taken as ``json``),
    ``errorformat``, ``rawcontinue``, ``revids``, ``action=parse&text=…``, writing actions.

wikiHow's ``action=summary_section&ss_page=<pageid>`` (undocumented on wikiHow; this is the shape the
replay site defines and the collector relies on)::

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

import hashlib
import html
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from wikihowqa.replay import wikitext as wt
from wikihowqa.replay.corpus import Revision, WikiPage
from wikihowqa.replay.reply import Reply
from wikihowqa.replay.wiki import (
    BROKEN_FILE_CATEGORY,
    BROKEN_FILE_MESSAGE,
    CATEGORY_NS,
    NAMESPACE_ALIASES,
    SUMMARY_NS,
    InvalidTitle,
    Title,
    Wiki,
    sort_bytes,
)

DOCREF = (
    "See {server}/api.php for API usage. Subscribe to the mediawiki-api-announce mailing list at "
    "&lt;https://lists.wikimedia.org/postorius/lists/mediawiki-api-announce.lists.wikimedia.org/&gt; "
    "for notice of API deprecations and breaking changes."
)
SERVED_BY = "replay-site"
MAX_TITLES = 50
BADCONTINUE = "Invalid continue param. You should pass the original value returned by the previous query."
SINGLEPAGE = (
    "titles, pageids or a generator was used to supply multiple pages, but the rvlimit, rvstartid, "
    "rvendid, rvdir=newer, rvuser, rvexcludeuser, rvstart, and rvend parameters may only be used on a "
    "single page."
)
PROP_MODULES = ("revisions", "categories", "info", "categoryinfo")
IGNORED_PROP_MODULES = ("imageinfo",)  # valid on wikiHow; no page here is a file, so they add nothing
LIST_MODULES = ("allpages", "categorymembers", "logevents", "querypage")
META_MODULES = ("siteinfo", "userinfo", "allmessages")
#: The system messages ``meta=allmessages`` knows: the tracking categories this wiki uses (a message
#: ``…-category`` beside its ``…-category-desc``, as MediaWiki's) and one unrelated ``…-category``.
MESSAGES = {
    "accesskey-ca-nstab-category": "c",
    BROKEN_FILE_MESSAGE: BROKEN_FILE_CATEGORY,
    f"{BROKEN_FILE_MESSAGE}-desc": "The page contains a broken file link (a link to embed a file when the "
    "file does not exist).",
    "hidden-category-category": "Hidden categories",
    "hidden-category-category-desc": "The category contains <code>__HIDDENCAT__</code> in its page content.",
}
GENERATORS = {"allpages": "gap", "categories": "gcl", "categorymembers": "gcm", "querypage": "gqp"}
#: The special pages ``list=querypage`` answers (MediaWiki has more; the collector asks for this one).
QUERY_PAGES = ("Uncategorizedcategories",)
RVPROPS = (
    "ids",
    "flags",
    "timestamp",
    "user",
    "userid",
    "size",
    "sha1",
    "contentmodel",
    "comment",
    "parsedcomment",
    "content",
    "tags",
    "roles",
)
PARSE_PROPS = (
    "text",
    "wikitext",
    "categories",
    "externallinks",
    "sections",
    "links",
    "templates",
    "images",
    "revid",
    "displaytitle",
    "langlinks",
    "iwlinks",
    "properties",
    "parsewarnings",
)
PARSE_DEFAULT = (
    "text",
    "langlinks",
    "categories",
    "links",
    "templates",
    "images",
    "externallinks",
    "sections",
    "revid",
    "displaytitle",
    "iwlinks",
    "properties",
    "parsewarnings",
)
USER_RIGHTS = ("read", "edit", "createpage", "createtalk", "writeapi", "viewmywatchlist")


class ApiError(Exception):
    def __init__(
        self,
        code: str,
        info: str,
        *,
        extra: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(info)
        self.code, self.info = code, info
        self.extra = dict(extra or {})
        self.headers = dict(headers or {})


def _ts14(value: str) -> str:
    """An API timestamp (ISO 8601 or 14 digits) as 14 digits, for comparisons."""
    digits = "".join(ch for ch in value if ch.isdigit())
    return digits[:14].ljust(14, "0")


# --------------------------------------------------------------------------- request


@dataclass
class Request:
    params: Mapping[str, str]
    fv: int = 1
    warnings: dict[str, list[str]] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.params.get(name, default)

    def flag(self, name: str) -> bool:
        """MediaWiki booleans are true when present, whatever the value."""
        return name in self.params

    def true(self) -> Any:
        return True if self.fv == 2 else ""

    def warn(self, module: str, message: str) -> None:
        self.warnings.setdefault(module, []).append(message)

    def multi(
        self,
        name: str,
        allowed: tuple[str, ...] | None = None,
        module: str = "main",
        *,
        quiet: tuple[str, ...] = (),
    ) -> list[str] | None:
        raw = self.params.get(name)
        if raw is None:
            return None
        values = raw[1:].split("\x1f") if raw.startswith("\x1f") else raw.split("|")
        out: list[str] = []
        for v in values:
            if v == "" or v in out:
                continue
            if allowed is not None and v not in allowed:
                if v not in quiet:
                    self.warn(module, f'Unrecognized value for parameter "{name}": {v}')
                continue
            out.append(v)
        return out

    def enum(self, name: str, allowed: tuple[str, ...], default: str) -> str:
        value = self.params.get(name, default)
        if value not in allowed:
            raise ApiError("badvalue", f'Unrecognized value for parameter "{name}": {value}.')
        return value

    def integer(self, name: str, default: int | None = None) -> int | None:
        raw = self.params.get(name)
        if raw is None or raw == "":
            return default
        try:
            return int(raw.strip())
        except ValueError:
            raise ApiError("badinteger", f'Invalid value "{raw}" for integer parameter "{name}".') from None

    def limit(self, name: str, module: str, default: int, maximum: int) -> int:
        raw = self.params.get(name)
        if raw == "max":
            self.limits[module] = maximum
            return maximum
        value = self.integer(name, default)
        assert value is not None
        if value > maximum:
            self.warn(module, f'The value "{value}" for parameter "{name}" must be between 1 and {maximum}.')
            return maximum
        if value < 1:
            self.warn(module, f'The value "{value}" for parameter "{name}" must be between 1 and {maximum}.')
            return 1
        return value


# --------------------------------------------------------------------------- page set


@dataclass
class Entry:
    """One page of the page set: found, missing title, missing page id, or invalid title."""

    kind: str  # good | missing | missingid | invalid
    page: WikiPage | None = None
    title: Title | None = None
    pageid: int | None = None
    raw: str = ""
    reason: str = ""
    fake: int = 0


@dataclass
class Continuation:
    modules: list[str]
    props: list[str]
    skip: set[str]
    generator_done: bool
    generator_params: dict[str, str]
    data: dict[str, dict[str, str | int]] = field(default_factory=dict)
    generator_data: dict[str, str | int] = field(default_factory=dict)

    def add(self, module: str, key: str, value: str | int) -> None:
        self.data.setdefault(module, {})[key] = value

    def result(self) -> tuple[dict[str, str | int], bool]:
        """MediaWiki's ``ApiContinuationManager::getContinuation``, reimplemented."""
        finished = [m for m in self.modules if m not in self.data]
        data: dict[str, str | int] = {}
        for module, kvp in self.data.items():
            if module not in self.props:
                for k, v in kvp.items():
                    data.setdefault(k, v)
        prop_data = {m: kvp for m, kvp in self.data.items() if m in self.props}
        batchcomplete = False
        if prop_data:
            for kvp in prop_data.values():
                for k, v in kvp.items():
                    data.setdefault(k, v)
            for k, v in self.generator_params.items():
                data.setdefault(k, v)
            generator_keys = "|".join(self.generator_params)
        elif self.generator_data:
            for k, v in self.generator_data.items():
                data.setdefault(k, v)
            finished = [m for m in finished if m not in self.props]
            generator_keys = "|".join(self.generator_data)
            batchcomplete = True
        else:
            generator_keys = "-"
            batchcomplete = True
        if data or generator_keys != "-":
            data["continue"] = generator_keys + "||" + "|".join(finished)
        return data, batchcomplete


# --------------------------------------------------------------------------- the API


class MediaWikiApi:
    def __init__(self, wiki: Wiki) -> None:
        self.wiki = wiki

    # ------------------------------------------------------------------ entry point

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
            handler: Callable[[Request, str], dict[str, Any]] | None = {
                "query": self._query,
                "parse": self._parse,
                "summary_section": self._summary_section,
            }.get(action)
            if handler is None:
                raise ApiError("badvalue", f'Unrecognized value for parameter "action": {action}.')
            result = handler(req, server)
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
            headers={"Retry-After": str(max(maxlag, 5)), "X-Database-Lag": str(int(lag_s))},
        )

    # ------------------------------------------------------------------ action=query

    def _query(self, req: Request, server: str) -> dict[str, Any]:
        props = (
            req.multi("prop", (*PROP_MODULES, *IGNORED_PROP_MODULES), "query", quiet=IGNORED_PROP_MODULES)
            or []
        )
        props = [p for p in props if p in PROP_MODULES]
        lists = req.multi("list", LIST_MODULES, "query") or []
        metas = req.multi("meta", META_MODULES, "query") or []
        generator = req.get("generator")
        if generator is not None and generator not in GENERATORS:
            raise ApiError("badvalue", f'Unrecognized value for parameter "generator": {generator}.')

        cont = self._init_continue(req, props, [*props, *lists, *metas])
        result: dict[str, Any] = {}
        query: dict[str, Any] = {}

        entries: list[Entry] = []
        if not cont.generator_done:
            entries = self._pageset(req, query, generator, cont)
        good = [e for e in entries if e.kind == "good"]
        pages_out = {id(e): self._page_stub(e, req) for e in entries}

        for module in cont.modules:
            if module in cont.skip:
                continue
            if module == "revisions":
                self._revisions(req, good, pages_out, cont)
            elif module == "categories":
                self._categories(req, good, pages_out, cont)
            elif module == "info":
                self._info(req, entries, pages_out, server)
            elif module == "categoryinfo":
                self._categoryinfo(req, entries, pages_out)
            elif module == "allpages":
                items, nxt = self._allpages(req, "ap")
                query["allpages"] = [self._item(p) for p in items]
                if nxt:
                    cont.add("allpages", "apcontinue", nxt)
            elif module == "categorymembers":
                items, nxt = self._categorymembers(req, "cm")
                query["categorymembers"] = items
                if nxt:
                    cont.add("categorymembers", "cmcontinue", nxt)
            elif module == "siteinfo":
                query.update(self._siteinfo(req, server))
            elif module == "userinfo":
                query["userinfo"] = self._userinfo(req)
            elif module == "allmessages":
                query["allmessages"] = self._allmessages(req)
            elif module == "querypage":
                name, items, offset = self._querypage(req, "qp")
                results = [
                    {"ns": self.wiki.title_of(p).ns, "title": self.wiki.title_of(p).prefixed} for p in items
                ]
                query["querypage"] = {"name": name, "results": results}
                if offset is not None:
                    cont.add("querypage", "qpoffset", offset)  # MediaWiki writes the offset as a number
            elif module == "logevents":
                items, nxt = self._logevents(req)
                query["logevents"] = items
                if nxt:
                    cont.add("logevents", "lecontinue", nxt)

        if entries:
            ordered = self._order(entries)
            if req.flag("indexpageids"):
                query["pageids"] = [str(self._key(e)) for e in ordered]
            if req.fv == 2:
                query["pages"] = [pages_out[id(e)] for e in ordered]
            else:
                query["pages"] = {str(self._key(e)): pages_out[id(e)] for e in ordered}
        data, batchcomplete = cont.result()
        if batchcomplete:
            result["batchcomplete"] = req.true()
        if data:
            result["continue"] = data
        if query:
            result["query"] = query
        return result

    def _init_continue(self, req: Request, props: list[str], modules: list[str]) -> Continuation:
        raw = req.get("continue", "")
        skip: set[str] = set()
        done = False
        gen_params: dict[str, str] = {}
        if raw:
            parts = raw.split("||")
            if len(parts) != 2:
                raise ApiError("badcontinue", BADCONTINUE)
            done = parts[0] == "-"
            skip = {s for s in parts[1].split("|") if s}
            if done:
                skip |= set(props)
            elif parts[0]:
                gen_params = {k: req.params[k] for k in parts[0].split("|") if k in req.params}
        seen: list[str] = []
        for m in modules:
            if m not in seen:
                seen.append(m)
        return Continuation(seen, props, skip, done, gen_params)

    # ------------------------------------------------------------------ page set

    def _pageset(
        self, req: Request, query: dict[str, Any], generator: str | None, cont: Continuation
    ) -> list[Entry]:
        titles = req.multi("titles")
        pageids = req.multi("pageids")
        if req.get("revids") is not None:
            raise ApiError(
                "badvalue", 'Unrecognized parameter: "revids" is not supported by the replay site.'
            )
        if titles is not None and pageids is not None:
            raise ApiError(
                "invalidparammix", 'The parameters "titles" and "pageids" can not be used together.'
            )
        for name, values in (("titles", titles), ("pageids", pageids)):
            if values is not None and len(values) > MAX_TITLES:
                raise ApiError(
                    "toomanyvalues",
                    f'Too many values supplied for parameter "{name}". The limit is {MAX_TITLES}.',
                )
        entries = self._entries(req, query, titles, pageids)
        if generator is not None:
            source = [e for e in entries if e.kind == "good"]
            entries = self._generate(req, generator, source, cont)
        if req.flag("redirects"):
            entries = self._resolve_redirects(req, query, entries)
        return entries

    def _entries(
        self, req: Request, query: dict[str, Any], titles: list[str] | None, pageids: list[str] | None
    ) -> list[Entry]:
        entries: list[Entry] = []
        normalized = []
        for raw in titles or []:
            try:
                title = self.wiki.parse_title(raw)
            except InvalidTitle as exc:
                entries.append(Entry("invalid", raw=raw, reason=str(exc)))
                continue
            if title.prefixed != raw:
                item: dict[str, Any] = {"from": raw, "to": title.prefixed}
                if req.fv == 2:
                    item = {"fromencoded": False, **item}
                normalized.append(item)
            page = self.wiki.page(title)
            entries.append(Entry("good", page, title) if page else Entry("missing", title=title))
        for raw in pageids or []:
            try:
                pid = int(raw)
            except ValueError:
                raise ApiError(
                    "badinteger", f'Invalid value "{raw}" for integer parameter "pageids".'
                ) from None
            page = self.wiki.by_id.get(pid)
            entries.append(
                Entry("good", page, self.wiki.title_of(page)) if page else Entry("missingid", pageid=pid)
            )
        if normalized:
            query["normalized"] = normalized
        return self._dedupe(entries)

    @staticmethod
    def _dedupe(entries: list[Entry]) -> list[Entry]:
        seen: set[Any] = set()
        out = []
        for e in entries:
            key = (e.kind, e.page.pageid if e.page else (e.title.prefixed if e.title else (e.pageid, e.raw)))
            if key not in seen:
                seen.add(key)
                out.append(e)
        return out

    def _resolve_redirects(self, req: Request, query: dict[str, Any], entries: list[Entry]) -> list[Entry]:
        redirects = []
        out = []
        for e in entries:
            if e.kind == "good" and e.page is not None and e.page.redirect is not None:
                title, target = self.wiki.resolve_redirect(e.page)
                redirects.append({"from": self.wiki.title_of(e.page).prefixed, "to": title.prefixed})
                out.append(Entry("good", target, title) if target else Entry("missing", title=title))
            else:
                out.append(e)
        if redirects:
            query["redirects"] = redirects
        return self._dedupe(out)

    def _generate(self, req: Request, generator: str, source: list[Entry], cont: Continuation) -> list[Entry]:
        prefix = GENERATORS[generator]
        if generator == "allpages":
            pages, nxt = self._allpages(req, prefix)
        elif generator == "querypage":
            _, pages, offset = self._querypage(req, prefix)
            nxt = offset
        elif generator == "categorymembers":
            items, nxt = self._categorymembers(req, prefix, as_pages=True)
            pages = items
        else:
            pages, nxt = self._category_pages(req, source, prefix)
        if nxt:
            key = f"{prefix}offset" if generator == "querypage" else f"{prefix}continue"
            cont.generator_data[key] = nxt
        return [Entry("good", p, self.wiki.title_of(p)) for p in pages]

    def _order(self, entries: list[Entry]) -> list[Entry]:
        """Missing and invalid titles first (fake ids -1, -2, …), then pages by id, as MediaWiki does."""
        bad = [e for e in entries if e.kind != "good"]
        fake = -1
        for e in bad:
            if e.kind != "missingid":
                e.fake = fake
                fake -= 1
        good = sorted((e for e in entries if e.kind == "good"), key=lambda e: e.page.pageid)  # type: ignore[union-attr]
        return bad + good

    def _key(self, e: Entry) -> int:
        if e.kind == "good":
            return e.page.pageid  # type: ignore[union-attr]
        if e.kind == "missingid":
            return e.pageid  # type: ignore[return-value]
        return e.fake

    def _page_stub(self, e: Entry, req: Request) -> dict[str, Any]:
        if e.kind == "good":
            assert e.page is not None and e.title is not None
            return {"pageid": e.page.pageid, "ns": e.title.ns, "title": e.title.prefixed}
        if e.kind == "missingid":
            return {"pageid": e.pageid, "missing": req.true()}
        if e.kind == "invalid":
            return {"title": e.raw, "invalidreason": e.reason, "invalid": req.true()}
        assert e.title is not None
        return {"ns": e.title.ns, "title": e.title.prefixed, "missing": req.true()}

    # ------------------------------------------------------------------ prop=revisions

    def _revisions(
        self, req: Request, good: list[Entry], out: dict[int, dict[str, Any]], cont: Continuation
    ) -> None:
        rvprop = req.multi("rvprop", RVPROPS, "revisions")
        if rvprop is None:
            rvprop = ["ids", "timestamp", "flags", "comment", "user"]
        slots = req.multi("rvslots", ("main", "*"), "revisions")
        enum_params = ("rvlimit", "rvstartid", "rvendid", "rvuser", "rvexcludeuser", "rvstart", "rvend")
        direction = req.enum("rvdir", ("older", "newer"), "older")
        enum_mode = any(req.get(p) is not None for p in enum_params) or direction == "newer"
        if enum_mode and len(good) > 1:
            raise ApiError("invalidparammix", SINGLEPAGE)
        section = req.integer("rvsection")
        if "content" in rvprop and slots is None:
            req.warn(
                "revisions",
                'Because "rvslots" was not specified, a legacy format has been used for the '
                "output. This format is deprecated, and in the future the new format will always be used.",
            )
        maximum = 50 if "content" in rvprop else 500
        for e in good:
            page = e.page
            assert page is not None
            if enum_mode:
                revs = self._enumerate_revisions(req, page, direction, maximum, cont)
            else:
                revs = [page.revisions[-1]]
            rendered = [self._revision(req, page, r, rvprop, slots, section) for r in revs]
            if rendered or enum_mode:
                out[id(e)]["revisions"] = rendered

    def _enumerate_revisions(
        self, req: Request, page: WikiPage, direction: str, maximum: int, cont: Continuation
    ) -> list[Revision]:
        limit = req.limit("rvlimit", "revisions", 10, maximum)
        revs = sorted(
            page.revisions, key=lambda r: (_ts14(r.timestamp), r.revid), reverse=direction == "older"
        )
        start, end = req.get("rvstart"), req.get("rvend")
        startid, endid = req.integer("rvstartid"), req.integer("rvendid")
        user, exclude = req.get("rvuser"), req.get("rvexcludeuser")

        def within(r: Revision) -> bool:
            ts = _ts14(r.timestamp)
            older = direction == "older"
            if start and (ts > _ts14(start) if older else ts < _ts14(start)):
                return False
            if end and (ts < _ts14(end) if older else ts > _ts14(end)):
                return False
            if startid is not None and (r.revid > startid if older else r.revid < startid):
                return False
            if endid is not None and (r.revid < endid if older else r.revid > endid):
                return False
            return not (user and r.user != user) and not (exclude and r.user == exclude)

        revs = [r for r in revs if within(r)]
        raw = req.get("rvcontinue")
        if raw is not None:
            parts = raw.split("|")
            if len(parts) != 2 or not all(p.isdigit() for p in parts):
                raise ApiError("badcontinue", BADCONTINUE)
            mark = (parts[0].ljust(14, "0"), int(parts[1]))
            if direction == "older":
                revs = [r for r in revs if (_ts14(r.timestamp), r.revid) <= mark]
            else:
                revs = [r for r in revs if (_ts14(r.timestamp), r.revid) >= mark]
        if len(revs) > limit:
            nxt = revs[limit]
            cont.add("revisions", "rvcontinue", f"{_ts14(nxt.timestamp)}|{nxt.revid}")
            revs = revs[:limit]
        return revs

    def _revision(
        self,
        req: Request,
        page: WikiPage,
        rev: Revision,
        rvprop: list[str],
        slots: list[str] | None,
        section: int | None,
    ) -> dict[str, Any]:
        item: dict[str, Any] = {}
        content = self.wiki.content(page, rev)
        if "ids" in rvprop:
            item["revid"] = rev.revid
            item["parentid"] = rev.parentid
        if "flags" in rvprop and rev.minor:
            item["minor"] = req.true()
        if "user" in rvprop:
            item["user"] = rev.user
        if "userid" in rvprop:
            item["userid"] = self.wiki.user_ids.get(rev.user, 0)
        if "timestamp" in rvprop:
            item["timestamp"] = rev.timestamp
        if "size" in rvprop:
            item["size"] = len(content.encode("utf-8"))
        if "sha1" in rvprop:
            item["sha1"] = hashlib.sha1(content.encode("utf-8")).hexdigest()
        if "comment" in rvprop:
            item["comment"] = rev.comment
        if "parsedcomment" in rvprop:
            item["parsedcomment"] = html.escape(rev.comment, quote=False)
        if "tags" in rvprop:
            item["tags"] = []
        if "roles" in rvprop:
            item["roles"] = ["main"]
        if "contentmodel" in rvprop and slots is None:
            item["contentmodel"] = "wikitext"
        if "content" in rvprop:
            if section is not None:
                text = wt.section_text(content, section)
                if text is None:
                    raise ApiError("nosuchsection", f"There is no section {section} in r{rev.revid}.")
                content = text
            key = "content" if req.fv == 2 else "*"
            body = {"contentmodel": "wikitext", "contentformat": "text/x-wiki", key: content}
            if slots is None:
                item.update(body)
            else:
                item["slots"] = {"main": body}
        return item

    # ------------------------------------------------------------------ prop=categories

    def _page_categories(self, req: Request, page: WikiPage, prefix: str) -> list[str]:
        show = req.multi(f"{prefix}show", ("hidden", "!hidden"), "categories") or []
        if "hidden" in show and "!hidden" in show:
            raise ApiError("show", "Incorrect parameter - mutually exclusive values may not be supplied.")
        only = req.multi(f"{prefix}categories")
        only_names = None
        if only is not None:
            only_names = set()
            for raw in only:
                try:
                    t = self.wiki.parse_title(raw)
                except InvalidTitle:
                    continue
                if t.ns == CATEGORY_NS:
                    only_names.add(t.text)
        names = sorted(
            {self.wiki.normalise_part(c) for c in page.categories},
            key=lambda n: sort_bytes(n.replace(" ", "_")),
        )
        out = []
        for name in names:
            hidden = self.wiki.is_hidden_category(name)
            if ("hidden" in show and not hidden) or ("!hidden" in show and hidden):
                continue
            if only_names is not None and name not in only_names:
                continue
            out.append(name)
        return out

    def _categories(
        self, req: Request, good: list[Entry], out: dict[int, dict[str, Any]], cont: Continuation
    ) -> None:
        clprop = req.multi("clprop", ("sortkey", "timestamp", "hidden"), "categories") or []
        limit = req.limit("cllimit", "categories", 10, 500)
        start = self._parse_clcontinue(req.get("clcontinue"))
        emitted = 0
        for e in sorted(good, key=lambda e: e.page.pageid):  # type: ignore[union-attr]
            page = e.page
            assert page is not None
            for name in self._page_categories(req, page, "cl"):
                key = (page.pageid, sort_bytes(name.replace(" ", "_")))
                if start is not None and key < start:
                    continue
                if emitted == limit:
                    cont.add("categories", "clcontinue", f"{page.pageid}|{name.replace(' ', '_')}")
                    return
                item: dict[str, Any] = {"ns": CATEGORY_NS, "title": f"Category:{name}"}
                if "sortkey" in clprop:
                    item["sortkey"] = self.wiki.title_of(page).text.upper().encode("utf-8").hex()
                    item["sortkeyprefix"] = ""
                if "timestamp" in clprop:
                    item["timestamp"] = page.revisions[0].timestamp
                if "hidden" in clprop and self.wiki.is_hidden_category(name):
                    item["hidden"] = req.true()
                out[id(e)].setdefault("categories", []).append(item)
                emitted += 1

    @staticmethod
    def _parse_clcontinue(raw: str | None) -> tuple[int, bytes] | None:
        if raw is None:
            return None
        parts = raw.split("|", 1)
        if len(parts) != 2 or not parts[0].isdigit():
            raise ApiError("badcontinue", BADCONTINUE)
        return int(parts[0]), sort_bytes(parts[1])

    def _category_pages(
        self, req: Request, source: list[Entry], prefix: str
    ) -> tuple[list[WikiPage], str | None]:
        limit = req.limit(f"{prefix}limit", "categories", 10, 500)
        start = self._parse_clcontinue(req.get(f"{prefix}continue"))
        pages: list[WikiPage] = []
        for e in sorted(source, key=lambda e: e.page.pageid):  # type: ignore[union-attr]
            page = e.page
            assert page is not None
            for name in self._page_categories(req, page, prefix):
                key = (page.pageid, sort_bytes(name.replace(" ", "_")))
                if start is not None and key < start:
                    continue
                if len(pages) == limit:
                    return pages, f"{page.pageid}|{name.replace(' ', '_')}"
                cat = self.wiki.by_key.get((CATEGORY_NS, name))
                if cat is not None and cat not in pages:
                    pages.append(cat)
        return pages, None

    # ------------------------------------------------------------------ prop=info

    def _info(self, req: Request, entries: list[Entry], out: dict[int, dict[str, Any]], server: str) -> None:
        inprop = (
            req.multi(
                "inprop",
                (
                    "protection",
                    "talkid",
                    "watched",
                    "watchers",
                    "visitingwatchers",
                    "notificationtimestamp",
                    "subjectid",
                    "associatedpage",
                    "url",
                    "preload",
                    "displaytitle",
                    "varianttitles",
                    "linkclasses",
                ),
                "info",
            )
            or []
        )
        for e in entries:
            if e.kind not in ("good", "missing"):
                continue
            item = out[id(e)]
            item.update(
                {
                    "contentmodel": "wikitext",
                    "pagelanguage": self.wiki.site.lang,
                    "pagelanguagehtmlcode": self.wiki.site.lang,
                    "pagelanguagedir": "ltr",
                }
            )
            if e.kind == "good":
                page = e.page
                assert page is not None
                item["touched"] = page.revisions[-1].timestamp
                item["lastrevid"] = page.revisions[-1].revid
                item["length"] = len(page.wikitext.encode("utf-8"))
                if page.redirect is not None:
                    item["redirect"] = req.true()
                if len(page.revisions) == 1:
                    item["new"] = req.true()
            if "protection" in inprop:
                item["protection"] = []
                item["restrictiontypes"] = ["edit", "move"] if e.kind == "good" else ["create"]
            if "url" in inprop:
                assert e.title is not None
                url = server + self.wiki.site.articlepath.replace(
                    "$1", quote(e.title.prefixed_dbkey, safe="/:")
                )
                item["fullurl"] = url
                item["editurl"] = (
                    f"{server}/index.php?title={quote(e.title.prefixed_dbkey, safe=':')}&action=edit"
                )
                item["canonicalurl"] = url
            if "displaytitle" in inprop:
                assert e.title is not None
                item["displaytitle"] = e.title.prefixed

    # ------------------------------------------------------------------ prop=categoryinfo

    def _categoryinfo(self, req: Request, entries: list[Entry], out: dict[int, dict[str, Any]]) -> None:
        """Member counts of category pages (``size``, ``pages``, ``files``, ``subcats``) and ``hidden``,
        as MediaWiki's category table has them: for a category with a page or with members."""
        for e in entries:
            if e.title is None or e.title.ns != CATEGORY_NS or e.kind not in ("good", "missing"):
                continue
            members = self.wiki.members.get(e.title.text, [])
            if e.kind == "missing" and not members:
                continue
            subcats = sum(1 for p in members if p.ns == CATEGORY_NS)
            files = sum(1 for p in members if p.ns == 6)
            info: dict[str, Any] = {
                "size": len(members),
                "pages": len(members) - subcats - files,
                "files": files,
                "subcats": subcats,
            }
            hidden = self.wiki.is_hidden_category(e.title.text)
            if req.fv == 2:
                info["hidden"] = hidden
            elif hidden:
                info["hidden"] = ""
            out[id(e)]["categoryinfo"] = info

    # ------------------------------------------------------------------ list=querypage

    def _querypage(self, req: Request, prefix: str) -> tuple[str, list[WikiPage], int | None]:
        """``Special:UncategorizedCategories`` (the category pages in no category, in title order), with
        ``limit`` and ``offset``. A hidden category is in MediaWiki's tracking category "Hidden
        categories", so never uncategorized."""
        name = req.get(f"{prefix}page")
        if name is None:
            raise ApiError("missingparam", f'The "{prefix}page" parameter must be set.')
        if name not in QUERY_PAGES:
            raise ApiError("badvalue", f'Unrecognized value for parameter "{prefix}page": {name}.')
        limit = req.limit(f"{prefix}limit", "querypage", 10, 500)
        offset = req.integer(f"{prefix}offset", 0) or 0
        found = [
            p
            for p in self.wiki.sorted_pages.get(CATEGORY_NS, [])
            if not p.categories
            and p.redirect is None
            and not self.wiki.is_hidden_category(self.wiki.title_of(p).text)
        ]
        chunk = found[offset : offset + limit]
        return name, chunk, offset + limit if offset + limit < len(found) else None

    # ------------------------------------------------------------------ list=allpages

    def _allpages(self, req: Request, prefix: str) -> tuple[list[WikiPage], str | None]:
        module = "allpages"
        ns = req.integer(f"{prefix}namespace", 0)
        if ns is None or ns < 0 or ns not in self.wiki.namespaces:
            raise ApiError(
                "badvalue",
                f'Unrecognized value for parameter "{prefix}namespace": {req.get(f"{prefix}namespace")}.',
            )
        limit = req.limit(f"{prefix}limit", module, 10, 500)
        redirects = req.enum(f"{prefix}filterredir", ("all", "redirects", "nonredirects"), "all")
        direction = req.enum(f"{prefix}dir", ("ascending", "descending"), "ascending")
        minsize, maxsize = req.integer(f"{prefix}minsize"), req.integer(f"{prefix}maxsize")

        def key(raw: str | None) -> bytes | None:
            return None if raw is None else sort_bytes(self.wiki.normalise_part(raw).replace(" ", "_"))

        start = key(req.get(f"{prefix}continue")) or key(req.get(f"{prefix}from"))
        stop = key(req.get(f"{prefix}to"))
        pfx = req.get(f"{prefix}prefix")
        pfx_key = key(pfx) if pfx else None
        pages = list(self.wiki.sorted_pages.get(ns, []))
        if direction == "descending":
            pages.reverse()
        out: list[WikiPage] = []
        for page in pages:
            k = sort_bytes(self.wiki.title_of(page).dbkey)
            if direction == "ascending":
                if (start is not None and k < start) or (stop is not None and k > stop):
                    continue
            elif (start is not None and k > start) or (stop is not None and k < stop):
                continue
            if pfx_key is not None and not k.startswith(pfx_key):
                continue
            if redirects == "redirects" and page.redirect is None:
                continue
            if redirects == "nonredirects" and page.redirect is not None:
                continue
            size = len(page.wikitext.encode("utf-8"))
            if (minsize is not None and size < minsize) or (maxsize is not None and size > maxsize):
                continue
            if len(out) == limit:
                return out, self.wiki.title_of(page).dbkey
            out.append(page)
        return out, None

    def _item(self, page: WikiPage) -> dict[str, Any]:
        title = self.wiki.title_of(page)
        return {"pageid": page.pageid, "ns": title.ns, "title": title.prefixed}

    # ------------------------------------------------------------------ list=categorymembers

    def _categorymembers(
        self, req: Request, prefix: str, *, as_pages: bool = False
    ) -> tuple[list[Any], str | None]:
        module = "categorymembers"
        raw_title, raw_id = req.get(f"{prefix}title"), req.get(f"{prefix}pageid")
        if raw_title is None and raw_id is None:
            raise ApiError(
                "missingparam", f'One of the parameters "{prefix}title" and "{prefix}pageid" is required.'
            )
        if raw_title is not None and raw_id is not None:
            raise ApiError(
                "invalidparammix",
                f'The parameters "{prefix}title" and "{prefix}pageid" can not be used together.',
            )
        if raw_title is not None:
            try:
                title = self.wiki.parse_title(raw_title)
            except InvalidTitle:
                raise ApiError("invalidtitle", f'Bad title "{raw_title}".') from None
            if title.ns != CATEGORY_NS:
                raise ApiError("invalidcategory", "The category name you entered is not valid.")
            name = title.text
        else:
            pid = req.integer(f"{prefix}pageid")
            page = self.wiki.by_id.get(pid or 0)
            if page is None or page.ns != CATEGORY_NS:
                raise ApiError("nosuchpageid", f"There is no page with ID {pid}.")
            name = self.wiki.title_of(page).text
        namespaces = req.multi(f"{prefix}namespace")
        wanted_ns = {int(n) for n in namespaces if n.lstrip("-").isdigit()} if namespaces else None
        types = req.multi(f"{prefix}type", ("page", "subcat", "file"), module) or ["page", "subcat", "file"]
        cmprop = req.multi(
            f"{prefix}prop", ("ids", "title", "sortkey", "sortkeyprefix", "type", "timestamp"), module
        ) or ["ids", "title"]
        limit = req.limit(f"{prefix}limit", module, 10, 500)

        def kind(p: WikiPage) -> str:
            return "subcat" if p.ns == CATEGORY_NS else "file" if p.ns == 6 else "page"

        def sortkey(p: WikiPage) -> bytes:
            return self.wiki.title_of(p).text.upper().encode("utf-8")

        order = {"page": 0, "subcat": 1, "file": 2}
        members = sorted(
            self.wiki.members.get(name, []), key=lambda p: (order[kind(p)], sortkey(p), p.pageid)
        )
        start = None
        raw_cont = req.get(f"{prefix}continue")
        if raw_cont is not None:
            parts = raw_cont.split("|")
            if len(parts) != 3 or parts[0] not in order or not parts[2].isdigit():
                raise ApiError("badcontinue", BADCONTINUE)
            try:
                start = (order[parts[0]], bytes.fromhex(parts[1]), int(parts[2]))
            except ValueError:
                raise ApiError("badcontinue", BADCONTINUE) from None
        out: list[Any] = []
        for p in members:
            if kind(p) not in types or (wanted_ns is not None and p.ns not in wanted_ns):
                continue
            k = (order[kind(p)], sortkey(p), p.pageid)
            if start is not None and k < start:
                continue
            if len(out) == limit:
                return out, f"{kind(p)}|{sortkey(p).hex()}|{p.pageid}"
            if as_pages:
                out.append(p)
                continue
            title = self.wiki.title_of(p)
            item: dict[str, Any] = {}
            if "ids" in cmprop:
                item["pageid"] = p.pageid
            if "title" in cmprop:
                item["ns"] = title.ns
                item["title"] = title.prefixed
            if "sortkey" in cmprop:
                item["sortkey"] = sortkey(p).hex()
            if "sortkeyprefix" in cmprop:
                item["sortkeyprefix"] = ""
            if "type" in cmprop:
                item["type"] = kind(p)
            if "timestamp" in cmprop:
                item["timestamp"] = p.revisions[0].timestamp
            out.append(item)
        return out, None

    # ------------------------------------------------------------------ meta

    def _siteinfo(self, req: Request, server: str) -> dict[str, Any]:
        siprop = req.multi(
            "siprop",
            ("general", "namespaces", "namespacealiases", "statistics"),
            "siteinfo",
            quiet=(
                "interwikimap",
                "specialpagealiases",
                "magicwords",
                "extensions",
                "rightsinfo",
                "languages",
                "skins",
                "usergroups",
                "fileextensions",
                "libraries",
                "extensiontags",
                "functionhooks",
                "showhooks",
                "defaultoptions",
                "uploaddialog",
                "dbrepllag",
                "restrictions",
                "languagevariants",
            ),
        )
        siprop = siprop or ["general"]
        site = self.wiki.site
        out: dict[str, Any] = {}
        if "general" in siprop:
            out["general"] = {
                "mainpage": "Main Page",
                "base": server + site.articlepath.replace("$1", "Main_Page"),
                "sitename": site.sitename,
                "mainpageisdomainroot": False if req.fv == 2 else None,
                "logo": f"{server}/skins/owl/images/wikihow_logo.png",
                "generator": site.generator,
                "phpversion": "8.1.0",
                "phpsapi": "fpm-fcgi",
                "dbtype": "mysql",
                "case": "first-letter",
                "lang": site.lang,
                "fallback": [],
                "articlepath": site.articlepath,
                "scriptpath": "",
                "script": "/index.php",
                "server": server,
                "servername": server.split("://", 1)[-1].split(":", 1)[0],
                "wikiid": "wikihow_replay",
                "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "timezone": "UTC",
                "timeoffset": 0,
                "maxarticlesize": 2097152,
            }
            if req.fv == 1:
                del out["general"]["mainpageisdomainroot"]
        if "namespaces" in siprop:
            spaces = {}
            for ns, (name, canonical) in sorted(self.wiki.namespaces.items()):
                item: dict[str, Any] = {"id": ns, "case": "first-letter"}
                if req.fv == 2:
                    item.update(
                        {
                            "name": name,
                            "subpages": ns in (1, 2, 3, 4, 5, 12, 13, 31),
                            "content": ns == 0,
                            "nonincludable": False,
                        }
                    )
                    if ns:
                        item["canonical"] = canonical
                else:
                    if ns in (1, 2, 3, 4, 5, 12, 13, 31):
                        item["subpages"] = ""
                    if ns:
                        item["canonical"] = canonical
                    if ns == 0:
                        item["content"] = ""
                    item["*"] = name
                spaces[str(ns)] = item
            out["namespaces"] = spaces
        if "namespacealiases" in siprop:
            key = "alias" if req.fv == 2 else "*"
            out["namespacealiases"] = [{"id": ns, key: alias} for alias, ns in NAMESPACE_ALIASES.items()]
        if "statistics" in siprop:
            pages = self.wiki.by_id.values()
            out["statistics"] = {
                "pages": len(pages),
                "articles": sum(1 for p in pages if p.ns == 0 and p.redirect is None),
                "edits": sum(len(p.revisions) for p in pages),
                "images": 0,
                "users": len(self.wiki.user_ids),
                "activeusers": 0,
                "admins": 0,
                "jobs": 0,
            }
        return out

    def _allmessages(self, req: Request) -> list[dict[str, Any]]:
        """``meta=allmessages`` with ``amfilter`` (a substring of the name, as MediaWiki matches it)."""
        needle = req.get("amfilter") or ""
        key = "content" if req.fv == 2 else "*"
        return [
            {"name": name, "normalizedname": name, key: text}
            for name, text in sorted(MESSAGES.items())
            if needle in name
        ]

    def _logevents(self, req: Request) -> tuple[list[dict[str, Any]], str | None]:
        """``list=logevents&letype=create``: one entry per page, at its first revision, newest first
        (``ledir=newer``: oldest first); continued by ``lecontinue=<timestamp>|<logid>``."""
        module = "logevents"
        letype = req.get("letype")
        if letype not in (None, "create"):
            return [], None  # this wiki logs nothing else
        limit = req.limit("lelimit", module, 10, 500)
        ns = req.integer("lenamespace")
        newer = req.enum("ledir", ("newer", "older"), "older") == "newer"
        entries = []
        for page in self.wiki.by_id.values():
            if ns is not None and page.ns != ns:
                continue
            first = page.revisions[0]
            entries.append((_ts14(first.timestamp), first.revid, page, first))
        entries.sort(key=lambda e: (e[0], e[1]), reverse=not newer)
        start = None
        raw = req.get("lecontinue")
        if raw is not None:
            stamp, _, logid = raw.partition("|")
            if not logid.isdigit():
                raise ApiError("badcontinue", BADCONTINUE)
            start = (_ts14(stamp), int(logid))
        out: list[dict[str, Any]] = []
        for stamp, logid, page, first in entries:
            if start is not None and ((stamp, logid) < start if newer else (stamp, logid) > start):
                continue
            if len(out) == limit:
                return out, f"{stamp}|{logid}"
            title = self.wiki.title_of(page)
            out.append(
                {
                    "logid": logid,
                    "ns": title.ns,
                    "title": title.prefixed,
                    "pageid": page.pageid,
                    "logpage": page.pageid,
                    "params": {},
                    "type": "create",
                    "action": "create",
                    "user": first.user,
                    "timestamp": first.timestamp,
                    "comment": first.comment,
                }
            )
        return out, None

    def _userinfo(self, req: Request) -> dict[str, Any]:
        uiprop = req.multi("uiprop") or []
        info: dict[str, Any] = {"id": 0, "name": "127.0.0.1", "anon": req.true()}
        if "groups" in uiprop:
            info["groups"] = ["*"]
        if "rights" in uiprop:
            info["rights"] = list(USER_RIGHTS)
        if "editcount" in uiprop:
            info["editcount"] = 0
        return info

    # ------------------------------------------------------------------ action=parse

    def _target(self, req: Request, page_param: str, id_param: str) -> tuple[WikiPage, Title]:
        raw, raw_id = req.get(page_param), req.get(id_param)
        if raw is None and raw_id is None:
            raise ApiError(
                "missingparam", f'One of the parameters "{page_param}" and "{id_param}" is required.'
            )
        if raw is not None and raw_id is not None:
            raise ApiError(
                "invalidparammix", f'The parameters "{page_param}" and "{id_param}" can not be used together.'
            )
        if raw_id is not None:
            pid = req.integer(id_param)
            page = self.wiki.by_id.get(pid or 0)
            if page is None:
                raise ApiError("nosuchpageid", f"There is no page with ID {pid}.")
            return page, self.wiki.title_of(page)
        try:
            title = self.wiki.parse_title(raw or "")
        except InvalidTitle:
            raise ApiError("invalidtitle", f'Bad title "{raw}".') from None
        page = self.wiki.page(title)
        if page is None:
            raise ApiError("missingtitle", "The page you specified doesn't exist.")
        return page, title

    def _parse(self, req: Request, server: str) -> dict[str, Any]:
        if req.get("text") is not None:
            raise ApiError("badvalue", 'Unrecognized parameter: "text" is not supported by the replay site.')
        page, title = self._target(req, "page", "pageid")
        out: dict[str, Any] = {}
        if req.flag("redirects") and page.redirect is not None:
            target_title, target = self.wiki.resolve_redirect(page)
            if target is None:
                raise ApiError("missingtitle", "The page you specified doesn't exist.")
            out["redirects"] = [{"from": title.prefixed, "to": target_title.prefixed}]
            page, title = target, target_title
        props = req.multi("prop", PARSE_PROPS, "parse")
        if props is None:
            props = list(PARSE_DEFAULT)
        text = page.wikitext
        out["title"] = title.prefixed
        out["pageid"] = page.pageid
        if "revid" in props:
            out["revid"] = page.revisions[-1].revid
        s = req.fv == 2
        if "text" in props:
            ctx = wt.RenderContext(
                href=lambda t: self.wiki.site.articlepath.replace(
                    "$1", quote(t.replace(" ", "_"), safe="/:")
                ),
                exists=self._exists,
                template=self._template_text,
            )
            rendered = wt.render_html(text, ctx)
            out["text"] = rendered if s else {"*": rendered}
        if "langlinks" in props:
            out["langlinks"] = []
        if "categories" in props:
            cats = []
            for name in sorted({self.wiki.normalise_part(c) for c in page.categories}, key=sort_bytes):
                item: dict[str, Any] = {"sortkey": ""}
                if self.wiki.is_hidden_category(name):
                    item["hidden"] = req.true()
                item["category" if s else "*"] = name.replace(" ", "_")
                cats.append(item)
            out["categories"] = cats
        if "links" in props:
            out["links"] = [self._link_item(t, req) for t in wt.internal_links(text)]
        if "templates" in props:
            out["templates"] = [self._link_item(t, req, default_ns=10) for t in wt.templates(text)]
        if "images" in props:
            out["images"] = wt.images(text)
        if "externallinks" in props:
            out["externallinks"] = wt.external_links(text)
        if "sections" in props:
            out["sections"] = [
                {
                    "toclevel": x.toclevel,
                    "level": str(x.level),
                    "line": wt.plain(x.line),
                    "number": x.number,
                    "index": str(x.index),
                    "fromtitle": title.prefixed_dbkey,
                    "byteoffset": x.byteoffset,
                    "anchor": x.anchor,
                    "linkAnchor": x.anchor,
                }
                for x in wt.sections(text)
            ]
        if "parsewarnings" in props:
            out["parsewarnings"] = []
        if "displaytitle" in props:
            out["displaytitle"] = title.prefixed
        if "iwlinks" in props:
            out["iwlinks"] = []
        if "properties" in props:
            out["properties"] = [] if not s else {}
        if "wikitext" in props:
            out["wikitext"] = text if s else {"*": text}
        return {"parse": out}

    def _exists(self, raw: str) -> bool:
        try:
            return self.wiki.page(self.wiki.parse_title(raw)) is not None
        except InvalidTitle:
            return False

    def _template_text(self, name: str) -> str | None:
        try:
            title = self.wiki.parse_title(name, default_ns=10)
        except InvalidTitle:
            return None
        page = self.wiki.page(title)
        return None if page is None else page.wikitext

    def _link_item(self, raw: str, req: Request, default_ns: int = 0) -> dict[str, Any]:
        try:
            title = self.wiki.parse_title(raw, default_ns=default_ns)
        except InvalidTitle:
            return {"ns": default_ns, "title" if req.fv == 2 else "*": raw}
        item: dict[str, Any] = {"ns": title.ns}
        if self.wiki.page(title) is not None:
            item["exists"] = req.true()
        elif req.fv == 2:
            item["exists"] = False
        item["title" if req.fv == 2 else "*"] = title.prefixed
        return item

    # ------------------------------------------------------------------ action=summary_section

    def _summary_section(self, req: Request, server: str) -> dict[str, Any]:
        raw = req.get("ss_page")
        if raw is None or raw == "":
            raise ApiError("missingparam", 'The "ss_page" parameter must be set.')
        if raw.strip().isdigit():
            page = self.wiki.by_id.get(int(raw))
            if page is None:
                raise ApiError("nosuchpageid", f"There is no page with ID {int(raw)}.")
        else:
            try:
                page = self.wiki.page(self.wiki.parse_title(raw))
            except InvalidTitle:
                raise ApiError("invalidtitle", f'Bad title "{raw}".') from None
            if page is None:
                raise ApiError("missingtitle", "The page you specified doesn't exist.")
        if page.redirect is not None:
            _, target = self.wiki.resolve_redirect(page)
            if target is None:
                raise ApiError("missingtitle", "The page you specified doesn't exist.")
            page = target
        title = self.wiki.title_of(page)
        summary_page = self.wiki.page(
            Title(SUMMARY_NS, title.prefixed, f"{self.wiki.namespaces[SUMMARY_NS][0]}:{title.prefixed}")
        )
        parsed = wt.parse_quicksummary(summary_page.wikitext) if summary_page else None
        if summary_page is None or parsed is None:
            raise ApiError("nosummary", f'The page "{title.prefixed}" has no Quick Summary.')
        position, last_sentence, content = parsed
        return {
            "summary_section": {
                "pageid": page.pageid,
                "title": title.prefixed,
                "summary_pageid": summary_page.pageid,
                "summary_title": f"{self.wiki.namespaces[SUMMARY_NS][0]}:{title.prefixed}",
                "position": position,
                "last_sentence": last_sentence,
                "content": content,
                "timestamp": summary_page.revisions[-1].timestamp,
            }
        }
