"""A small corpus (rendered demo-corpus format) in which every funnel case of the collector appears once.

Articles:
  1001 How to Brew Coffee      summary; 8 references, one of each fate (below); a Tips link (not cited)
  1002 How to Boil Water       summary; the shared reference and a windows-1252 page
  1003 How to Grow Basil       no Quick Summary
  1004 How to Water Plants     summary, no references (only an ordinary link)
  1005 How to Fail Everything  summary; its references are never archived or a PDF
  1006 redirect to 1001; 1007 a Talk page: neither is a content article.

Reference fates: ``brewbasics`` (cited as http:// without www.; captures of 2016 and 2019 differ), ``shared``
(cited by 1001 and 1002), a PDF, a PNG, never archived, archived only as 404/301, a 0-byte capture, a
JavaScript app shell, and a windows-1252 page (charset in the header only).
"""

from __future__ import annotations

import json
from pathlib import Path

TEXT = (
    "Good coffee starts with fresh beans and clean water heated to the right temperature. "
    "Grind the beans just before brewing so the aroma stays in the cup and not in the air. "
    "Measure carefully: a steady ratio of coffee to water gives the same taste every morning. "
)

EXPECTED_FUNNEL = {
    "articles": {"seen": 5, "with_summary": 4, "with_references": 3, "with_usable_document": 2},
    "references": {
        "citations": 12,
        "unique_urls": 10,
        "snapshot_found": 7,
        "fetched": 7,
        "non_empty": 6,
        "html": 4,
        "kept": 3,
    },
}
EXPECTED_REJECTIONS = {
    "article_no_summary": 1,
    "article_no_references": 1,
    "article_no_usable_document": 1,
    "reference_no_snapshot": 2,
    "reference_no_200_capture": 0,
    "reference_redirect_unresolved": 1,  # GONE: its 301 leads to a page never archived
    "reference_redirect_limit": 0,
    "reference_fetch_failed": 0,
    "reference_deferred": 0,
    "reference_capture_not_200": 0,
    "reference_capture_unverified": 0,
    "reference_redirect_outside_archive": 0,
    "reference_empty_body": 1,
    "reference_non_html": 2,
    "reference_too_large": 0,
    "reference_empty_text": 1,
}

BREW = "http://brewbasics.net/guide"
SHARED = "https://shared.example/water"
PDF = "https://docs.example/report.pdf"
PNG = "https://img.example/chart.png"
NEVER = "https://never.example/page"
GONE = "https://gone.example/page"
EMPTY = "https://empty.example/page"
SHELL = "https://app.example/shell"
LATIN = "https://www.latin1.example/page"
NEVER2 = "https://never2.example/x"


def html_page(title: str, marker: str, *, charset: str = "utf-8", meta: bool = True) -> bytes:
    head = f"<meta charset='{charset}'>" if meta else ""
    paragraphs = "".join(f"<p>{TEXT}{marker} paragraph {i}.</p>\n" for i in range(4))
    page = (
        f"<!DOCTYPE html><html><head>{head}<title>{title}</title></head><body>"
        f"<nav><a href='/'>Home</a> <a href='/about'>About</a></nav><main><article><h1>{title}</h1>\n"
        f"{paragraphs}</article></main><footer>Copyright</footer></body></html>"
    )
    return page.encode(charset)


SHELL_PAGE = (
    b"<!doctype html><html><head><meta charset='utf-8'><title>App</title>"
    b"<script src='/static/js/main.js'></script></head><body><div id='root'></div>"
    b"<noscript>You need to enable JavaScript to run this app.</noscript>"
    b"<script>window.__CONFIG__={'api':'/v2'};</script></body></html>"
)


def _article(pageid, title, wikitext, *, revisions, categories=(), summary=None, ns=0, redirect=None):
    revs = [
        {"revid": pageid * 10 + i, "parentid": pageid * 10 + i - 1 if i else 0, "timestamp": ts, "user": "Ed"}
        for i, ts in enumerate(revisions)
    ]
    record = {
        "pageid": pageid,
        "ns": ns,
        "title": title,
        "redirect": redirect,
        "categories": list(categories),
        "revisions": revs,
        "wikitext": wikitext,
        "summary": None,
    }
    if summary is not None:
        content, last = summary
        record["summary"] = {
            "pageid": 50_000_000 + pageid,
            "position": "bottom",
            "last_sentence": last,
            "content": content,
            "timestamp": revisions[-1],
        }
    return record


