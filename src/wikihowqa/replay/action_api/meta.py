"""``meta=`` modules of ``action=query``: ``siteinfo``, ``userinfo`` and ``allmessages`` (API:Siteinfo,
API:Userinfo, API:Allmessages)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from wikihowqa.replay.action_api.request import Request
from wikihowqa.replay.wiki import BROKEN_FILE_CATEGORY, BROKEN_FILE_MESSAGE, NAMESPACE_ALIASES, Wiki

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
USER_RIGHTS = ("read", "edit", "createpage", "createtalk", "writeapi", "viewmywatchlist")


def siteinfo(wiki: Wiki, req: Request, server: str) -> dict[str, Any]:
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
    site = wiki.site
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
        for ns, (name, canonical) in sorted(wiki.namespaces.items()):
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
        pages = wiki.by_id.values()
        out["statistics"] = {
            "pages": len(pages),
            "articles": sum(1 for p in pages if p.ns == 0 and p.redirect is None),
            "edits": sum(len(p.revisions) for p in pages),
            "images": 0,
            "users": len(wiki.user_ids),
            "activeusers": 0,
            "admins": 0,
            "jobs": 0,
        }
    return out


def allmessages(req: Request) -> list[dict[str, Any]]:
    """``meta=allmessages`` with ``amfilter`` (a substring of the name, as MediaWiki matches it)."""
    needle = req.get("amfilter") or ""
    key = "content" if req.fv == 2 else "*"
    return [
        {"name": name, "normalizedname": name, key: text}
        for name, text in sorted(MESSAGES.items())
        if needle in name
    ]


def userinfo(req: Request) -> dict[str, Any]:
    uiprop = req.multi("uiprop") or []
    info: dict[str, Any] = {"id": 0, "name": "127.0.0.1", "anon": req.true()}
    if "groups" in uiprop:
        info["groups"] = ["*"]
    if "rights" in uiprop:
        info["rights"] = list(USER_RIGHTS)
    if "editcount" in uiprop:
        info["editcount"] = 0
    return info
