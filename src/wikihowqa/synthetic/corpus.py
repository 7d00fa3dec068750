"""A generated corpus in the rendered demo-corpus format, of any size, for load tests and benchmarks.

The hand-written demo corpus is small by design (a few dozen references); measuring request rates or
killing a build at many points needs thousands. Articles here are generated: each has a Quick Summary,
cites ``refs_per_article`` pages (every other article shares one URL with its predecessor, so
deduplication is exercised), and every page has two HTML captures two years apart.

With ``fates=True`` pages meet what cited pages meet in a real archive (shares in :data:`FATES`, an
assumption, not a measurement): never archived; an error capture (404) right at the article's last
edit with a 200 two years before; moved (a 301 capture near the edit, to a new URL archived after it);
only a redirect capture, whose target holds the page. These are the cases where the archive's own
choice of capture differs from the capture rule's, so they are what a faster lookup must get right.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

_VOCABULARY = (
    "water coffee garden soil bread oven kettle filter light seed paint brush wall floor clean rinse "
    "measure weigh pour stir heat cool dry store plant prune grow harvest bake knead rest slice "
    "serve check adjust repeat gently slowly carefully often daily weekly minutes hours degrees "
    "grams cups small large fresh warm cold thin thick smooth rough even steady simple useful common "
    "safe "
)
_WORDS = _VOCABULARY.split()
_TOPS = {
    "Food and Entertaining": ["Drinks", "Baking"],
    "Home and Garden": ["Gardening", "Cleaning"],
    "Hobbies and Crafts": ["Painting", "Woodworking"],
}


def _sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def _page(rng: random.Random, title: str, paragraphs: int) -> bytes:
    body = "\n".join(
        f"<p>{' '.join(_sentence(rng, rng.randint(8, 16)) for _ in range(rng.randint(3, 5)))}</p>"
        for _ in range(paragraphs)
    )
    html = (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body><header><nav><a href='/'>Home</a></nav></header><main><article><h1>{title}</h1>\n"
        f"{body}\n</article></main><footer>© Example</footer></body></html>"
    )
    return html.encode("utf-8")


#: Shares of the capture fates of ``fates=True`` (the rest: two 200 captures).
FATES = {"never_archived": 0.15, "error_near_edit": 0.08, "moved": 0.05, "redirect_only": 0.02}


def _fate(rng: random.Random) -> str:
    draw, edge = rng.random(), 0.0
    for name, share in FATES.items():
        edge += share
        if draw < edge:
            return name
    return "normal"


def write_synthetic_corpus(
    out: Path,
    articles: int = 50,
    refs_per_article: int = 4,
    seed: int = 0,
    first_pageid: int = 200_000,
    *,
    fates: bool = False,
) -> Path:
    """Write a corpus folder under ``out`` (created) and return it."""
    rng = random.Random(seed)
    out = Path(out)
    (out / "articles").mkdir(parents=True, exist_ok=True)
    (out / "archive" / "snapshots").mkdir(parents=True, exist_ok=True)
    parents: dict[str, list[str]] = {}
    leaves: list[str] = []
    for top, children in _TOPS.items():
        parents[top] = []
        for child in children:
            parents[child] = [top]
            leaves.append(child)
    site = {
        "sitename": "wikiHow (synthetic)",
        "generator": "MediaWiki 1.39.3",
        "lang": "en",
        "articlepath": "/wiki/$1",
        "top_categories": list(_TOPS),
        "category_parents": parents,
    }
    (out / "site.json").write_text(json.dumps(site, indent=1), encoding="utf-8")
    cdx: list[dict] = []
    previous_url: str | None = None
    for i in range(articles):
        pageid = first_pageid + i
        title = f"How to Do Generated Task {i:05d}"
        year = 2012 + i % 8
        urls = [
            f"https://site{(i * 7 + k) % 97}.example/guides/task-{i}-{k}" for k in range(refs_per_article)
        ]
        shared = previous_url if i % 2 == 1 else None
        if shared is not None:
            urls[-1] = shared  # cited by the previous article too
        previous_url = urls[0]
        steps = "\n".join(
            f"# {_sentence(rng, 10)}<ref>[{url} Source {k}]</ref>" for k, url in enumerate(urls)
        )
        wikitext = (
            f"{_sentence(rng, 20)}\n== Steps ==\n{steps}\n== Tips ==\n"
            f"* See [https://shop.example/item-{i} a shop] (not a reference).\n"
            f"== Quick Summary ==\n{{{{Summary:{title}}}}}\n== Sources and Citations ==\n{{{{reflist}}}}\n"
        )
        created, modified = f"{year}-03-01T10:00:00Z", f"{year + 2}-06-15T12:00:00Z"
        record = {
            "pageid": pageid,
            "ns": 0,
            "title": title,
            "redirect": None,
            "categories": [leaves[i % len(leaves)]],
            "revisions": [
                {
                    "revid": 10 * pageid,
                    "parentid": 0,
                    "timestamp": created,
                    "user": "Gen",
                    "comment": "created",
                },
                {"revid": 10 * pageid + 1, "parentid": 10 * pageid, "timestamp": modified, "user": "Gen"},
            ],
            "wikitext": wikitext,
            "summary": {
                "pageid": 50_000_000 + pageid,
                "position": "bottom",
                "last_sentence": _sentence(rng, 12),
                "content": " ".join(_sentence(rng, 14) for _ in range(4)),
                "timestamp": modified,
            },
        }
        (out / "articles" / f"{pageid}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
        for k, url in enumerate(urls):
            if url == shared:
                continue  # archived with the article that cited it first
            fate = _fate(rng) if fates else "normal"
            plan: list[tuple[str, str, str, str | None]] = []  # url, timestamp, status, location
            if fate == "normal":
                plan = [(url, f"{year}0401000000", "200", None), (url, f"{year + 2}0701000000", "200", None)]
            elif fate == "error_near_edit":
                plan = [(url, f"{year}0401000000", "200", None), (url, f"{year + 2}0614000000", "404", None)]
            elif fate == "moved":
                moved = url.replace("/guides/", "/moved/")
                plan = [
                    (url, f"{year}0401000000", "200", None),
                    (url, f"{year + 2}0601000000", "301", moved),
                    (moved, f"{year + 2}0602000000", "200", None),
                ]
            elif fate == "redirect_only":
                moved = url.replace("/guides/", "/moved/")
                plan = [
                    (url, f"{year + 1}0101000000", "301", moved),
                    (moved, f"{year + 1}0102000000", "200", None),
                ]
            for version, (where, stamp, status, location) in enumerate(plan):
                row = {
                    "url": where,
                    "timestamp": stamp,
                    "statuscode": status,
                    "mimetype": "text/html",
                    "headers": {"Content-Type": "text/html; charset=utf-8"},
                }
                if location is not None:
                    row["location"] = location
                    row["headers"] = {**row["headers"], "Location": location}
                else:
                    name = f"p{pageid}-{k}-{version}.html"
                    (out / "archive" / "snapshots" / name).write_bytes(_page(rng, f"Guide {i}.{k}", 4))
                    row["file"] = name
                cdx.append(row)
    (out / "archive" / "cdx.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cdx), encoding="utf-8")
    return out
