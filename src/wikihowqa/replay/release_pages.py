"""An archive holding a published release's captures: for ``hydrate``'s demo, tests and benchmark.

Each released document becomes one capture at exactly the release's URL and timestamp
(``…/web/<timestamp>/<original url>``): an HTML page whose main text is the document's passages, inside the
chrome a real site wraps it in (header and navigation, breadcrumbs, share buttons, advertisement slots, a
sidebar of popular posts, a footer, scripts). Passages that are boilerplate the release's own parser kept
(cookie notices, e-mail sign-up boxes, affiliate disclosures: :func:`boilerplate_kind`) are placed where
such text sits on a page (a cookie banner, a sidebar box, the footer), not in the article.
"""

from __future__ import annotations

import html
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from wikihowqa.replay.corpus import Capture, Corpus, SiteInfo, sha1_base32, surt_key

_WAYBACK = re.compile(r"^https?://[^/\s]+/(?:[^\s]*/)?(\d{14})(?:[a-z]{2}_)?/(https?://\S+)$")
_KINDS = (
    (
        "cookie",
        re.compile(
            r"^necessary cookies\b|\b(uses|use) cookies\b|\bcookies (that|which) are categori[sz]ed\b"
            r"|\bcookies\b.*\b(consent|opt-out|necessary)\b",
            re.I,
        ),
    ),
    ("signup", re.compile(r"^(sign up|subscribe)\b.*\b(e-?mail|newsletter|posts)\b", re.I)),
    (
        "disclosure",
        re.compile(r"\b(Amazon Services LLC Associates Program|affiliate advertising program)\b", re.I),
    ),
)
_TOPICS = (
    "10 Tools Every Homeowner Needs",
    "What to Plant in Early Spring",
    "A Beginner's Guide to Budgeting",
    "How We Organised Our Garage in a Weekend",
    "The Easiest Weeknight Dinners",
    "Reader Questions: Your Top 5 Answered",
)


def boilerplate_kind(passage: str) -> str | None:
    """``cookie``, ``signup`` or ``disclosure`` for a passage that is site chrome, else ``None``."""
    return next((kind for kind, pattern in _KINDS if pattern.search(passage)), None)


def split_address(archive_url: str) -> tuple[str, str]:
    """``(timestamp, original url)`` of a Wayback archive URL."""
    m = _WAYBACK.match(archive_url)
    if not m:
        raise ValueError(f"not a Wayback archive URL: {archive_url!r}")
    return m.group(1), m.group(2)


def _site_name(url: str) -> str:
    host = (urlsplit(url).hostname or "example.org").removeprefix("www.")
    return host.split(".")[0].replace("-", " ").title()


