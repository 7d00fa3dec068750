"""``action=query``: the page set, then each ``prop``/``list``/``meta`` module in the order named, and the
continuation of the whole (API:Query)."""

from __future__ import annotations

from typing import Any

from wikihowqa.replay.action_api.continuation import init_continue
from wikihowqa.replay.action_api.lists import (
    LIST_MODULES,
    allpages,
    categorymembers,
    logevents,
    page_item,
    querypage,
)
from wikihowqa.replay.action_api.meta import META_MODULES, allmessages, siteinfo, userinfo
from wikihowqa.replay.action_api.pageset import GENERATORS, ordered, page_key, page_set, page_stub
from wikihowqa.replay.action_api.props import (
    IGNORED_PROP_MODULES,
    PROP_MODULES,
    categories,
    categoryinfo,
    info,
    revisions,
)
from wikihowqa.replay.action_api.request import ApiError, Entry, Request
from wikihowqa.replay.wiki import Wiki


def action_query(wiki: Wiki, req: Request, server: str) -> dict[str, Any]:
    props = (
        req.multi("prop", (*PROP_MODULES, *IGNORED_PROP_MODULES), "query", quiet=IGNORED_PROP_MODULES) or []
    )
    props = [p for p in props if p in PROP_MODULES]
    lists = req.multi("list", LIST_MODULES, "query") or []
    metas = req.multi("meta", META_MODULES, "query") or []
    generator = req.get("generator")
    if generator is not None and generator not in GENERATORS:
        raise ApiError("badvalue", f'Unrecognized value for parameter "generator": {generator}.')

    cont = init_continue(req, props, [*props, *lists, *metas])
    result: dict[str, Any] = {}
    query: dict[str, Any] = {}

    entries: list[Entry] = []
    if not cont.generator_done:
        entries = page_set(wiki, req, query, generator, cont)
    good = [e for e in entries if e.kind == "good"]
    pages_out = {id(e): page_stub(e, req) for e in entries}

    for module in cont.modules:
        if module in cont.skip:
            continue
        if module == "revisions":
            revisions(wiki, req, good, pages_out, cont)
        elif module == "categories":
            categories(wiki, req, good, pages_out, cont)
        elif module == "info":
            info(wiki, req, entries, pages_out, server)
        elif module == "categoryinfo":
            categoryinfo(wiki, req, entries, pages_out)
        elif module == "allpages":
            items, nxt = allpages(wiki, req, "ap")
            query["allpages"] = [page_item(wiki, p) for p in items]
            if nxt:
                cont.add("allpages", "apcontinue", nxt)
        elif module == "categorymembers":
            items, nxt = categorymembers(wiki, req, "cm")
            query["categorymembers"] = items
            if nxt:
                cont.add("categorymembers", "cmcontinue", nxt)
        elif module == "siteinfo":
            query.update(siteinfo(wiki, req, server))
        elif module == "userinfo":
            query["userinfo"] = userinfo(req)
        elif module == "allmessages":
            query["allmessages"] = allmessages(req)
        elif module == "querypage":
            name, items, offset = querypage(wiki, req, "qp")
            results = [{"ns": wiki.title_of(p).ns, "title": wiki.title_of(p).prefixed} for p in items]
            query["querypage"] = {"name": name, "results": results}
            if offset is not None:
                cont.add("querypage", "qpoffset", offset)  # MediaWiki writes the offset as a number
        elif module == "logevents":
            items, nxt = logevents(wiki, req)
            query["logevents"] = items
            if nxt:
                cont.add("logevents", "lecontinue", nxt)

    if entries:
        in_order = ordered(entries)
        if req.flag("indexpageids"):
            query["pageids"] = [str(page_key(e)) for e in in_order]
        if req.fv == 2:
            query["pages"] = [pages_out[id(e)] for e in in_order]
        else:
            query["pages"] = {str(page_key(e)): pages_out[id(e)] for e in in_order}
    data, batchcomplete = cont.result()
    if batchcomplete:
        result["batchcomplete"] = req.true()
    if data:
        result["continue"] = data
    if query:
        result["query"] = query
    return result
