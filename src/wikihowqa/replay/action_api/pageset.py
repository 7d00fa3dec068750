"""The page set of ``action=query``: ``titles``/``pageids`` (at most 50), a generator's pages, ``redirects``
resolved, in MediaWiki's order (missing and invalid titles first with fake ids, then pages by id)."""

from __future__ import annotations

from typing import Any

from wikihowqa.replay.action_api.continuation import Continuation
from wikihowqa.replay.action_api.lists import allpages, categorymembers, querypage
from wikihowqa.replay.action_api.props import category_pages
from wikihowqa.replay.action_api.request import ApiError, Entry, Request
from wikihowqa.replay.wiki import InvalidTitle, Wiki

MAX_TITLES = 50
GENERATORS = {"allpages": "gap", "categories": "gcl", "categorymembers": "gcm", "querypage": "gqp"}


def page_set(
    wiki: Wiki, req: Request, query: dict[str, Any], generator: str | None, cont: Continuation
) -> list[Entry]:
    titles = req.multi("titles")
    pageids = req.multi("pageids")
    if req.get("revids") is not None:
        raise ApiError("badvalue", 'Unrecognized parameter: "revids" is not supported by the replay site.')
    if titles is not None and pageids is not None:
        raise ApiError("invalidparammix", 'The parameters "titles" and "pageids" can not be used together.')
    for name, values in (("titles", titles), ("pageids", pageids)):
        if values is not None and len(values) > MAX_TITLES:
            raise ApiError(
                "toomanyvalues",
                f'Too many values supplied for parameter "{name}". The limit is {MAX_TITLES}.',
            )
    entries = _entries(wiki, req, query, titles, pageids)
    if generator is not None:
        source = [e for e in entries if e.kind == "good"]
        entries = _generate(wiki, req, generator, source, cont)
    if req.flag("redirects"):
        entries = _resolve_redirects(wiki, query, entries)
    return entries


def _entries(
    wiki: Wiki, req: Request, query: dict[str, Any], titles: list[str] | None, pageids: list[str] | None
) -> list[Entry]:
    entries: list[Entry] = []
    normalized = []
    for raw in titles or []:
        try:
            title = wiki.parse_title(raw)
        except InvalidTitle as exc:
            entries.append(Entry("invalid", raw=raw, reason=str(exc)))
            continue
        if title.prefixed != raw:
            item: dict[str, Any] = {"from": raw, "to": title.prefixed}
            if req.fv == 2:
                item = {"fromencoded": False, **item}
            normalized.append(item)
        page = wiki.page(title)
        entries.append(Entry("good", page, title) if page else Entry("missing", title=title))
    for raw in pageids or []:
        try:
            pid = int(raw)
        except ValueError:
            raise ApiError("badinteger", f'Invalid value "{raw}" for integer parameter "pageids".') from None
        page = wiki.by_id.get(pid)
        entries.append(Entry("good", page, wiki.title_of(page)) if page else Entry("missingid", pageid=pid))
    if normalized:
        query["normalized"] = normalized
    return _dedupe(entries)


def _dedupe(entries: list[Entry]) -> list[Entry]:
    seen: set[Any] = set()
    out = []
    for e in entries:
        key = (e.kind, e.page.pageid if e.page else (e.title.prefixed if e.title else (e.pageid, e.raw)))
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def _resolve_redirects(wiki: Wiki, query: dict[str, Any], entries: list[Entry]) -> list[Entry]:
    redirects = []
    out = []
    for e in entries:
        if e.kind == "good" and e.page is not None and e.page.redirect is not None:
            title, target = wiki.resolve_redirect(e.page)
            redirects.append({"from": wiki.title_of(e.page).prefixed, "to": title.prefixed})
            out.append(Entry("good", target, title) if target else Entry("missing", title=title))
        else:
            out.append(e)
    if redirects:
        query["redirects"] = redirects
    return _dedupe(out)


def _generate(
    wiki: Wiki, req: Request, generator: str, source: list[Entry], cont: Continuation
) -> list[Entry]:
    prefix = GENERATORS[generator]
    if generator == "allpages":
        pages, nxt = allpages(wiki, req, prefix)
    elif generator == "querypage":
        _, pages, offset = querypage(wiki, req, prefix)
        nxt = offset
    elif generator == "categorymembers":
        items, nxt = categorymembers(wiki, req, prefix, as_pages=True)
        pages = items
    else:
        pages, nxt = category_pages(wiki, req, source, prefix)
    if nxt:
        key = f"{prefix}offset" if generator == "querypage" else f"{prefix}continue"
        cont.generator_data[key] = nxt
    return [Entry("good", p, wiki.title_of(p)) for p in pages]


def ordered(entries: list[Entry]) -> list[Entry]:
    """Missing and invalid titles first (fake ids -1, -2, …), then pages by id, as MediaWiki does."""
    bad = [e for e in entries if e.kind != "good"]
    fake = -1
    for e in bad:
        if e.kind != "missingid":
            e.fake = fake
            fake -= 1
    good = sorted((e for e in entries if e.kind == "good"), key=lambda e: e.page.pageid)  # type: ignore[union-attr]
    return bad + good


def page_key(e: Entry) -> int:
    if e.kind == "good":
        return e.page.pageid  # type: ignore[union-attr]
    if e.kind == "missingid":
        return e.pageid  # type: ignore[return-value]
    return e.fake


def page_stub(e: Entry, req: Request) -> dict[str, Any]:
    if e.kind == "good":
        assert e.page is not None and e.title is not None
        return {"pageid": e.page.pageid, "ns": e.title.ns, "title": e.title.prefixed}
    if e.kind == "missingid":
        return {"pageid": e.pageid, "missing": req.true()}
    if e.kind == "invalid":
        return {"title": e.raw, "invalidreason": e.reason, "invalid": req.true()}
    assert e.title is not None
    return {"ns": e.title.ns, "title": e.title.prefixed, "missing": req.true()}