def page_html(url: str, title: str | None, passages: Sequence[str], *, year: str = "2020") -> bytes:
    """A page of a site at ``url`` whose article is ``passages`` (boilerplate ones in the chrome)."""
    e = html.escape
    site = _site_name(url)
    heading = title or site
    seed = zlib.crc32(url.encode())
    article: list[str] = []
    chrome: dict[str, list[str]] = {"cookie": [], "signup": [], "disclosure": []}
    for i, passage in enumerate(passages):
        kind = boilerplate_kind(passage)
        if kind is not None:
            chrome[kind].append(f"<p>{e(passage)}</p>")
            continue
        article.append(f"<p>{e(passage)}</p>")
        if i % 7 == 6:
            article.append('<div class="ad-slot" data-ad="in-content"><span>Advertisement</span></div>')
    topics = [_TOPICS[(seed + k) % len(_TOPICS)] for k in range(4)]
    popular = "".join(
        f'<li><a href="/{re.sub(r"[^a-z0-9]+", "-", t.lower()).strip("-")}/">{e(t)}</a></li>' for t in topics
    )
    signup = chrome["signup"] or ["<p>Get our best tips in your inbox every week.</p>"]
    cookie = (
        f'<div id="cookie-notice" class="cookie-banner" role="dialog">{"".join(chrome["cookie"])}'
        '<button class="accept">Accept</button></div>'
        if chrome["cookie"]
        else ""
    )
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{e(heading)} | {e(site)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/wp-content/themes/{e(site.lower().replace(" ", "-"))}/style.css">
<script>window.dataLayer = window.dataLayer || []; function gtag(){{dataLayer.push(arguments);}}</script>
</head>
<body class="post-template-default single single-post">
<header class="site-header">
<a class="site-logo" href="/">{e(site)}</a>
<nav class="main-navigation" aria-label="Main"><ul>
<li><a href="/">Home</a></li><li><a href="/category/how-to/">How-To</a></li>
<li><a href="/category/reviews/">Reviews</a></li><li><a href="/about/">About Us</a></li>
<li><a href="/contact/">Contact</a></li></ul></nav>
<form class="search-form" action="/" role="search">
<input type="search" name="s" placeholder="Search …"></form>
</header>
<div class="breadcrumbs"><a href="/">Home</a> » <a href="/category/how-to/">How-To</a> »
<span>{e(heading)}</span></div>
<div class="site-content">
<main id="main" class="content-area">
<article class="post type-post status-publish">
<header class="entry-header"><h1 class="entry-title">{e(heading)}</h1>
<div class="entry-meta">By <a href="/author/editors/">The Editors</a> · <time>{e(year)}</time></div></header>
<div class="share-buttons"><a href="https://www.facebook.com/sharer/sharer.php?u={e(url)}">Share</a>
<a href="https://twitter.com/intent/tweet?url={e(url)}">Tweet</a>
<a href="https://pinterest.com/pin/create/button/?url={e(url)}">Pin</a></div>
<div class="entry-content">
{chr(10).join(article)}
</div>
<footer class="entry-footer"><span class="tags-links">Tagged <a href="/tag/tips/">tips</a>,
<a href="/tag/diy/">DIY</a></span></footer>
</article>
</main>
<aside id="secondary" class="widget-area">
<section class="widget widget_popular"><h2 class="widget-title">Popular Posts</h2><ul>{popular}</ul></section>
<section class="widget widget_newsletter"><h2 class="widget-title">Newsletter</h2>
{"".join(signup)}
<form><input type="email" placeholder="Your e-mail"><button>Subscribe</button></form></section>
</aside>
</div>
<footer class="site-footer"><ul class="footer-links"><li><a href="/privacy-policy/">Privacy Policy</a></li>
<li><a href="/terms/">Terms of Use</a></li><li><a href="/contact/">Contact</a></li></ul>
{"".join(chrome["disclosure"])}
<p class="copyright">© {e(year)} {e(site)}. All rights reserved.</p></footer>
{cookie}
<script src="/wp-includes/js/jquery/jquery.min.js"></script>
</body></html>
"""
    return page.encode("utf-8")


@dataclass(frozen=True)
class CaptureSpec:
    """One capture to hold: ``body`` for a 200, ``location`` for a redirect, neither for an error page."""

    url: str
    timestamp: str
    status: int = 200
    body: bytes = b""
    location: str | None = None


def capture_of(spec: CaptureSpec, file: str) -> Capture:
    headers: list[tuple[str, str]] = [("Content-Type", "text/html; charset=utf-8")]
    if spec.location:
        headers.append(("Location", spec.location))
    return Capture(
        url=spec.url,
        timestamp=spec.timestamp,
        statuscode=str(spec.status),
        mimetype="text/html",
        file=file,
        headers=tuple(headers),
        location=spec.location,
        urlkey=surt_key(spec.url),
        digest=sha1_base32(spec.body),
        length=len(spec.body),
    )


def release_captures(documents: Iterable[dict[str, Any]]) -> list[CaptureSpec]:
    """A 200 capture at each released document's archive URL, its page built from its passages."""
    specs = []
    for doc in documents:
        timestamp, url = split_address(doc["archive_url"])
        body = page_html(
            url, doc.get("title"), doc.get("passages") or [doc.get("parsed_text", "")], year=timestamp[:4]
        )
        specs.append(CaptureSpec(url, timestamp, 200, body))
    return specs


def archive_corpus(specs: Iterable[CaptureSpec], *, sitename: str = "release archive") -> Corpus:
    """The captures as a corpus the replay site (``ReplaySite(corpus=…)``) and pywb (a WARC) serve."""
    captures, snapshots = [], {}
    for i, spec in enumerate(specs):
        name = f"capture-{i:06d}.html"
        snapshots[name] = spec.body
        captures.append(capture_of(spec, name))
    return Corpus(site=SiteInfo(sitename=sitename), pages=(), captures=tuple(captures), snapshots=snapshots)
