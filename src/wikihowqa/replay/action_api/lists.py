"""``list=`` modules of ``action=query`` (also usable as generators): ``allpages``, ``categorymembers``,
``querypage`` and ``logevents`` (API:Allpages, API:Categorymembers, API:Querypage, API:Logevents), each
continued by its own ``…continue``/``…offset`` parameter."""

from __future__ import annotations

from typing import Any

from wikihowqa.replay.action_api.request import BADCONTINUE, ApiError, Request, ts14
from wikihowqa.replay.corpus import WikiPage
from wikihowqa.replay.wiki import CATEGORY_NS, InvalidTitle, Wiki, sort_bytes

LIST_MODULES = ("allpages", "categorymembers", "logevents", "querypage")
#: The special pages ``list=querypage`` answers (MediaWiki has more; the collector asks for this one).
QUERY_PAGES = ("Uncategorizedcategories",)


def querypage(wiki: Wiki, req: Request, prefix: str) -> tuple[str, list[WikiPage], int | None]:
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
        for p in wiki.sorted_pages.get(CATEGORY_NS, [])
        if not p.categories and p.redirect is None and not wiki.is_hidden_category(wiki.title_of(p).text)
    ]
    chunk = found[offset : offset + limit]
    return name, chunk, offset + limit if offset + limit < len(found) else None


def allpages(wiki: Wiki, req: Request, prefix: str) -> tuple[list[WikiPage], str | None]:
    module = "allpages"
    ns = req.integer(f"{prefix}namespace", 0)
    if ns is None or ns < 0 or ns not in wiki.namespaces:
        raise ApiError(
            "badvalue",
            f'Unrecognized value for parameter "{prefix}namespace": {req.get(f"{prefix}namespace")}.',
        )
    limit = req.limit(f"{prefix}limit", module, 10, 500)
    redirects = req.enum(f"{prefix}filterredir", ("all", "redirects", "nonredirects"), "all")
    direction = req.enum(f"{prefix}dir", ("ascending", "descending"), "ascending")
    minsize, maxsize = req.integer(f"{prefix}minsize"), req.integer(f"{prefix}maxsize")

    def key(raw: str | None) -> bytes | None:
        return None if raw is None else sort_bytes(wiki.normalise_part(raw).replace(" ", "_"))

    start = key(req.get(f"{prefix}continue")) or key(req.get(f"{prefix}from"))
    stop = key(req.get(f"{prefix}to"))
    pfx = req.get(f"{prefix}prefix")
    pfx_key = key(pfx) if pfx else None
    pages = list(wiki.sorted_pages.get(ns, []))
    if direction == "descending":
        pages.reverse()
    out: list[WikiPage] = []
    for page in pages:
        k = sort_bytes(wiki.title_of(page).dbkey)
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
            return out, wiki.title_of(page).dbkey
        out.append(page)
    return out, None


def page_item(wiki: Wiki, page: WikiPage) -> dict[str, Any]:
    title = wiki.title_of(page)
    return {"pageid": page.pageid, "ns": title.ns, "title": title.prefixed}


def categorymembers(
    wiki: Wiki, req: Request, prefix: str, *, as_pages: bool = False
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
            title = wiki.parse_title(raw_title)
        except InvalidTitle:
            raise ApiError("invalidtitle", f'Bad title "{raw_title}".') from None
        if title.ns != CATEGORY_NS:
            raise ApiError("invalidcategory", "The category name you entered is not valid.")
        name = title.text
    else:
        pid = req.integer(f"{prefix}pageid")
        page = wiki.by_id.get(pid or 0)
        if page is None or page.ns != CATEGORY_NS:
            raise ApiError("nosuchpageid", f"There is no page with ID {pid}.")
        name = wiki.title_of(page).text
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
        return wiki.title_of(p).text.upper().encode("utf-8")

    order = {"page": 0, "subcat": 1, "file": 2}
    members = sorted(wiki.members.get(name, []), key=lambda p: (order[kind(p)], sortkey(p), p.pageid))
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
        title = wiki.title_of(p)
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


def logevents(wiki: Wiki, req: Request) -> tuple[list[dict[str, Any]], str | None]:
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
    for page in wiki.by_id.values():
        if ns is not None and page.ns != ns:
            continue
        first = page.revisions[0]
        entries.append((ts14(first.timestamp), first.revid, page, first))
    entries.sort(key=lambda e: (e[0], e[1]), reverse=not newer)
    start = None
    raw = req.get("lecontinue")
    if raw is not None:
        stamp, _, logid = raw.partition("|")
        if not logid.isdigit():
            raise ApiError("badcontinue", BADCONTINUE)
        start = (ts14(stamp), int(logid))
    out: list[dict[str, Any]] = []
    for stamp, logid, page, first in entries:
        if start is not None and ((stamp, logid) < start if newer else (stamp, logid) > start):
            continue
        if len(out) == limit:
            return out, f"{stamp}|{logid}"
        title = wiki.title_of(page)
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
