"""``prop=`` modules of ``action=query``: ``revisions``, ``categories``, ``info``, ``categoryinfo``
(API:Revisions, API:Categories, API:Info, API:Categoryinfo), each adding to the page records of a page set."""

from __future__ import annotations

import hashlib
import html
from typing import Any
from urllib.parse import quote

from wikihowqa.replay.action_api.continuation import Continuation
from wikihowqa.replay.action_api.request import BADCONTINUE, ApiError, Entry, Request, ts14
from wikihowqa.replay.corpus import Revision, WikiPage
from wikihowqa.replay.page_text import section_text
from wikihowqa.replay.wiki import CATEGORY_NS, InvalidTitle, Wiki, sort_bytes

PROP_MODULES = ("revisions", "categories", "info", "categoryinfo")
IGNORED_PROP_MODULES = ("imageinfo",)  # valid on wikiHow; no page here is a file, so they add nothing
SINGLEPAGE = (
    "titles, pageids or a generator was used to supply multiple pages, but the rvlimit, rvstartid, "
    "rvendid, rvdir=newer, rvuser, rvexcludeuser, rvstart, and rvend parameters may only be used on a "
    "single page."
)
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


def revisions(
    wiki: Wiki, req: Request, good: list[Entry], out: dict[int, dict[str, Any]], cont: Continuation
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
            revs = _enumerate_revisions(wiki, req, page, direction, maximum, cont)
        else:
            revs = [page.revisions[-1]]
        rendered = [_revision(wiki, req, page, r, rvprop, slots, section) for r in revs]
        if rendered or enum_mode:
            out[id(e)]["revisions"] = rendered


def _enumerate_revisions(
    wiki: Wiki, req: Request, page: WikiPage, direction: str, maximum: int, cont: Continuation
) -> list[Revision]:
    limit = req.limit("rvlimit", "revisions", 10, maximum)
    revs = sorted(page.revisions, key=lambda r: (ts14(r.timestamp), r.revid), reverse=direction == "older")
    start, end = req.get("rvstart"), req.get("rvend")
    startid, endid = req.integer("rvstartid"), req.integer("rvendid")
    user, exclude = req.get("rvuser"), req.get("rvexcludeuser")

    def within(r: Revision) -> bool:
        ts = ts14(r.timestamp)
        older = direction == "older"
        if start and (ts > ts14(start) if older else ts < ts14(start)):
            return False
        if end and (ts < ts14(end) if older else ts > ts14(end)):
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
            revs = [r for r in revs if (ts14(r.timestamp), r.revid) <= mark]
        else:
            revs = [r for r in revs if (ts14(r.timestamp), r.revid) >= mark]
    if len(revs) > limit:
        nxt = revs[limit]
        cont.add("revisions", "rvcontinue", f"{ts14(nxt.timestamp)}|{nxt.revid}")
        revs = revs[:limit]
    return revs


def _revision(
    wiki: Wiki,
    req: Request,
    page: WikiPage,
    rev: Revision,
    rvprop: list[str],
    slots: list[str] | None,
    section: int | None,
) -> dict[str, Any]:
    item: dict[str, Any] = {}
    content = wiki.content(page, rev)
    if "ids" in rvprop:
        item["revid"] = rev.revid
        item["parentid"] = rev.parentid
    if "flags" in rvprop and rev.minor:
        item["minor"] = req.true()
    if "user" in rvprop:
        item["user"] = rev.user
    if "userid" in rvprop:
        item["userid"] = wiki.user_ids.get(rev.user, 0)
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
            text = section_text(content, section)
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


def _page_categories(wiki: Wiki, req: Request, page: WikiPage, prefix: str) -> list[str]:
    show = req.multi(f"{prefix}show", ("hidden", "!hidden"), "categories") or []
    if "hidden" in show and "!hidden" in show:
        raise ApiError("show", "Incorrect parameter - mutually exclusive values may not be supplied.")
    only = req.multi(f"{prefix}categories")
    only_names = None
    if only is not None:
        only_names = set()
        for raw in only:
            try:
                t = wiki.parse_title(raw)
            except InvalidTitle:
                continue
            if t.ns == CATEGORY_NS:
                only_names.add(t.text)
    names = sorted(
        {wiki.normalise_part(c) for c in page.categories},
        key=lambda n: sort_bytes(n.replace(" ", "_")),
    )
    out = []
    for name in names:
        hidden = wiki.is_hidden_category(name)
        if ("hidden" in show and not hidden) or ("!hidden" in show and hidden):
            continue
        if only_names is not None and name not in only_names:
            continue
        out.append(name)
    return out


def categories(
    wiki: Wiki, req: Request, good: list[Entry], out: dict[int, dict[str, Any]], cont: Continuation
) -> None:
    clprop = req.multi("clprop", ("sortkey", "timestamp", "hidden"), "categories") or []
    limit = req.limit("cllimit", "categories", 10, 500)
    start = _parse_clcontinue(req.get("clcontinue"))
    emitted = 0
    for e in sorted(good, key=lambda e: e.page.pageid):  # type: ignore[union-attr]
        page = e.page
        assert page is not None
        for name in _page_categories(wiki, req, page, "cl"):
            key = (page.pageid, sort_bytes(name.replace(" ", "_")))
            if start is not None and key < start:
                continue
            if emitted == limit:
                cont.add("categories", "clcontinue", f"{page.pageid}|{name.replace(' ', '_')}")
                return
            item: dict[str, Any] = {"ns": CATEGORY_NS, "title": f"Category:{name}"}
            if "sortkey" in clprop:
                item["sortkey"] = wiki.title_of(page).text.upper().encode("utf-8").hex()
                item["sortkeyprefix"] = ""
            if "timestamp" in clprop:
                item["timestamp"] = page.revisions[0].timestamp
            if "hidden" in clprop and wiki.is_hidden_category(name):
                item["hidden"] = req.true()
            out[id(e)].setdefault("categories", []).append(item)
            emitted += 1


def _parse_clcontinue(raw: str | None) -> tuple[int, bytes] | None:
    if raw is None:
        return None
    parts = raw.split("|", 1)
    if len(parts) != 2 or not parts[0].isdigit():
        raise ApiError("badcontinue", BADCONTINUE)
    return int(parts[0]), sort_bytes(parts[1])


def category_pages(
    wiki: Wiki, req: Request, source: list[Entry], prefix: str
) -> tuple[list[WikiPage], str | None]:
    limit = req.limit(f"{prefix}limit", "categories", 10, 500)
    start = _parse_clcontinue(req.get(f"{prefix}continue"))
    pages: list[WikiPage] = []
    for e in sorted(source, key=lambda e: e.page.pageid):  # type: ignore[union-attr]
        page = e.page
        assert page is not None
        for name in _page_categories(wiki, req, page, prefix):
            key = (page.pageid, sort_bytes(name.replace(" ", "_")))
            if start is not None and key < start:
                continue
            if len(pages) == limit:
                return pages, f"{page.pageid}|{name.replace(' ', '_')}"
            cat = wiki.by_key.get((CATEGORY_NS, name))
            if cat is not None and cat not in pages:
                pages.append(cat)
    return pages, None


def info(wiki: Wiki, req: Request, entries: list[Entry], out: dict[int, dict[str, Any]], server: str) -> None:
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
                "pagelanguage": wiki.site.lang,
                "pagelanguagehtmlcode": wiki.site.lang,
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
            url = server + wiki.site.articlepath.replace("$1", quote(e.title.prefixed_dbkey, safe="/:"))
            item["fullurl"] = url
            item["editurl"] = (
                f"{server}/index.php?title={quote(e.title.prefixed_dbkey, safe=':')}&action=edit"
            )
            item["canonicalurl"] = url
        if "displaytitle" in inprop:
            assert e.title is not None
            item["displaytitle"] = e.title.prefixed


def categoryinfo(wiki: Wiki, req: Request, entries: list[Entry], out: dict[int, dict[str, Any]]) -> None:
    """Member counts of category pages (``size``, ``pages``, ``files``, ``subcats``) and ``hidden``,
    as MediaWiki's category table has them: for a category with a page or with members."""
    for e in entries:
        if e.title is None or e.title.ns != CATEGORY_NS or e.kind not in ("good", "missing"):
            continue
        members = wiki.members.get(e.title.text, [])
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
        hidden = wiki.is_hidden_category(e.title.text)
        if req.fv == 2:
            info["hidden"] = hidden
        elif hidden:
            info["hidden"] = ""
        out[id(e)]["categoryinfo"] = info
