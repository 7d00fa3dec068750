"""Lint author B's demo-corpus sources (pageids 150000-199999, pages b-*.yaml) against FORMAT.md.

Run: python tools/democorpus/check_b.py  (exit status 1 when any file breaks a rule).
It checks what the renderer cannot: the brief's content rules (answer length, citations resolving to
written pages, encodability, capture dates) and prints coverage counts for the report.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent
TOP = {
    "Arts and Entertainment",
    "Cars & Other Vehicles",
    "Computers and Electronics",
    "Education and Communications",
    "Family Life",
    "Finance and Business",
    "Food and Entertaining",
    "Health",
    "Hobbies and Crafts",
    "Holidays and Traditions",
    "Home and Garden",
    "Personal Care and Style",
    "Pets and Animals",
    "Philosophy and Religion",
    "Relationships",
    "Sports and Fitness",
    "Travel",
    "Work World",
    "Youth",
}
THEMES = {"news", "blog", "recipe", "forum", "gov", "shop", "magazine", "qa", "edu", "health", "legacy"}
ENCODINGS = {"utf-8", "windows-1252", "iso-8859-1", "shift_jis", "euc-jp"}
DECLARED = {"header", "meta", "both", "none"}
FATES = {"ok", "never_archived", "empty", "pdf", "image", "js_shell", "only_error"}
CASES = {"ok", "no_summary", "no_references", "all_references_fail"}
REF = re.compile(r"<ref(?:\s+name\s*=\s*\"?([^\"/>]+)\"?)?\s*>(.*?)</ref>", re.S)
REUSE = re.compile(r"<ref\s+name\s*=\s*\"?([^\"/>]+?)\"?\s*/>")
URL = re.compile(r"https?://[^\s\]|<]+")

errors: list[str] = []


def err(path: Path, msg: str) -> None:
    errors.append(f"{path.name}: {msg}")


def canon(url: str) -> str:
    """Scheme-, www.- and trailing-slash-insensitive key, like a SURT lookup."""
    u = re.sub(r"^https?://", "", url.strip())
    u = re.sub(r"^www\.", "", u)
    return u.rstrip("/").lower()


def words(text: str) -> int:
    return len(re.findall(r"[\w'’€°-]+", text))


def as_dt(value: object) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    return dt.datetime.strptime(str(value), "%Y-%m-%dT%H:%M:%SZ")


def ts(value: str) -> dt.datetime:
    return dt.datetime.strptime(value, "%Y%m%d%H%M%S")


def check_article(path: Path, a: dict) -> dict:
    need = {"pageid", "title", "category_path", "revisions", "case", "wikitext"}
    if missing := need - a.keys():
        err(path, f"missing keys {sorted(missing)}")
        return {}
    if extra := a.keys() - need - {"summary"}:
        err(path, f"unknown keys {sorted(extra)}")
    pid, title, case, wt = a["pageid"], a["title"], a["case"], a["wikitext"]
    if not (150000 <= pid <= 199999) or not path.name.startswith(f"{pid}-"):
        err(path, f"pageid {pid} out of B's range or not the file prefix")
    if not title.startswith("How to "):
        err(path, "title is not 'How to …'")
    cp = a["category_path"]
    if cp[0] not in TOP or not 3 <= len(cp) <= 4:
        err(path, f"category_path {cp} must be top-level → leaf with 1–2 intermediate levels")
    revs = [as_dt(r) for r in a["revisions"]]
    if not 2 <= len(revs) <= 5 or revs != sorted(revs) or len(set(revs)) != len(revs):
        err(path, "revisions must be 2–5 distinct timestamps, oldest first")
    if revs[0].year < 2012 or revs[0].year > 2020 or revs[-1] >= dt.datetime(2022, 1, 1):
        err(path, "created must be 2012–2020 and modified before 2022")
    if case not in CASES:
        err(path, f"bad case {case}")
    summary = a.get("summary")
    if (summary is None) != (case == "no_summary"):
        err(path, "summary must be null exactly when case is no_summary")
    if summary:
        answer = f"{summary['content']} {summary['last_sentence']}"
        n = words(answer)
        if not 60 <= n <= 120:
            err(path, f"answer has {n} words, want 60–120")
        if f"{{{{Summary:{title}}}}}" not in wt or "== Quick Summary ==" not in wt:
            err(path, "wikitext lacks == Quick Summary == / {{Summary:<title>}}")
    elif "Quick Summary" in wt:
        err(path, "no_summary article must not have a Quick Summary section")
    refs = [(name, body) for name, body in REF.findall(wt)]
    urls = []
    for _, body in refs:
        found = URL.findall(body)
        if len(found) != 1:
            err(path, f"ref without exactly one URL: {body!r}")
        urls += found
    defined = {n.strip() for n, _ in refs if n}
    reused = {n.strip() for n in REUSE.findall(wt)}
    if reused - defined:
        err(path, f"reused ref names never defined: {reused - defined}")
    if case == "no_references":
        if refs or "Sources and Citations" in wt:
            err(path, "no_references article has <ref> or a Sources section")
    else:
        uniq = list(dict.fromkeys(urls))
        if not 3 <= len(uniq) <= 6:
            err(path, f"{len(uniq)} unique cited URLs, want 3–6")
        if "== Sources and Citations ==" not in wt or "{{reflist}}" not in wt:
            err(path, "missing Sources and Citations / {{reflist}}")
        src = wt.split("== Sources and Citations ==", 1)[-1]
        listed = {canon(u) for u in URL.findall(src)}
        if not {canon(u) for u in uniq} <= listed:
            err(path, "Sources list misses some cited URL")
    for sec in ("== Steps ==", "== Tips =="):
        if sec not in wt:
            err(path, f"missing {sec}")
    return {
        "urls": list(dict.fromkeys(urls)),
        "reused": bool(reused),
        "case": case,
        "cat": cp[0],
        "modified": revs[-1],
        "created": revs[0],
        "title": title,
        "pageid": pid,
    }


def check_page(path: Path, p: dict) -> dict:
    need = {"url", "theme", "title", "body", "captures", "fate", "encoding", "charset_declared"}
    if missing := need - p.keys():
        err(path, f"missing keys {sorted(missing)}")
        return {}
    known = need | {"author", "published", "comments", "pages", "view_all"}
    if extra := p.keys() - known:
        err(path, f"unknown keys {sorted(extra)}")
    if not path.name.startswith("b-"):
        err(path, "page file must start with b-")
    if p["theme"] not in THEMES or p["encoding"] not in ENCODINGS or p["charset_declared"] not in DECLARED:
        err(path, "bad theme/encoding/charset_declared")
    body = p["body"]
    texts = [body, p["title"]] + [c["text"] + c["author"] for c in p.get("comments") or []]
    texts += [c.get("update", "") for c in p["captures"]]
    for t in texts:
        try:
            t.encode(p["encoding"])
        except UnicodeEncodeError as e:
            err(path, f"text not encodable in {p['encoding']}: {t[e.start : e.end]!r}")
    if p["encoding"] != "utf-8" and re.search(r"\*[,.;:)]", body):
        err(path, "emphasis right before punctuation: the encoding test's tag-stripping splits the word")
    n = words(re.sub(r"<!-- page -->|\[([^\]]*)\]\([^)]*\)", r"\1", body))
    if not 200 <= n <= 700:
        err(path, f"body has {n} words, want 200–700")
    pages = p.get("pages", 1)
    if body.count("<!-- page -->") != pages - 1:
        err(path, f"pages: {pages} but {body.count('<!-- page -->')} page markers")
    if p.get("view_all") and pages < 2:
        err(path, "view_all without pagination")
    published = p.get("published")
    caps = p["captures"]
    stamps = [c["timestamp"] for c in caps]
    if len(set(stamps)) != len(stamps) or stamps != sorted(stamps):
        err(path, "capture timestamps must be distinct and oldest first")
    for c in caps:
        t = ts(c["timestamp"])
        if not 2012 <= t.year <= 2023:
            err(path, f"capture {c['timestamp']} outside 2012–2023")
        if published and t.date() < published:
            err(path, f"capture {c['timestamp']} before published {published}")
        st = c.get("status", 200)
        if st not in (200, 301, 302, 404):
            err(path, f"bad status {st}")
        if st in (301, 302) and "location" not in c:
            err(path, "redirect capture without location")
    ok = [c for c in caps if c.get("status", 200) == 200]
    ups = [c["update"] for c in caps if c.get("update")]
    if len(set(ups)) != len(ups):
        err(path, "updates accumulate in the renderer: give each update once, on its first capture")
    fate = p["fate"]
    if fate not in FATES:
        err(path, f"bad fate {fate}")
    if fate == "never_archived" and caps:
        err(path, "never_archived page has captures")
    if fate == "only_error" and (ok or not caps):
        err(path, "only_error page needs captures, none 200")
    if fate in {"ok", "empty", "pdf", "image", "js_shell"} and not ok:
        err(path, f"fate {fate} needs a 200 capture")
    if fate == "ok" and len(ok) < 2:
        err(path, "ok page should have several 200 captures")
    for c in p.get("comments") or []:
        if set(c) != {"author", "date", "text"}:
            err(path, f"comment keys {sorted(c)}")
    return {
        "url": p["url"],
        "fate": fate,
        "ok_stamps": sorted(ts(c["timestamp"]) for c in ok),
        "comments": bool(p.get("comments")),
        "table": bool(re.search(r"^\|.*\|\s*$", body, re.M)),
        "pages": pages,
        "view_all": bool(p.get("view_all")),
        "enc": (p["encoding"], p["charset_declared"]),
        "updates": sum(1 for c in caps if c.get("update")),
        "errors": sum(1 for c in caps if c.get("status", 200) != 200),
        "theme": p["theme"],
        "words": n,
        "published": published,
    }


def main() -> int:
    arts = {}
    for f in sorted((ROOT / "articles").glob("1[5-9]*.yaml")):
        arts[f.name] = check_article(f, yaml.safe_load(f.read_text(encoding="utf-8")))
    pages = {}
    for f in sorted((ROOT / "pages").glob("b-*.yaml")):
        pages[f.name] = check_page(f, yaml.safe_load(f.read_text(encoding="utf-8")))
    by_canon = {canon(p["url"]): (name, p) for name, p in pages.items() if p}
    cited_by: dict[str, list[str]] = defaultdict(list)
    mismatched = 0
    for name, a in arts.items():
        for u in a.get("urls", []):
            hit = by_canon.get(canon(u))
            if not hit:
                errors.append(f"{name}: cites {u} but no b-*.yaml page has that URL")
                continue
            cited_by[hit[0]].append(name)
            mismatched += u != hit[1]["url"]
        if a.get("case") == "ok":
            good = [u for u in a["urls"] if (h := by_canon.get(canon(u))) and h[1]["fate"] == "ok"]
            if len(good) < 2:
                errors.append(f"{name}: fewer than 2 usable (fate ok) references")
            for u in good:
                st = by_canon[canon(u)][1]["ok_stamps"]
                if st and st[0] > a["modified"] + dt.timedelta(days=3 * 365):
                    errors.append(f"{name}: {u} first archived > 3 years after the article's last edit")
                pub = by_canon[canon(u)][1]["published"]
                if pub and pub > a["modified"].date():
                    errors.append(f"{name}: cites {u} published after the article's last edit")
    for name in pages:
        if name not in cited_by:
            errors.append(f"{name}: page cited by no article")
    ok_arts = [a for a in arts.values() if a.get("case") == "ok"]
    print(f"articles: {len(arts)} ({Counter(a.get('case') for a in arts.values())})")
    print(f"ok per category: {dict(Counter(a['cat'] for a in ok_arts))}")
    print(f"articles reusing a named ref: {sum(a.get('reused', False) for a in arts.values())}")
    print(f"pages: {len(pages)}  fates: {dict(Counter(p.get('fate') for p in pages.values()))}")
    print(f"themes: {dict(Counter(p.get('theme') for p in pages.values()))}")
    print(
        f"with comments: {sum(p.get('comments', False) for p in pages.values())}, "
        f"with tables: {sum(p.get('table', False) for p in pages.values())}, "
        f"paginated: {sum(p.get('pages', 1) > 1 for p in pages.values())} "
        f"(view_all {sum(p.get('view_all', False) for p in pages.values())}), "
        f"with update captures: {sum(p.get('updates', 0) > 0 for p in pages.values())}, "
        f"with 404/3xx captures: {sum(p.get('errors', 0) > 0 for p in pages.values())}"
    )
    non_utf8 = Counter(p["enc"] for p in pages.values() if p and p["enc"][0] != "utf-8")
    print(f"encodings: {dict(non_utf8)}")
    print(f"pages cited by 2+ articles: {[n for n, c in cited_by.items() if len(set(c)) > 1]}")
    print(f"citations differing from captured URL: {mismatched}")
    ws = [p["words"] for p in pages.values() if p]
    if ws:
        print(f"body words: min {min(ws)} max {max(ws)} total {sum(ws)}")
    for e in errors:
        print("ERROR", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
