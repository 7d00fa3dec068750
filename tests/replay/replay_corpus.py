"""Builder of small corpora in the rendered demo-corpus format (docs/demo-corpus.md), for the replay tests.

The real demo corpus is written separately; these tests build their own so every case they check is
visible here: articles with and without a Quick Summary, a redirect, a talk page, a hidden category,
non-ASCII titles, enough pages in one category to need continuation, and captures covering 200/404/301,
scheme and ``www.`` variants, query-parameter order, an empty body, a PDF and a page in windows-1252.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

POUR_OVER = """Pour-over coffee is brewed by hand, one kettle at a time.
== Steps ==
=== Method 1: Setting Up ===
# Rinse the paper filter with hot water.<ref>https://www.brewbasics.net/pour-over-guide</ref>
# Weigh 15 g of coffee per 250 g of water.<ref name="ratio">[http://coffee-lab.org/ratios Ratio chart]</ref>
=== Method 2: Brewing ===
# Pour in slow spirals, '''never''' onto the filter.<ref name="ratio" /> See [[How to Grind Coffee|grinding]].
# Let it drain for ''about'' three minutes.<ref>[https://example.org/report.pdf Brewing report]</ref>
== Tips ==
* A gooseneck kettle helps: [https://www.kettle-store.example/kettles kettles on sale].
== Quick Summary ==
{{Summary:How to Brew Pour-Over Coffee}}
== Sources and Citations ==
{{reflist}}
* [https://www.brewbasics.net/pour-over-guide The Pour-Over Guide]
[[Image:Pour-over.jpg|center]]
"""

CRANE = """Folding a crane takes one square sheet.
== Steps ==
# Fold the square in half diagonally.<ref>https://paperfolds.example/crane</ref>
== Sources and Citations ==
{{reflist}}
"""

BRULEE = """Crème brûlée is a baked custard.
== Steps ==
# Bake the custard in a water bath.<ref>https://desserts.example/creme</ref>
== Quick Summary ==
{{Summary:How to Make Crème Brûlée}}
"""

SITE = {
    "sitename": "wikiHow (test)",
    "generator": "MediaWiki 1.39.3",
    "lang": "en",
    "articlepath": "/wiki/$1",
    "top_categories": ["Food and Entertaining", "Hobbies and Crafts"],
    "category_parents": {
        "Coffee": ["Drinks"],
        "Drinks": ["Food and Entertaining"],
        "Desserts": ["Food and Entertaining"],
        "Origami": ["Paper Crafts"],
        "Paper Crafts": ["Hobbies and Crafts"],
        "Testing": ["Hobbies and Crafts"],
        "Food and Entertaining": [],
        "Hobbies and Crafts": [],
    },
    "hidden_categories": ["Featured Articles"],
}


def revisions(*stamps: str, first_revid: int) -> list[dict[str, Any]]:
    out = []
    for i, ts in enumerate(stamps):
        out.append(
            {
                "revid": first_revid + i,
                "parentid": first_revid + i - 1 if i else 0,
                "timestamp": ts,
                "user": "DemoEditor" if i % 2 == 0 else "DemoEditor2",
                "comment": f"edit {i}",
            }
        )
    return out


def standard_articles() -> list[dict[str, Any]]:
    articles = [
        {
            "pageid": 100001,
            "ns": 0,
            "title": "How to Brew Pour-Over Coffee",
            "redirect": None,
            "categories": ["Coffee", "Featured Articles"],
            "revisions": revisions(
                "2016-04-02T10:00:00Z", "2018-01-20T08:00:00Z", "2019-08-11T09:30:00Z", first_revid=700001
            ),
            "wikitext": POUR_OVER,
            "summary": {
                "pageid": 50100001,
                "position": "bottom",
                "last_sentence": "Finally, let it drain and enjoy.",
                "content": "Rinse the filter, weigh 15 g of coffee per 250 g of water and pour slowly.",
                "timestamp": "2019-08-11T09:31:00Z",
            },
        },
        {
            "pageid": 100002,
            "ns": 0,
            "title": "How to Fold a Paper Crane",
            "redirect": None,
            "categories": ["Origami"],
            "revisions": revisions("2015-01-01T00:00:00Z", first_revid=700010),
            "wikitext": CRANE,
            "summary": None,
        },
        {
            "pageid": 100003,
            "ns": 0,
            "title": "How to Make Crème Brûlée",
            "redirect": None,
            "categories": ["Desserts"],
            "revisions": revisions("2017-03-03T03:03:03Z", "2020-02-02T02:02:02Z", first_revid=700020),
            "wikitext": BRULEE,
            "summary": {
                "pageid": 50100003,
                "position": "top",
                "last_sentence": "Caramelise the sugar on top.",
                "content": "Bake the custard in a water bath until just set.",
                "timestamp": "2020-02-02T02:03:00Z",
            },
        },
        {
            "pageid": 100004,
            "ns": 0,
            "title": "How to Make Pour Over Coffee",
            "redirect": "How to Brew Pour-Over Coffee",
            "categories": [],
            "revisions": revisions("2018-05-05T05:05:05Z", first_revid=700030),
            "wikitext": "#REDIRECT [[How to Brew Pour-Over Coffee]]",
            "summary": None,
        },
        {
            "pageid": 100005,
            "ns": 1,
            "title": "Talk:How to Brew Pour-Over Coffee",
            "redirect": None,
            "categories": [],
            "revisions": revisions("2018-06-06T06:06:06Z", first_revid=700040),
            "wikitext": "Is the ratio right? --~~~~",
            "summary": None,
        },
    ]
    for i in range(12):
        articles.append(
            {
                "pageid": 100100 + i,
                "ns": 0,
                "title": f"How to Test Thing {i:02d}",
                "redirect": None,
                "categories": ["Testing"],
                "revisions": revisions(f"2014-01-{i + 1:02d}T00:00:00Z", first_revid=700100 + i * 2),
                "wikitext": f"Thing {i}.\n== Steps ==\n# Do it.<ref>https://things.example/{i}</ref>\n",
                "summary": None,
            }
        )
    return articles


def html_page(title: str, body: str, charset: str = "utf-8") -> bytes:
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title></head><body><p>{body}</p></body></html>".encode(
            charset
        )
    )


def standard_captures() -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    snaps = {
        "pour-a.html": html_page("The Pour-Over Guide", "Rinse the filter first. (2016)"),
        "pour-b.html": html_page("The Pour-Over Guide", "Rinse the filter first. Updated in 2020."),
        "pour-moved.html": html_page("Pour-over, moved", "The guide moved here."),
        "ratios.html": html_page("Ratios", "Café ratio: 15 g to 250 g — “golden”.", "windows-1252"),
        "report.pdf": b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n",
        "empty.html": b"",
        "list.html": html_page("List", "sorted query"),
        "a1.html": html_page("a1", "a1"),
        "a2.html": html_page("a2", "a2"),
        "blog.html": html_page("blog", "blog"),
        "notfound.html": html_page("Not found", "404"),
    }
    html_utf8 = {"Content-Type": "text/html; charset=utf-8"}
    caps = [
        {
            "url": "https://www.brewbasics.net/pour-over-guide",
            "timestamp": "20160301120000",
            "statuscode": "200",
            "mimetype": "text/html",
            "file": "pour-a.html",
            "headers": {**html_utf8, "Last-Modified": "Tue, 01 Mar 2016 10:00:00 GMT"},
        },
        {
            "url": "https://www.brewbasics.net/pour-over-guide",
            "timestamp": "20180101000000",
            "statuscode": "404",
            "mimetype": "text/html",
            "file": "notfound.html",
            "headers": html_utf8,
        },
        {
            "url": "https://www.brewbasics.net/pour-over-guide",
            "timestamp": "20180601000000",
            "statuscode": "301",
            "mimetype": "text/html",
            "location": "https://www.brewbasics.net/guides/pour-over",
            "headers": {},
        },
        {
            "url": "https://www.brewbasics.net/pour-over-guide",
            "timestamp": "20200101000000",
            "statuscode": "200",
            "mimetype": "text/html",
            "file": "pour-b.html",
            "headers": html_utf8,
        },
        {
            "url": "https://www.brewbasics.net/guides/pour-over",
            "timestamp": "20180601000005",
            "statuscode": "200",
            "mimetype": "text/html",
            "file": "pour-moved.html",
            "headers": html_utf8,
        },
        {
            "url": "http://coffee-lab.org/ratios",
            "timestamp": "20170505000000",
            "statuscode": "200",
            "mimetype": "text/html",
            "file": "ratios.html",
            "headers": {"Content-Type": "text/html; charset=windows-1252"},
        },
        {
            "url": "https://example.org/report.pdf",
            "timestamp": "20190101000000",
            "statuscode": "200",
            "mimetype": "application/pdf",
            "file": "report.pdf",
            "headers": {"Content-Type": "application/pdf"},
        },
        {
            "url": "https://example.org/empty",
            "timestamp": "20190101000000",
            "statuscode": "200",
            "mimetype": "text/html",
            "file": "empty.html",
            "headers": {"Content-Type": "text/html"},
        },
        {
            "url": "https://example.org/list?b=2&a=1",
            "timestamp": "20190202000000",
            "statuscode": "200",
            "mimetype": "text/html",
            "file": "list.html",
            "headers": {},
        },
        {
            "url": "https://www.example.org/a/1",
            "timestamp": "20190303000000",
            "statuscode": "200",
            "mimetype": "text/html",
            "file": "a1.html",
            "headers": html_utf8,
        },
        {
            "url": "https://www.example.org/a/2",
            "timestamp": "20190304000000",
            "statuscode": "200",
            "mimetype": "text/html",
            "file": "a2.html",
            "headers": html_utf8,
        },
        {
            "url": "https://blog.example.org/x",
            "timestamp": "20190305000000",
            "statuscode": "200",
            "mimetype": "text/html",
            "file": "blog.html",
            "headers": html_utf8,
        },
    ]
    return caps, snaps


def write_corpus(
    root: Path,
    *,
    site: dict[str, Any] | None = None,
    articles: list[dict[str, Any]] | None = None,
    captures: list[dict[str, Any]] | None = None,
    snapshots: dict[str, bytes] | None = None,
) -> Path:
    """Write a rendered corpus folder; anything not given is the standard test corpus."""
    std_caps, std_snaps = standard_captures()
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.json").write_text(json.dumps(SITE if site is None else site), encoding="utf-8")
    (root / "articles").mkdir(exist_ok=True)
    for article in standard_articles() if articles is None else articles:
        (root / "articles" / f"{article['pageid']}.json").write_text(json.dumps(article), encoding="utf-8")
    (root / "archive" / "snapshots").mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(c) for c in (std_caps if captures is None else captures)]
    (root / "archive" / "cdx.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, data in (std_snaps if snapshots is None else snapshots).items():
        (root / "archive" / "snapshots" / name).write_bytes(data)
    return root