def write_corpus(root: Path) -> Path:
    root = Path(root)
    (root / "articles").mkdir(parents=True)
    snaps = root / "archive" / "snapshots"
    snaps.mkdir(parents=True)
    site = {
        "sitename": "wikiHow (collect test)",
        "generator": "MediaWiki 1.39.3",
        "lang": "en",
        "articlepath": "/wiki/$1",
        "top_categories": ["Food and Entertaining", "Home and Garden"],
        "category_parents": {
            "Coffee": ["Drinks"],
            "Drinks": ["Food and Entertaining"],
            "Food and Entertaining": [],
            "Herbs": ["Gardening"],
            "Gardening": ["Home and Garden"],
            "Home and Garden": [],
            "Featured Articles": [],
        },
        "hidden_categories": ["Featured Articles"],
    }
    (root / "site.json").write_text(json.dumps(site), encoding="utf-8")
    brew_text = (
        "Coffee rewards patience.\n== Steps ==\n"
        f"# '''Heat the water.'''<ref>{BREW}</ref> Use [[How to Boil Water|boiled water]].\n"
        f'# Use soft water.<ref name="w">[{SHARED} Water guide]</ref> Again.<ref name="w" />\n'
        f"# Read the report.<ref>[{PDF} Report]</ref> See the chart.<ref>{PNG}</ref>\n"
        f"# Old advice.<ref>{NEVER}</ref><ref>{GONE}</ref><ref>{EMPTY}</ref><ref>[{SHELL} App]</ref>\n"
        "== Tips ==\n* Buy a kettle: [https://store.example/kettle kettles].\n"
        "== Quick Summary ==\n{{Summary:How to Brew Coffee}}\n"
        f"== Sources and Citations ==\n{{{{reflist}}}}\n* [{BREW} The guide]\n"
    )
    articles = [
        _article(
            1001,
            "How to Brew Coffee",
            brew_text,
            revisions=["2015-05-01T10:00:00Z", "2019-08-11T09:30:00Z"],
            categories=["Coffee", "Featured Articles"],
            summary=(
                "To brew coffee, heat '''fresh''' water and use [[Coffee Ratio|a steady ratio]].",
                "Finally, serve it hot.",
            ),
        ),
        _article(
            1002,
            "How to Boil Water",
            f"# Fill a pot.<ref>{SHARED}</ref>\n# Heat it.<ref>{LATIN}</ref>\n"
            "== Quick Summary ==\n{{Summary:How to Boil Water}}\n",
            revisions=["2017-01-01T00:00:00Z", "2018-02-02T00:00:00Z"],
            categories=["Drinks"],
            summary=("To boil water, fill a pot and heat it.", "Wait for big bubbles."),
        ),
        _article(
            1003,
            "How to Grow Basil",
            "# Sow seeds.<ref>https://seeds.example/basil</ref>\n",
            revisions=["2016-01-01T00:00:00Z"],
            categories=["Herbs"],
        ),
        _article(
            1004,
            "How to Water Plants",
            "# Water in the morning.\n== Tips ==\n* [https://cans.example/ Watering cans]\n"
            "== Quick Summary ==\n{{Summary:How to Water Plants}}\n",
            revisions=["2016-01-01T00:00:00Z"],
            categories=["Gardening"],
            summary=("Water plants in the morning.", "Do not overwater."),
        ),
        _article(
            1005,
            "How to Fail Everything",
            f"# Step.<ref>{NEVER2}</ref>\n== Sources and Citations ==\n* [{PDF} Report]\n"
            "== Quick Summary ==\n{{Summary:How to Fail Everything}}\n",
            revisions=["2016-01-01T00:00:00Z"],
            categories=["Gardening"],
            summary=("Everything fails here.", "Nothing is kept."),
        ),
        _article(
            1006,
            "How to Make Coffee",
            "#REDIRECT [[How to Brew Coffee]]",
            revisions=["2016-01-01T00:00:00Z"],
            redirect="How to Brew Coffee",
        ),
        _article(1007, "How to Brew Coffee", "Talk about it.", revisions=["2016-01-01T00:00:00Z"], ns=1),
    ]
    for record in articles:
        (root / "articles" / f"{record['pageid']}.json").write_text(json.dumps(record), encoding="utf-8")

    files = {
        "brew-2016.html": html_page("The Brewing Guide", "OLDVERSION"),
        "brew-2019.html": html_page("The Brewing Guide", "NEWVERSION"),
        "shared.html": html_page("Water for Coffee", "SHAREDPAGE"),
        "report.pdf": b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n",
        "chart.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 64,
        "empty.html": b"",
        "shell.html": SHELL_PAGE,
        "latin.html": html_page("Café crème", "CAFÉ", charset="windows-1252", meta=False),
        "404.html": b"<html><body>Not found</body></html>",
    }
    for name, body in files.items():
        (snaps / name).write_bytes(body)
    html = {"Content-Type": "text/html; charset=utf-8"}
    captures = [
        {"url": "https://www.brewbasics.net/guide", "timestamp": "20160301120000", "file": "brew-2016.html"},
        {"url": "https://www.brewbasics.net/guide", "timestamp": "20191001120000", "file": "brew-2019.html"},
        {
            "url": "https://www.brewbasics.net/guide",
            "timestamp": "20190901000000",
            "statuscode": "404",
            "file": "404.html",
        },
        {"url": SHARED, "timestamp": "20180101000000", "file": "shared.html"},
        {
            "url": PDF,
            "timestamp": "20170101000000",
            "file": "report.pdf",
            "mimetype": "application/pdf",
            "headers": {"Content-Type": "application/pdf"},
        },
        {
            "url": PNG,
            "timestamp": "20170101000000",
            "file": "chart.png",
            "mimetype": "image/png",
            "headers": {"Content-Type": "image/png"},
        },
        {"url": GONE, "timestamp": "20170101000000", "statuscode": "404", "file": "404.html"},
        {
            "url": GONE,
            "timestamp": "20180101000000",
            "statuscode": "301",
            "location": "https://gone.example/new",
        },
        {"url": EMPTY, "timestamp": "20170101000000", "file": "empty.html"},
        {"url": SHELL, "timestamp": "20170101000000", "file": "shell.html"},
        {
            "url": LATIN,
            "timestamp": "20170101000000",
            "file": "latin.html",
            "headers": {"Content-Type": "text/html; charset=windows-1252"},
        },
    ]
    with (root / "archive" / "cdx.jsonl").open("w", encoding="utf-8") as fh:
        for c in captures:
            row = {"statuscode": "200", "mimetype": "text/html", "headers": html, **c}
            fh.write(json.dumps(row) + "\n")
    return root
