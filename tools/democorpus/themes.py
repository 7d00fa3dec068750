# ruff: noqa: E501  (HTML templates read best one tag run per line)
"""Site chromes: the boilerplate real pages wrap around their article.

Each theme is one function ``PageView -> str`` that writes a whole HTML document in the markup habits of one
kind of site (navigation, ads, consent banners, newsletter boxes, share widgets, related links, comments,
pagination). Everything a theme adds is boilerplate: the ground truth is only the body's blocks. Choices that
vary between pages of a theme are drawn from a hash of the URL, so rendering stays deterministic.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlsplit

from .markup import Block, attr, blocks_html, esc
from .sources import Comment, Page


@dataclass(frozen=True)
class PageView:
    """One rendered file: a page (or one of its paginated parts, or its View-all variant)."""

    page: Page
    url: str
    blocks: list[Block]
    number: int  # 1..total for a paginated part, 0 for the View-all variant
    total: int
    show_comments: bool

    # ---- derived bits every theme uses
    @property
    def host(self) -> str:
        return urlsplit(self.page.url).hostname or ""

    @property
    def origin(self) -> str:
        parts = urlsplit(self.page.url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def site(self) -> str:
        if self.page.site_name:
            return self.page.site_name
        stem = self.host.removeprefix("www.").split(".")[0]
        return " ".join(w.capitalize() for w in stem.split("-"))

    @property
    def title(self) -> str:
        return self.page.title

    @property
    def lang(self) -> str:
        return self.page.lang

    @property
    def year(self) -> int:
        if self.page.published:
            return max(self.page.published.year, 2008)
        return int(self.page.captures[0].timestamp[:4]) if self.page.captures else 2015

    def part_url(self, number: int) -> str:
        return self.page.url if number == 1 else f"{self.page.url}?page={number}"

    @property
    def view_all_url(self) -> str:
        return f"{self.page.url}?view=all"

    @property
    def next_url(self) -> str | None:
        return self.part_url(self.number + 1) if 0 < self.number < self.total else None

    @property
    def prev_url(self) -> str | None:
        return self.part_url(self.number - 1) if self.number > 1 else None

    def pick(self, options: Sequence[str], k: int = 1, salt: str = "") -> list[str]:
        """``k`` distinct options chosen by a hash of the URL (stable across runs and machines)."""
        h = zlib.crc32(f"{self.page.url}|{salt}".encode())
        pool = list(options)
        out = []
        for _ in range(min(k, len(pool))):
            out.append(pool.pop(h % len(pool)))
            h = zlib.crc32(h.to_bytes(4, "big"))
        return out

    def flag(self, salt: str) -> bool:
        return zlib.crc32(f"{self.page.url}|{salt}".encode()) % 2 == 0


# --------------------------------------------------------------------------- shared pieces


def charset_name(encoding: str) -> str:
    return {"shift_jis": "Shift_JIS", "euc-jp": "EUC-JP"}.get(encoding, encoding)


def meta_charset(v: PageView, *, old_style: bool = False) -> str:
    if v.page.charset_declared not in ("meta", "both"):
        return ""
    name = charset_name(v.page.encoding)
    if old_style:
        return f'<meta http-equiv="Content-Type" content="text/html; charset={name}">'
    return f'<meta charset="{name}">'


def head_links(v: PageView, *, canonical: bool = True) -> str:
    links = []
    if canonical:
        links.append(f'<link rel="canonical" href="{attr(v.view_all_url if v.number == 0 else v.url)}">')
    if v.prev_url:
        links.append(f'<link rel="prev" href="{attr(v.prev_url)}">')
    if v.next_url:
        links.append(f'<link rel="next" href="{attr(v.next_url)}">')
    return "\n".join(links)


def long_date(d: date | None) -> str:
    return f"{d:%B} {d.day}, {d.year}" if d else ""


def us_date(d: date | None) -> str:
    return f"{d.month:02d}/{d.day:02d}/{d.year}" if d else ""


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def count_comments(comments: Sequence[Comment]) -> int:
    return sum(1 + count_comments(c.replies) for c in comments)


def pagination(
    v: PageView,
    *,
    wrap: str = '<nav class="pagination" aria-label="Pages">{}</nav>',
    next_label: str = "Next page &raquo;",
    prev_label: str = "&laquo; Previous",
    current: str = '<span class="current" aria-current="page">{n}</span>',
    link: str = '<a class="page-numbers" href="{href}">{n}</a>',
    sep: str = " ",
) -> str:
    """Numbered page links with previous/next anchors and a "View all" link when the page has one."""
    if v.total < 2:
        return ""
    parts = []
    if v.prev_url:
        parts.append(f'<a class="prev" href="{attr(v.prev_url)}">{prev_label}</a>')
    for n in range(1, v.total + 1):
        if n == v.number:
            parts.append(current.format(n=n))
        else:
            parts.append(link.format(href=attr(v.part_url(n)), n=n))
    if v.next_url:
        parts.append(f'<a class="next" rel="next" href="{attr(v.next_url)}">{next_label}</a>')
    if v.page.view_all and v.number != 0:
        parts.append(f'<a class="view-all" href="{attr(v.view_all_url)}">View all</a>')
    if v.number == 0:
        parts = [f'<a class="paged-view" href="{attr(v.part_url(1))}">View as {v.total} pages</a>']
    return wrap.format(sep.join(parts))


def comment_tree(
    comments: Sequence[Comment],
    item: Callable[[Comment, int, str], str],
    *,
    outer: str = '<ol class="comment-list">{}</ol>',
    children: str = '<ol class="children">{}</ol>',
    _counter: list[int] | None = None,
) -> str:
    """Nested comment markup; ``item(comment, id, replies_html)`` writes one comment with its replies."""
    counter = _counter if _counter is not None else [1000]
    out = []
    for c in comments:
        counter[0] += 7
        cid = counter[0]
        replies = (
            comment_tree(c.replies, item, outer=children, children=children, _counter=counter)
            if c.replies
            else ""
        )
        out.append(item(c, cid, replies))
    return outer.format("\n".join(out))


def related(v: PageView, pool: Sequence[str], k: int, fmt: str = '<li><a href="{href}">{t}</a></li>') -> str:
    return "\n".join(
        fmt.format(href=attr(f"{v.origin}/{slugify(t)}"), t=esc(t)) for t in v.pick(pool, k, salt="related")
    )


def sponsored(v: PageView, k: int = 3, cls: str = "sponsored-links") -> str:
    items = "".join(
        f'<li><a href="https://clk.promolink-demo.net/c?id={zlib.crc32(t.encode()) % 99991}" rel="sponsored nofollow">'
        f'{esc(t)}</a><span class="src">{esc(s)}</span></li>'
        for t, s in (x.split("|") for x in v.pick(SPONSORED, k, salt="sponsored"))
    )
    return f'<div class="{cls}"><p class="label">Sponsored</p><ul>{items}</ul></div>'


def ad_iframe(v: PageView, size: str, slot: str) -> str:
    w, h = size.split("x")
    return (
        f'<iframe src="https://ads.adsrv-demo.net/serve?slot={slot}&amp;size={size}&amp;site={attr(v.host)}" '
        f'width="{w}" height="{h}" frameborder="0" scrolling="no" title="Advertisement"></iframe>'
    )


SPONSORED = (
    "Homeowners Are Replacing Their Gutters With This Clever Fix|GutterPro Direct",
    "The Standing Desk Everyone at the Office Is Talking About|DeskLift",
    "Why Vets Recommend Switching Your Dog's Kibble|Pawfect Nutrition",
    "This Tiny Gadget Cuts Your Energy Bill, Users Say|VoltSaver",
    "Seniors Born Before 1965 Should Check This Rebate|Savings Daily",
    "The Mattress Designed by Sleep Scientists|Dormio",
    "Chefs Swear by This Knife Sharpening Trick|EdgeCraft Tips",
    "Learn a New Language in 15 Minutes a Day|Lingo Sprint",
    "7 Laptops Worth Buying This Year|TechDeals Weekly",
    "Turn Your Backyard into a Weekend Retreat|Yardly",
)

SHARE = ("Facebook", "Twitter", "Pinterest", "Email")


def share_links(v: PageView, cls: str = "share", label: str = "Share") -> str:
    targets = {
        "Facebook": "https://www.facebook.com/sharer/sharer.php?u=",
        "Twitter": "https://twitter.com/intent/tweet?url=",
        "Pinterest": "https://pinterest.com/pin/create/button/?url=",
        "Email": "mailto:?body=",
    }
    links = "".join(
        f'<a class="{cls}-{n.lower()}" href="{attr(targets[n] + v.page.url)}" target="_blank">{n}</a>'
        for n in SHARE
    )
    return f'<div class="{cls}"><span>{label}:</span> {links}</div>'


def cookie_banner(v: PageView, style: str) -> str:
    if style == "onetrust":
        return (
            '<div id="onetrust-banner-sdk" class="otFlat" role="region" aria-label="Cookie banner">'
            '<div id="onetrust-policy"><p id="onetrust-policy-text">By clicking &ldquo;Accept All Cookies&rdquo;, you '
            "agree to the storing of cookies on your device to enhance site navigation, analyse site usage, and "
            'assist in our marketing efforts. <a href="/privacy-policy">Privacy Policy</a></p></div>'
            '<div id="onetrust-button-group"><button id="onetrust-pc-btn-handler">Cookie Settings</button>'
            '<button id="onetrust-accept-btn-handler">Accept All Cookies</button></div></div>'
        )
    return (
        '<div class="cc-window cc-banner" role="dialog" aria-label="cookieconsent" aria-describedby="cookieconsent:desc">'
        '<span id="cookieconsent:desc" class="cc-message">We use cookies to personalise content and ads and to '
        'analyse our traffic. <a class="cc-link" href="/cookies">Learn more</a></span>'
        '<div class="cc-compliance"><a class="cc-btn cc-deny">Decline</a><a class="cc-btn cc-allow">Allow cookies</a>'
        "</div></div>"
    )


def newsletter(cls: str, heading: str, blurb: str, button: str = "Subscribe") -> str:
    return (
        f'<div class="{cls}"><h3>{heading}</h3><p>{blurb}</p>'
        '<form action="/newsletter/subscribe" method="post"><label for="nl-email" class="sr-only">Email address</label>'
        f'<input id="nl-email" type="email" name="email" placeholder="you@example.com" required> '
        f'<button type="submit">{button}</button></form></div>'
    )


def analytics(v: PageView) -> str:
    n = zlib.crc32(v.host.encode()) % 9000 + 1000
    return (
        "<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}"
        f"gtag('js',new Date());gtag('config','G-DEMO{n}');</script>"
    )


def body_html(v: PageView, dialect: str, every: int = 0, ad: Callable[[int], str] | None = None) -> str:
    """The body blocks; with ``every`` set, ``ad(n)`` is placed after every ``every``-th paragraph."""
    if not every or ad is None:
        return blocks_html(v.blocks, dialect)
    paragraphs = [0]

    def insert(_: int, b: Block) -> str:
        if b.kind != "para":
            return ""
        paragraphs[0] += 1
        return ad(paragraphs[0] // every) if paragraphs[0] % every == 0 else ""

    return blocks_html(v.blocks, dialect, insert)


# --------------------------------------------------------------------------- themes


def news(v: PageView) -> str:
    sections = ("World", "Business", "Science", "Health", "Food", "Home", "Tech", "Opinion")
    nav = "".join(f'<li><a href="/section/{s.lower()}">{s}</a></li>' for s in sections)
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            return (
                f'<li class="comment" id="c{cid}"><div class="comment__meta"><span class="comment__author">'
                f'{esc(c.author)}</span> <time datetime="{c.date}">{long_date(c.date)}</time></div>'
                f'<p class="comment__text">{esc(c.text)}</p><button class="comment__reply">Reply</button>{replies}</li>'
            )

        tree = comment_tree(
            v.page.comments,
            item,
            outer='<ul class="comment-thread">{}</ul>',
            children='<ul class="replies">{}</ul>',
        )
        comments = f'<section id="comments" class="comments"><h2>Reader comments ({count_comments(v.page.comments)})</h2>{tree}</section>'
    ticker = v.pick(
        (
            "Markets close higher after a quiet week",
            "Storm warnings issued for the coast",
            "City council approves new bike lanes",
            "Local library extends weekend hours",
        ),
        2,
        "ticker",
    )
    byline = (
        f'By <a rel="author" href="/staff/{slugify(v.page.author)}">{esc(v.page.author)}</a>'
        if v.page.author
        else "Staff report"
    )
    return f"""<!DOCTYPE html>
<html lang="{v.lang}">
<head>
{meta_charset(v)}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(v.title)} | {esc(v.site)}</title>
{head_links(v)}
<meta property="og:type" content="article"><meta property="og:title" content="{attr(v.title)}">
<style>.ad-slot{{min-height:250px;text-align:center}}.ticker{{background:#111;color:#fff}}</style>
{analytics(v)}
</head>
<body class="article-page">
<div class="ticker" aria-label="Breaking news"><strong>Latest:</strong> {" &bull; ".join(esc(t) for t in ticker)}</div>
<header class="site-header"><a class="logo" href="/">{esc(v.site)}</a>
<nav class="primary-nav" aria-label="Sections"><ul>{nav}</ul></nav>
<form class="search" action="/search"><input name="q" placeholder="Search"></form><a class="subscribe-btn" href="/subscribe">Subscribe</a></header>
<div class="ad-slot ad-leaderboard" id="div-gpt-ad-top">{ad_iframe(v, "728x90", "top")}</div>
<main id="main">
<article class="story">
<header><p class="kicker"><a href="/section/lifestyle">Lifestyle</a></p><h1 class="headline">{esc(v.title)}</h1>
<p class="byline">{byline} <time datetime="{v.page.published or ""}">{long_date(v.page.published)}</time></p></header>
{share_links(v, "share-bar")}
<div class="story-body">
{body_html(v, "html5", 3, lambda n: f'<div class="ad-slot ad-inline" data-slot="inline-{n}"><span class="ad-label">Advertisement</span>{ad_iframe(v, "300x250", f"inline{n}")}</div>')}
</div>
{pagination(v)}
</article>
{sponsored(v, 3, "sponsored-stories")}
{comments}
</main>
<aside class="rail"><h2>Most read</h2><ol>{related(v, NEWS_RELATED, 4)}</ol>
{newsletter("newsletter-box", "The Morning Briefing", "The day's most important stories, every weekday.", "Sign up")}</aside>
<footer class="site-footer"><ul><li><a href="/about">About us</a></li><li><a href="/contact">Contact</a></li><li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms of use</a></li></ul>
<p>&copy; {v.year} {esc(v.site)} Media Group. All rights reserved.</p></footer>
{cookie_banner(v, "onetrust" if v.flag("cookie") else "cc")}
</body>
</html>
"""


NEWS_RELATED = (
    "Five questions to ask before renovating a kitchen",
    "Why grocery prices rose again this spring",
    "The quiet comeback of the home vegetable patch",
    "Doctors share the habits they actually keep",
    "How the city's animal shelter finds homes for 900 pets a year",
    "What to know about this year's flu season",
    "A beginner's guide to smart home gadgets",
    "Readers share their favourite weeknight dinners",
)


def blog(v: PageView) -> str:
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            return (
                f'<li id="comment-{cid}" class="comment"><article class="comment-body"><footer class="comment-meta">'
                f'<div class="comment-author vcard"><img alt="" src="https://secure.gravatar.com/avatar/{cid:x}?s=42&amp;d=mm" class="avatar" height="42" width="42">'
                f'<b class="fn">{esc(c.author)}</b> <span class="says">says:</span></div>'
                f'<div class="comment-metadata"><a href="#comment-{cid}"><time datetime="{c.date}">{long_date(c.date)}</time></a></div></footer>'
                f'<div class="comment-content"><p>{esc(c.text)}</p></div>'
                f'<div class="reply"><a rel="nofollow" class="comment-reply-link" href="#comment-{cid}">Reply</a></div></article>{replies}</li>'
            )

        n = count_comments(v.page.comments)
        comments = (
            f'<div id="comments" class="comments-area"><h2 class="comments-title">{n} thoughts on &ldquo;{esc(v.title)}&rdquo;</h2>'
            f"{comment_tree(v.page.comments, item)}"
            '<div id="respond" class="comment-respond"><h3 id="reply-title">Leave a Reply</h3>'
            '<form action="/wp-comments-post.php" method="post" id="commentform"><p class="comment-notes">Your email address will not be published.</p>'
            '<textarea id="comment" name="comment" rows="6"></textarea><input name="submit" type="submit" value="Post Comment"></form></div></div>'
        )
    archive = "".join(f'<li><a href="/{y}/">{y}</a></li>' for y in range(v.year + 2, v.year - 2, -1))
    return f"""<!DOCTYPE html>
<html lang="{v.lang}-US">
<head>
{meta_charset(v)}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(v.title)} &#8211; {esc(v.site)}</title>
{head_links(v)}
<link rel="stylesheet" id="twentyseventeen-style-css" href="{v.origin}/wp-content/themes/twentyseventeen/style.css?ver=4.9.8" type="text/css" media="all">
<style id="wp-custom-css">.entry-content p{{line-height:1.7}} .jp-relatedposts{{margin-top:2em}}</style>
</head>
<body class="post-template-default single single-post">
<div id="page" class="site"><a class="skip-link screen-reader-text" href="#content">Skip to content</a>
<header id="masthead" class="site-header" role="banner"><div class="site-branding"><p class="site-title"><a href="{v.origin}/" rel="home">{esc(v.site)}</a></p>
<p class="site-description">{esc(v.pick(BLOG_TAGLINES, 1, "tagline")[0])}</p></div>
<nav id="site-navigation" class="main-navigation"><ul id="top-menu" class="menu"><li><a href="/">Home</a></li><li><a href="/about/">About</a></li><li><a href="/category/guides/">Guides</a></li><li><a href="/start-here/">Start Here</a></li><li><a href="/contact/">Contact</a></li></ul></nav></header>
<div id="content" class="site-content"><div id="primary" class="content-area"><main id="main" class="site-main">
<article class="post type-post status-publish format-standard hentry">
<header class="entry-header"><div class="entry-meta"><span class="posted-on">Posted on <time class="entry-date published" datetime="{v.page.published or ""}">{long_date(v.page.published)}</time></span>{f' <span class="byline">by <span class="author vcard">{esc(v.page.author)}</span></span>' if v.page.author else ""}</div>
<h1 class="entry-title">{esc(v.title)}</h1></header>
<div class="entry-content">
{body_html(v, "wp")}
{pagination(v, wrap='<div class="page-links">Pages: {}</div>', next_label="Next page", current='<span class="post-page-numbers current">{n}</span>', link='<a href="{href}" class="post-page-numbers">{n}</a>')}
<div class="sharedaddy sd-sharing-enabled"><h3 class="sd-title">Share this:</h3>{share_links(v, "sd-content", "Share")}</div>
<div id="jp-relatedposts" class="jp-relatedposts"><h3 class="jp-relatedposts-headline"><em>Related</em></h3><ul>{related(v, BLOG_RELATED, 3)}</ul></div>
</div>
<footer class="entry-footer"><span class="cat-links">Posted in <a href="/category/guides/" rel="category tag">Guides</a></span></footer>
</article>
{comments}
</main></div>
<aside id="secondary" class="widget-area"><section class="widget widget_search"><form role="search" method="get" action="/"><input type="search" name="s" placeholder="Search &hellip;"></form></section>
<section class="widget widget_recent_entries"><h2 class="widget-title">Recent Posts</h2><ul>{related(v, BLOG_RELATED, 4)}</ul></section>
<section class="widget widget_archive"><h2 class="widget-title">Archives</h2><ul>{archive}</ul></section>
<section class="widget">{newsletter("mc4wp-form", "Get new posts by email", "Join other readers and never miss a post.")}</section></aside>
</div>
<footer id="colophon" class="site-footer"><div class="site-info"><a href="https://wordpress.org/">Proudly powered by WordPress</a></div></footer></div>
{cookie_banner(v, "cc")}
<script src="{v.origin}/wp-includes/js/wp-embed.min.js?ver=4.9.8"></script>
</body>
</html>
"""


BLOG_TAGLINES = (
    "Notes from a small kitchen and a big garden",
    "Practical tips, tested at home",
    "One project at a time",
    "Simple living, honestly written",
)
BLOG_RELATED = (
    "My favourite tools after ten years",
    "What I got wrong the first time",
    "A week of simple habits",
    "Reader questions, answered",
    "Ten minutes a day: a small routine",
    "Budget-friendly upgrades that worked",
    "The mistakes nobody warns you about",
)


def recipe(v: PageView) -> str:
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            stars = 5 - (cid % 2)
            return (
                f'<li class="wprm-comment" id="li-comment-{cid}"><div class="comment-author">{esc(c.author)}</div>'
                f'<div class="wprm-comment-rating" aria-label="{stars} stars">{"&#9733;" * stars}{"&#9734;" * (5 - stars)}</div>'
                f'<div class="comment-date">{long_date(c.date)}</div><div class="comment-text"><p>{esc(c.text)}</p></div>'
                f'<a class="comment-reply-link" href="#respond">Reply</a>{replies}</li>'
            )

        comments = (
            f'<section id="comments"><h3>Reviews &amp; comments ({count_comments(v.page.comments)})</h3>'
            f"{comment_tree(v.page.comments, item, outer='<ol class=commentlist>{}</ol>')}"
            '<p class="comment-form-rating">Rate this recipe: <span class="stars">&#9734;&#9734;&#9734;&#9734;&#9734;</span></p></section>'
        )
    pins = v.pick(
        (
            "Weeknight Lentil Soup",
            "Easy Pan Pizza",
            "Lemon Herb Roast Chicken",
            "Brown Butter Cookies",
            "Crispy Smashed Potatoes",
            "Overnight Oats Five Ways",
            "Simple Tomato Sauce",
        ),
        3,
        "more",
    )
    more = "".join(
        f'<div class="grid-item"><a href="/{slugify(p)}/"><img src="{v.origin}/img/{slugify(p)}-300x300.jpg" alt="{attr(p)}" width="150" height="150"><span>{esc(p)}</span></a></div>'
        for p in pins
    )
    return f"""<!DOCTYPE html>
<html lang="{v.lang}">
<head>
{meta_charset(v)}
<title>{esc(v.title)} - {esc(v.site)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
{head_links(v)}
<meta name="pinterest-rich-pin" content="true">
<script>window.adthrive=window.adthrive||{{}};window.adthrive.cmd=window.adthrive.cmd||[];</script>
<script async src="https://ads.adsrv-demo.net/sites/{attr(v.host)}/ads.min.js"></script>
</head>
<body class="single recipe-blog">
<div class="top-bar"><a href="/">{esc(v.site)}</a> <span class="tagline">real food, real kitchens</span></div>
<nav class="nav-primary"><ul class="menu"><li><a href="/recipes/">Recipes</a></li><li><a href="/recipes/quick-easy/">Quick &amp; Easy</a></li><li><a href="/recipes/baking/">Baking</a></li><li><a href="/recipes/drinks/">Drinks</a></li><li><a href="/about/">About</a></li><li><a href="/shop/">Shop</a></li></ul></nav>
<div class="content-sidebar-wrap"><main class="content">
<p class="breadcrumb"><a href="/">Home</a> &raquo; <a href="/recipes/">Recipes</a> &raquo; {esc(v.title)}</p>
<article class="post entry">
<header class="entry-header"><h1 class="entry-title">{esc(v.title)}</h1>
<p class="entry-meta">{"By " + esc(v.page.author) + " &middot; " if v.page.author else ""}Updated {long_date(v.page.published)}</p>
<p class="disclosure"><em>This post may contain affiliate links. Read our disclosure policy.</em></p>
<div class="wprm-jump"><a href="#recipe" class="wprm-recipe-jump">Jump to Recipe</a> <a href="#" class="wprm-recipe-pin">Pin Recipe</a></div></header>
<div class="entry-content">
{body_html(v, "wp", 2, lambda n: f'<div class="adthrive-ad adthrive-content" id="AdThrive_Content_{n}_desktop"></div>')}
</div>
{pagination(v, wrap='<div class="archive-pagination pagination">{}</div>', next_label="Next Page &#x000BB;")}
{share_links(v, "social-share", "Share this recipe")}
</article>
<div class="more-recipes"><h3>You may also like</h3><div class="grid">{more}</div></div>
{comments}
</main>
<aside class="sidebar"><section class="widget about-me"><img src="{v.origin}/img/author.jpg" alt="" width="120"><p>Hi, I'm the cook behind {esc(v.site)}. I test every recipe at least three times.</p></section>
{newsletter("widget enews", "Free Weekly Recipes", "Get easy recipes delivered to your inbox.", "Go")}
<div class="adthrive-ad adthrive-sidebar">{ad_iframe(v, "300x600", "sidebar")}</div></aside></div>
<footer class="site-footer"><p>Copyright &copy; {v.year} {esc(v.site)} &middot; <a href="/privacy-policy/">Privacy Policy</a> &middot; <a href="/accessibility/">Accessibility</a></p></footer>
{cookie_banner(v, "cc")}
</body>
</html>
"""


def forum(v: PageView) -> str:
    forum_name = v.pick(
        ("General Discussion", "Tips &amp; Tricks", "Beginners' Corner", "Guides and How-Tos"), 1, "forum"
    )[0]
    t = zlib.crc32(v.page.url.encode()) % 90000 + 10000

    def post(author: str, when: date | None, content: str, pid: int, first: bool, reply_to: str = "") -> str:
        posts = (pid * 37) % 3000 + 12
        subject = esc(v.title) if first else f"Re: {esc(v.title)}"
        quote = f"<blockquote><cite>{esc(reply_to)} wrote:</cite> &hellip;</blockquote>" if reply_to else ""
        return (
            f'<div id="p{pid}" class="post {"bg2" if pid % 2 else "bg1"}"><div class="inner">'
            f'<dl class="postprofile" id="profile{pid}"><dt><a href="./memberlist.php?mode=viewprofile&amp;u={pid % 977}" class="username">{esc(author)}</a></dt>'
            f"<dd><strong>Posts:</strong> {posts}</dd><dd><strong>Joined:</strong> {us_date(when)[-4:] if when else ''}</dd></dl>"
            f'<div class="postbody"><h3{" class=first" if first else ""}><a href="#p{pid}">{subject}</a></h3>'
            f'<p class="author">by <strong>{esc(author)}</strong> &raquo; {us_date(when)}</p>'
            f'<div class="content">{quote}{content}</div>'
            + ('<div class="signature">Happy to help - check the FAQ before posting!</div>' if first else "")
            + "</div></div></div>"
        )

    posts_html = []
    if v.number in (0, 1):
        posts_html.append(
            post(v.page.author or "admin", v.page.published, body_html(v, "bbcode"), t * 10, True)
        )
    else:
        posts_html.append(
            post(v.page.author or "admin", v.page.published, body_html(v, "bbcode"), t * 10 + v.number, True)
        )
    if v.show_comments and v.page.comments:
        n = [0]

        def flatten(cs: Sequence[Comment], parent: str = "") -> None:
            for c in cs:
                n[0] += 1
                posts_html.append(post(c.author, c.date, esc(c.text), t * 10 + 100 + n[0], False, parent))
                flatten(c.replies, c.author)

        flatten(v.page.comments)
    return f"""<!DOCTYPE html>
<html dir="ltr" lang="{v.lang}-gb">
<head>
{meta_charset(v)}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(v.title)} - {esc(v.site)} Forums</title>
{head_links(v)}
<link href="./styles/prosilver/theme/stylesheet.css?assets_version=42" rel="stylesheet">
</head>
<body id="phpbb" class="nojs notouch section-viewtopic ltr">
<div id="wrap" class="wrap"><a id="top" class="top-anchor" accesskey="t"></a>
<div id="page-header"><div class="headerbar" role="banner"><div class="inner"><div id="site-description"><a id="logo" class="logo" href="./index.php" title="Board index">{esc(v.site)}</a>
<h1>{esc(v.site)} Forums</h1><p>A friendly community for questions, answers and project logs.</p></div>
<div id="search-box" class="search-box search-header"><form action="./search.php" method="get"><input name="keywords" type="search" placeholder="Search&hellip;"><button class="button button-search" type="submit">Search</button></form></div></div></div>
<div class="navbar" role="navigation"><ul id="nav-main" class="nav-main linklist"><li><a href="/app.php/help/faq" rel="help">FAQ</a></li><li><a href="./ucp.php?mode=register">Register</a></li><li><a href="./ucp.php?mode=login">Login</a></li></ul>
<ul id="nav-breadcrumbs" class="nav-breadcrumbs linklist"><li class="breadcrumbs"><span class="crumb"><a href="./index.php">Board index</a></span> &lsaquo; <span class="crumb"><a href="./viewforum.php?f={t % 40}">{forum_name}</a></span></li></ul></div></div>
<div id="page-body" class="page-body" role="main">
<h2 class="topic-title"><a href="./viewtopic.php?t={t}">{esc(v.title)}</a></h2>
<div class="action-bar bar-top"><a href="./posting.php?mode=reply&amp;t={t}" class="button">Post Reply</a>
{pagination(v, wrap='<div class="pagination">{}</div>', next_label="Next", prev_label="Previous", current='<strong class="active">{n}</strong>', link='<a class="button" href="{href}">{n}</a>')}</div>
{"".join(posts_html)}
<div class="action-bar bar-bottom">{pagination(v, wrap='<div class="pagination">{}</div>', next_label="Next page &raquo;")}</div>
<div class="ad-forum" style="text-align:center">{ad_iframe(v, "728x90", "forum-bottom")}</div>
<div class="stat-block online-list"><h3>Who is online</h3><p>Users browsing this forum: no registered users and {t % 9 + 2} guests</p></div>
</div>
<div id="page-footer" class="page-footer" role="contentinfo"><div class="copyright">Powered by <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software &copy; phpBB Limited</div></div></div>
{cookie_banner(v, "cc") if v.flag("cookie") else ""}
</body>
</html>
"""


def gov(v: PageView) -> str:
    agency = v.site
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            return f'<li class="usa-list__item" id="q{cid}"><p><strong>{esc(c.author)}</strong> ({us_date(c.date)}): {esc(c.text)}</p>{replies}</li>'

        comments = f'<section class="public-comments"><h2>Public questions and answers</h2>{comment_tree(v.page.comments, item, outer="<ul class=usa-list>{}</ul>", children="<ul>{}</ul>")}</section>'
    side = "".join(
        f'<li class="usa-sidenav__item"><a href="/{slugify(s)}">{s}</a></li>'
        for s in v.pick(GOV_SECTIONS, 5, "side")
    )
    return f"""<!DOCTYPE html>
<html lang="{v.lang}">
<head>
{meta_charset(v, old_style=v.flag("meta"))}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(v.title)} | {esc(agency)}</title>
{head_links(v)}
<link rel="stylesheet" href="/assets/css/uswds.min.css">
<script src="/assets/js/uswds-init.min.js"></script>
</head>
<body>
<a class="usa-skipnav" href="#main-content">Skip to main content</a>
<section class="usa-banner" aria-label="Official website"><div class="usa-banner__header"><p class="usa-banner__header-text">An official public-service website</p>
<button class="usa-banner__button" aria-expanded="false">Here's how you know</button></div></section>
<header class="usa-header usa-header--extended"><div class="usa-logo"><a href="/" title="Home"><img src="/img/seal.svg" alt="" width="48"> {esc(agency)}</a></div>
<nav aria-label="Primary navigation" class="usa-nav"><ul class="usa-nav__primary usa-accordion"><li><a href="/topics">Topics</a></li><li><a href="/services">Services</a></li><li><a href="/publications">Publications</a></li><li><a href="/news">Newsroom</a></li><li><a href="/about">About Us</a></li></ul>
<form class="usa-search usa-search--small" role="search"><input class="usa-input" type="search" name="query"><button class="usa-button" type="submit">Search</button></form></nav></header>
<div class="grid-container"><nav class="usa-breadcrumb" aria-label="Breadcrumbs"><ol class="usa-breadcrumb__list"><li class="usa-breadcrumb__list-item"><a href="/">Home</a></li><li class="usa-breadcrumb__list-item"><a href="/topics">Topics</a></li><li class="usa-breadcrumb__list-item usa-current" aria-current="page"><span>{esc(v.title)}</span></li></ol></nav>
<div class="grid-row"><aside class="desktop:grid-col-3"><ul class="usa-sidenav">{side}</ul></aside>
<main class="desktop:grid-col-9 usa-prose" id="main-content">
<h1>{esc(v.title)}</h1>
{body_html(v, "html5")}
{pagination(v, wrap='<nav aria-label="Pagination" class="usa-pagination">{}</nav>', next_label="Next page")}
<div class="page-meta"><p>Page last reviewed: {us_date(v.page.published)}</p>{f"<p>Content source: {esc(v.page.author)}</p>" if v.page.author else ""}</div>
<div class="feedback-widget"><p>Was this page helpful?</p><button>Yes</button> <button>No</button></div>
{comments}
</main></div></div>
<footer class="usa-footer"><div class="usa-footer__primary-section"><ul><li><a href="/accessibility">Accessibility</a></li><li><a href="/foia">Freedom of Information</a></li><li><a href="/privacy">Privacy Policy</a></li><li><a href="/contact">Contact Us</a></li></ul></div>
{newsletter("usa-footer__signup", "Sign up for email updates", "Get updates on new publications.")}
<div class="usa-identifier"><p>{esc(agency)} &middot; Looking for local services? <a href="/locations">Find an office</a></p></div></footer>
</body>
</html>
"""


GOV_SECTIONS = (
    "Emergency Preparedness",
    "Food Safety",
    "Healthy Homes",
    "Environmental Health",
    "Pets and Animal Control",
    "Recycling and Waste",
    "Consumer Protection",
    "Data and Statistics",
    "Community Programs",
)


def shop(v: PageView) -> str:
    products = v.pick(SHOP_PRODUCTS, 3, "products")
    cards = "".join(
        f'<li class="product-card"><a href="/products/{slugify(p.split("|")[0])}"><img src="{v.origin}/cdn/shop/{slugify(p.split("|")[0])}_200x.jpg" alt="" loading="lazy">'
        f'<span class="product-card__title">{esc(p.split("|")[0])}</span><span class="price">{esc(p.split("|")[1])}</span></a>'
        '<button class="btn add-to-cart">Add to cart</button></li>'
        for p in products
    )
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            return f'<div class="spr-review" id="review-{cid}"><span class="spr-review-header-byline"><strong>{esc(c.author)}</strong> on <strong>{us_date(c.date)}</strong></span><p class="spr-review-content-body">{esc(c.text)}</p>{replies}</div>'

        comments = f'<div class="article-comments"><h3>Comments</h3>{comment_tree(v.page.comments, item, outer="<div class=spr-reviews>{}</div>", children="<div class=spr-replies>{}</div>")}</div>'
    return f"""<!doctype html>
<html class="no-js" lang="{v.lang}">
<head>
{meta_charset(v)}
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>{esc(v.title)} &ndash; {esc(v.site)}</title>
{head_links(v)}
<script>var Shopify=Shopify||{{}};Shopify.shop="{attr(v.host)}";Shopify.currency={{"active":"USD","rate":"1.0"}};</script>
<style>.announcement-bar{{background:#222;color:#fff;text-align:center}}</style>
</head>
<body class="template-article">
<div class="announcement-bar" role="region" aria-label="Announcement"><p>Free shipping on orders over $50 &middot; 30-day returns</p></div>
<header class="site-header"><a class="site-header__logo" href="/">{esc(v.site)}</a>
<nav class="site-nav"><ul><li><a href="/collections/new">New Arrivals</a></li><li><a href="/collections/all">Shop All</a></li><li><a href="/collections/sale">Sale</a></li><li><a href="/blogs/journal">Journal</a></li><li><a href="/pages/help">Help</a></li></ul></nav>
<div class="site-header__icons"><a href="/search">Search</a> <a href="/account/login">Log in</a> <a href="/cart" class="cart-link">Cart (0)</a></div></header>
<main role="main" id="MainContent">
<nav class="breadcrumb" aria-label="breadcrumbs"><a href="/">Home</a> / <a href="/blogs/journal">Journal</a> / <span>{esc(v.title)}</span></nav>
<article class="article" itemscope itemtype="http://schema.org/Article">
<header><h1 class="article__title">{esc(v.title)}</h1><p class="article__meta">{esc(v.page.author or v.site + " Team")} &middot; {long_date(v.page.published)}</p></header>
<div class="rte article__content" itemprop="articleBody">
{body_html(v, "html5")}
</div>
{pagination(v, wrap='<ul class="pagination">{}</ul>', next_label="Next page &rarr;", prev_label="&larr; Previous")}
{share_links(v, "social-sharing")}
</article>
<section class="shop-the-story"><h2>Shop the story</h2><ul class="grid">{cards}</ul></section>
{comments}
</main>
<div class="newsletter-popup" role="dialog" aria-hidden="true">{newsletter("newsletter-popup__inner", "Get 10% off your first order", "Sign up for tips, new arrivals and subscriber-only offers.")}</div>
<footer class="site-footer"><div class="grid"><div><h4>Help</h4><ul><li><a href="/pages/shipping">Shipping</a></li><li><a href="/pages/returns">Returns</a></li><li><a href="/pages/contact">Contact</a></li></ul></div>
<div><h4>About</h4><ul><li><a href="/pages/about">Our story</a></li><li><a href="/blogs/journal">Journal</a></li></ul></div></div>
<p class="payment-icons">Visa &middot; Mastercard &middot; Amex &middot; PayPal</p><p>&copy; {v.year}, {esc(v.site)}. Powered by Shopify</p></footer>
{cookie_banner(v, "cc")}
</body>
</html>
"""


SHOP_PRODUCTS = (
    "Gooseneck Kettle|$49.00",
    "Ceramic Dripper|$24.00",
    "Bamboo Cutting Board|$32.00",
    "Glass Storage Jars (Set of 4)|$28.00",
    "Soft Grooming Brush|$14.50",
    "Stainless Steel Bowl|$12.00",
    "Microfiber Cloth 6-Pack|$9.99",
    "USB-C Charging Cable|$15.00",
    "Raised Garden Bed Kit|$89.00",
    "Digital Kitchen Thermometer|$19.95",
)


def magazine(v: PageView) -> str:
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            return f'<div class="conv-item" data-id="{cid}"><p class="conv-user">{esc(c.author)} <span>{long_date(c.date)}</span></p><p class="conv-text">{esc(c.text)}</p>{replies}</div>'

        comments = f'<section class="conversation"><h2>Join the conversation</h2><p class="conv-count">{count_comments(v.page.comments)} comments</p>{comment_tree(v.page.comments, item, outer="<div class=conv-list>{}</div>", children="<div class=conv-replies>{}</div>")}</section>'
    bio = (
        f'<div class="author-bio"><img src="{v.origin}/authors/{slugify(v.page.author)}.jpg" alt="" width="64"><p><strong>{esc(v.page.author)}</strong> '
        "is a contributing writer who covers home, food and everyday life.</p></div>"
        if v.page.author
        else ""
    )
    return f"""<!DOCTYPE html>
<html lang="{v.lang}">
<head>
{meta_charset(v)}
<title>{esc(v.title)} | {esc(v.site)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
{head_links(v)}
<meta name="description" content="{attr(v.title)}">
<script type="application/ld+json">{{"@context":"https://schema.org","@type":"Article","headline":"{attr(v.title)}","publisher":{{"@type":"Organization","name":"{attr(v.site)}"}}}}</script>
<style>.mag-hero{{margin:0}}.ad-slot{{clear:both;min-height:90px}}</style>
</head>
<body class="mag mag-article">
<header class="mag-header"><div class="mag-masthead"><a href="/" class="mag-logo">{esc(v.site.upper())}</a></div>
<nav class="mag-menu"><a href="/home">Home</a><a href="/food">Food</a><a href="/health">Health</a><a href="/style">Style</a><a href="/travel">Travel</a><a href="/money">Money</a><a href="/subscribe" class="sub">Subscribe</a></nav></header>
<div class="ad-slot ad-top" data-ad-unit="/2231/{attr(v.host)}/article/top"><div id="gpt-top"></div><script>googletag.cmd.push(function(){{googletag.display("gpt-top");}});</script></div>
<main><article class="mag-story">
<p class="mag-kicker">Everyday Life</p>
<h1>{esc(v.title)}</h1>
<p class="mag-dek">Our guide, tested and explained.</p>
<p class="mag-byline">{"By " + esc(v.page.author) + " | " if v.page.author else ""}Published {long_date(v.page.published)}</p>
<figure class="mag-hero"><img src="{v.origin}/images/{slugify(v.title)}-hero.jpg" alt="" width="1200" height="675"><figcaption>Photo: {esc(v.site)} Studio</figcaption></figure>
<div class="mag-body">
{body_html(v, "html5", 4, lambda n: f'<div class="ad-slot ad-mid" data-ad-unit="mid{n}"><p class="ad-label">Advertisement - Continue Reading Below</p></div>')}
</div>
{pagination(v, wrap='<nav class="mag-pages">{}</nav>', next_label="Next page &#8250;")}
{bio}
{share_links(v, "mag-share")}
</article>
<section class="mag-more"><h2>More from {esc(v.site)}</h2><ul>{related(v, MAG_RELATED, 4)}</ul></section>
{sponsored(v, 4, "mag-sponsored")}
{comments}
</main>
<footer class="mag-footer">{newsletter("mag-newsletter", "Sign up for our newsletter", "Smart ideas for everyday life, twice a week.")}
<nav><a href="/about">About</a> <a href="/advertise">Advertise</a> <a href="/privacy">Privacy Notice</a> <a href="/terms">Terms</a> <a href="/do-not-sell">Do Not Sell My Personal Information</a></nav>
<p>&copy; {v.year} {esc(v.site)} Magazine. A part of Demo Media Inc.</p></footer>
{cookie_banner(v, "onetrust")}
</body>
</html>
"""


MAG_RELATED = (
    "The 12 best gifts for people who have everything",
    "We tried 9 popular cleaning hacks",
    "How to make your home feel bigger",
    "What nutritionists eat for breakfast",
    "The surprising science of habits",
    "Small changes that made our mornings easier",
    "Everything you need for a first apartment",
)


def qa(v: PageView) -> str:
    qid = zlib.crc32(v.page.url.encode()) % 900000 + 100000
    votes = qid % 180 + 12
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            return (
                f'<li id="comment-{qid + cid}" class="comment"><div class="comment-score">{cid % 9 or ""}</div><div class="comment-text">'
                f'<span class="comment-copy">{esc(c.text)}</span> &ndash; <a href="/users/{cid}" class="comment-user">{esc(c.author)}</a> '
                f'<span class="comment-date">{long_date(c.date)}</span></div>{replies}</li>'
            )

        comments = f'<div class="comments"><ul class="comments-list">{comment_tree(v.page.comments, item, outer="{}", children="<ul class=comment-replies>{}</ul>")}</ul></div>'
    tags = "".join(
        f'<a href="/questions/tagged/{t}" class="post-tag">{t}</a>'
        for t in v.pick(
            ("how-to", "beginner", "maintenance", "safety", "best-practice", "troubleshooting"), 3, "tags"
        )
    )
    return f"""<!DOCTYPE html>
<html itemscope itemtype="https://schema.org/QAPage" lang="{v.lang}">
<head>
{meta_charset(v)}
<title>{esc(v.title)} - {esc(v.site)}</title>
<meta name="viewport" content="width=device-width, height=device-height, initial-scale=1.0">
{head_links(v)}
<script>StackExchange.ready(function(){{StackExchange.using("postValidation",function(){{}});}});</script>
</head>
<body class="question-page">
<header class="top-bar"><div class="-container"><a href="/" class="-logo"><span class="-img">{esc(v.site)}</span></a>
<ol class="-secondary"><li><a href="/users/login">Log in</a></li><li><a href="/users/signup">Sign up</a></li></ol>
<form id="search" action="/search"><input name="q" type="text" placeholder="Search&hellip;" aria-label="Search"></form></div></header>
<div class="container"><div id="left-sidebar"><nav role="navigation"><ol class="nav-links"><li><a href="/">Home</a></li><li><a href="/questions">Questions</a></li><li><a href="/tags">Tags</a></li><li><a href="/users">Users</a></li><li><a href="/unanswered">Unanswered</a></li></ol></nav></div>
<div id="content"><div id="question-header"><h1 itemprop="name"><a href="/questions/{qid}" class="question-hyperlink">{esc(v.title)}</a></h1></div>
<div class="question-meta">Asked {long_date(v.page.published)} &middot; Viewed {qid % 40000 + 500:,} times</div>
<div id="question" class="question"><div class="post-taglist">{tags}</div></div>
<div id="answers"><div id="answers-header"><h2>1 Answer</h2></div>
<div id="answer-{qid + 1}" class="answer accepted-answer" itemprop="acceptedAnswer" itemscope itemtype="https://schema.org/Answer">
<div class="votecell"><button class="vote-up" aria-label="Up vote">&#9650;</button><div class="vote-count" itemprop="upvoteCount">{votes}</div><button class="vote-down" aria-label="Down vote">&#9660;</button>
<div class="accepted" title="Accepted answer">&#10004;</div></div>
<div class="answercell"><div class="s-prose" itemprop="text">
{body_html(v, "html5")}
</div>
{pagination(v, wrap='<div class="s-pagination">{}</div>', next_label="Next page &rsaquo;")}
<div class="post-signature"><div class="user-info">answered by <a href="/users/{qid % 5000}">{esc(v.page.author or "community")}</a></div></div>
<div class="post-menu"><a href="/a/{qid + 1}" class="js-share-link">Share</a> <a href="/posts/{qid + 1}/edit">Improve this answer</a> <a href="#" class="flag">Follow</a></div>
{comments}
</div></div></div>
<div id="sidebar"><div class="s-sidebarwidget"><div class="s-sidebarwidget--header">Linked</div><ul>{related(v, QA_RELATED, 3)}</ul></div>
<div class="s-sidebarwidget hot-network"><h4>Hot Network Questions</h4><ul>{related(v, QA_RELATED, 4)}</ul></div>
<div id="dfp-tsb" class="everyonelovesstackoverflow">{ad_iframe(v, "300x250", "sidebar")}</div></div></div></div>
<footer id="footer" class="site-footer"><nav><a href="/tour">Tour</a> <a href="/help">Help</a> <a href="/legal/privacy-policy">Privacy</a> <a href="/legal/terms-of-service">Terms</a></nav>
<p>Site design / logo &copy; {v.year} {esc(v.site)}; user contributions licensed under CC BY-SA.</p></footer>
{cookie_banner(v, "onetrust") if v.flag("cookie") else ""}
</body>
</html>
"""


QA_RELATED = (
    "Is it safe to do this without special tools?",
    "Why does mine keep failing after a week?",
    "What is the difference between the two common methods?",
    "How often should this be done?",
    "Does temperature matter more than time?",
    "Cheapest way to get started?",
    "What are the first signs of a problem?",
)


def edu(v: PageView) -> str:
    side = "".join(f'<li><a href="/{slugify(s)}">{s}</a></li>' for s in v.pick(EDU_TOPICS, 6, "topics"))
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            return f'<div class="ask-expert" id="ask-{cid}"><p class="q-meta"><b>{esc(c.author)}</b>, {us_date(c.date)}</p><p>{esc(c.text)}</p>{replies}</div>'

        comments = f'<div id="ask-an-expert"><h2>Ask an Expert</h2>{comment_tree(v.page.comments, item, outer="{}", children="<div class=expert-replies>{}</div>")}</div>'
    return f"""<!DOCTYPE html>
<html lang="{v.lang}" dir="ltr">
<head>
{meta_charset(v, old_style=v.flag("meta"))}
<title>{esc(v.title)} | {esc(v.site)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1.0">
{head_links(v)}
<link rel="stylesheet" media="all" href="/sites/default/files/css/css_extension.css">
</head>
<body class="path-node page-node-type-publication">
<div class="dialog-off-canvas-main-canvas">
<div id="utility-bar"><a href="https://www.example.edu/">University Home</a> | <a href="/directory">Directory</a> | <a href="/give">Give</a></div>
<header role="banner" id="header"><a href="/" class="site-logo">{esc(v.site)}</a><p class="site-slogan">Research-based information for your home, farm and community</p>
<nav role="navigation" id="main-menu"><ul class="menu"><li><a href="/programs">Programs</a></li><li><a href="/publications">Publications</a></li><li><a href="/events">Events</a></li><li><a href="/4-h">4-H Youth</a></li><li><a href="/counties">County Offices</a></li></ul></nav></header>
<div id="breadcrumb"><nav class="breadcrumb" role="navigation"><ol><li><a href="/">Home</a></li><li><a href="/publications">Publications</a></li><li>{esc(v.title)}</li></ol></nav></div>
<div class="layout-container"><aside class="layout-sidebar-first" role="complementary"><h2>In this section</h2><ul class="menu">{side}</ul></aside>
<main role="main" class="layout-content"><a id="main-content" tabindex="-1"></a>
<div class="node node--type-publication"><h1 class="page-title"><span>{esc(v.title)}</span></h1>
<div class="field--name-field-authors">{esc(v.page.author or "Extension Staff")}</div>
<div class="pub-date">Published {long_date(v.page.published)}</div>
<div class="print-link"><a href="javascript:window.print()">Print this page</a> | <a href="?format=pdf">Download PDF</a></div>
<div class="clearfix text-formatted field field--name-body">
{body_html(v, "html5")}
</div>
{pagination(v, wrap='<nav class="pager" role="navigation"><ul class="pager__items">{}</ul></nav>', next_label="Next page &rsaquo;&rsaquo;")}
<div class="disclaimer"><p><em>Reference to commercial products or trade names does not imply endorsement. Extension programs are open to all.</em></p></div>
</div>
{comments}
</main></div>
<footer role="contentinfo"><p>{esc(v.site)} &middot; 100 Campus Drive &middot; <a href="/accessibility">Accessibility</a> &middot; <a href="/nondiscrimination">Nondiscrimination statement</a></p>
<p>&copy; {v.year} Board of Trustees. All rights reserved.</p></footer></div>
{cookie_banner(v, "cc") if v.flag("cookie") else ""}
<script src="/core/misc/drupal.js?v=8.9.1"></script>
</body>
</html>
"""


EDU_TOPICS = (
    "Home Gardening",
    "Soil Testing",
    "Food Preservation",
    "Nutrition and Wellness",
    "Pests and Diseases",
    "Lawn Care",
    "Small Animals",
    "Water Quality",
    "Energy at Home",
    "Youth Programs",
)


def health(v: PageView) -> str:
    toc_items = "".join(
        f'<li><a href="#{slugify(b.inline.text)}">{esc(b.inline.text)}</a></li>'  # type: ignore[union-attr]
        for b in v.blocks
        if b.kind == "heading"
    )
    toc = (
        f'<nav class="toc" aria-label="On this page"><h2>On this page</h2><ol>{toc_items}</ol></nav>'
        if toc_items
        else ""
    )
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            return f'<li class="story" id="story-{cid}"><p class="story-author">{esc(c.author)} &middot; {long_date(c.date)}</p><p>{esc(c.text)}</p>{replies}</li>'

        comments = f'<section class="patient-stories"><h2>Reader experiences</h2>{comment_tree(v.page.comments, item, outer="<ul>{}</ul>", children="<ul>{}</ul>")}</section>'
    reviewer = v.pick(
        ("Dr. A. Morrell, MD", "J. Okafor, RN", "Dr. L. Brandt, PharmD", "S. Iyer, MS, RD"), 1, "reviewer"
    )[0]
    return f"""<!DOCTYPE html>
<html lang="{v.lang}">
<head>
{meta_charset(v)}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(v.title)} - {esc(v.site)}</title>
{head_links(v)}
<style>.adv{{font-size:11px;color:#777;text-transform:uppercase}}</style>
{analytics(v)}
</head>
<body>
<header class="hl-header"><a class="hl-logo" href="/">{esc(v.site)}</a>
<nav class="hl-nav"><a href="/conditions">Health Conditions</a> <a href="/wellness">Wellness</a> <a href="/tools">Tools</a> <a href="/featured">Featured</a> <a href="/newsletters">Newsletters</a></nav>
<a class="hl-signup" href="/newsletters">Sign up</a></header>
<main id="main-content"><article>
<h1>{esc(v.title)}</h1>
<div class="byline">{"Written by " + esc(v.page.author) + " &middot; " if v.page.author else ""}Medically reviewed by {esc(reviewer)} &middot; Updated on {long_date(v.page.published)}</div>
<div class="disclaimer-box">Our content is for informational purposes only and is not a substitute for professional medical advice.</div>
{toc}
<div class="article-body">
{body_html(v, "html5", 3, lambda n: f'<aside class="adv-wrap"><p class="adv">Advertisement</p>{ad_iframe(v, "300x250", f"mid{n}")}</aside>')}
</div>
{pagination(v, wrap='<nav class="article-pages">{}</nav>', next_label="Next page &rarr;")}
<div class="helpful"><p>Was this article helpful?</p><button>Yes</button><button>No</button></div>
</article>
<section class="related-reads"><h2>Related reading</h2><ul>{related(v, HEALTH_RELATED, 3)}</ul></section>
{sponsored(v, 2, "sponsored-content")}
{comments}
</main>
<aside class="newsletter-module">{newsletter("nl", "Get our wellness newsletter", "Evidence-based tips in your inbox every week.")}</aside>
<footer class="hl-footer"><p><a href="/about">About</a> &middot; <a href="/editorial-policy">Editorial policy</a> &middot; <a href="/privacy">Privacy</a> &middot; <a href="/ad-policy">Advertising policy</a></p>
<p>&copy; {v.year} {esc(v.site)}. This site does not provide medical advice, diagnosis, or treatment.</p></footer>
{cookie_banner(v, "onetrust" if v.flag("cookie") else "cc")}
</body>
</html>
"""


HEALTH_RELATED = (
    "Simple stretches for desk workers",
    "What to keep in a home first aid kit",
    "How much water do you really need?",
    "Understanding food labels",
    "When to see a doctor about a headache",
    "Sleep myths, debunked",
)


def docs(v: PageView) -> str:
    side = "".join(f'<li><a href="/kb/{slugify(s)}">{s}</a></li>' for s in v.pick(DOCS_TOPICS, 6, "kb"))
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            return f'<div class="kb-comment" id="kb-c{cid}"><div class="kb-comment-head">{esc(c.author)} &middot; {c.date}</div><div class="kb-comment-body">{esc(c.text)}</div>{replies}</div>'

        comments = f'<section class="kb-comments"><h2>Community comments</h2>{comment_tree(v.page.comments, item, outer="{}", children="<div class=kb-replies>{}</div>")}</section>'
    kb = zlib.crc32(v.page.url.encode()) % 90000 + 10000
    return f"""<!DOCTYPE html>
<html lang="{v.lang}">
<head>
{meta_charset(v)}
<title>{esc(v.title)} &#8211; {esc(v.site)} Support</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
{head_links(v)}
<link rel="stylesheet" href="/hc/theming_assets/support.css">
<script>window.HelpCenter={{"locale":"{v.lang}","account":"{attr(v.host)}"}};</script>
</head>
<body class="kb-article">
<header class="kb-header"><a class="kb-logo" href="/hc/{v.lang}">{esc(v.site)} Support</a>
<nav><a href="/hc/{v.lang}/categories">Categories</a> <a href="/community">Community</a> <a href="/hc/{v.lang}/requests/new">Submit a request</a> <a href="/signin">Sign in</a></nav>
<form role="search" class="kb-search" action="/hc/search"><input type="search" name="query" placeholder="Search the knowledge base"></form></header>
<div class="kb-container"><nav class="kb-breadcrumbs"><ol><li><a href="/hc/{v.lang}">{esc(v.site)} Support</a></li><li><a href="/hc/{v.lang}/sections/guides">How-to guides</a></li></ol></nav>
<div class="kb-columns"><aside class="kb-sidebar"><h3>Articles in this section</h3><ul>{side}</ul></aside>
<main class="kb-main"><article class="article">
<header class="article-header"><h1 title="{attr(v.title)}">{esc(v.title)}</h1>
<div class="article-meta">{esc(v.page.author or "Support team")} &middot; Updated {long_date(v.page.published)} &middot; Article ID KB{kb}</div></header>
<div class="applies-to"><strong>Applies to:</strong> all current models</div>
<section class="article-info"><div class="article-body">
{body_html(v, "html5")}
</div></section>
{pagination(v, wrap='<nav class="kb-pagination">{}</nav>', next_label="Next page &raquo;")}
<footer class="article-footer"><div class="article-votes"><span class="article-votes-question">Was this article helpful?</span> <button class="article-vote-up">Yes</button> <button class="article-vote-down">No</button>
<small class="article-votes-count">{kb % 300 + 5} out of {kb % 300 + kb % 40 + 9} found this helpful</small></div>
<div class="article-return-to-top"><a href="#article-container">Return to top</a></div></footer>
</article>
<section class="related-articles"><h3>Related articles</h3><ul>{related(v, DOCS_TOPICS, 3)}</ul></section>
{comments}
</main></div></div>
<footer class="kb-footer"><p>&copy; {v.year} {esc(v.site)} Inc. &middot; <a href="/legal">Legal</a> &middot; <a href="/privacy">Privacy</a> &middot; <a href="/cookies">Cookie preferences</a></p></footer>
{cookie_banner(v, "onetrust")}
</body>
</html>
"""


DOCS_TOPICS = (
    "Update the firmware",
    "Reset to factory settings",
    "Troubleshoot connection problems",
    "Register your product",
    "Warranty information",
    "Clean and care for your device",
    "Battery and charging FAQ",
    "Contact customer support",
)


def legacy(v: PageView) -> str:
    """A ~2008 table-layout page: spacer GIFs, font tags, left menu column, hit counter, AdSense script."""
    menu = "".join(
        f'<TR><TD class="menu"><A href="{attr(v.origin)}/{slugify(m)}.html"><font face="Verdana" size="1" color="#FFFFFF">&raquo; {m}</font></A></TD></TR>\n'
        for m in ("Home", *v.pick(LEGACY_MENU, 6, "menu"), "Links", "Contact")
    )
    comments = ""
    if v.show_comments and v.page.comments:

        def item(c: Comment, cid: int, replies: str) -> str:
            return (
                f'<TR><TD bgcolor="#F4F4EC"><font face="Verdana" size="1"><B>{esc(c.author)}</B> wrote on {us_date(c.date)}:</font><BR>'
                f'<font face="Verdana" size="2">{esc(c.text)}</font>{replies}</TD></TR>\n'
            )

        comments = (
            '<BR><font face="Verdana" size="3"><B>Visitor Comments</B></font><BR>'
            + comment_tree(
                v.page.comments,
                item,
                outer='<TABLE width="100%" border="0" cellpadding="5" cellspacing="2">{}</TABLE>',
                children='<TABLE width="95%" align="right" border="0" cellpadding="4" cellspacing="1">{}</TABLE>',
            )
            + '<BR><A href="guestbook.html"><font size="1">Sign my Guestbook!</font></A>'
        )
    pages = pagination(
        v,
        wrap='<CENTER><font face="Verdana" size="2">{}</font></CENTER><BR>',
        next_label="Next page &gt;&gt;",
        prev_label="&lt;&lt; Previous page",
        current="<B>[{n}]</B>",
        link='<A href="{href}">{n}</A>',
        sep=" | ",
    )
    counter = zlib.crc32(v.page.url.encode()) % 90000 + 1200
    return f"""<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
<HTML>
<HEAD>
{meta_charset(v, old_style=True)}
<TITLE>{esc(v.site)} - {esc(v.title)}</TITLE>
<META name="keywords" content="{attr(", ".join(v.title.lower().split()[:6]))}">
{head_links(v, canonical=False)}
<STYLE type="text/css">
A:link {{color: #003399}} A:visited {{color: #663399}} TD.menu {{background-color: #669933}} BODY {{margin: 0px}}
</STYLE>
<SCRIPT language="JavaScript" type="text/javascript">
<!--
function MM_swapImgRestore() {{ var i,x,a=document.MM_sr; for(i=0;a&&i<a.length&&(x=a[i])&&x.oSrc;i++) x.src=x.oSrc; }}
//-->
</SCRIPT>
</HEAD>
<BODY bgcolor="#FFFFFF" leftmargin="0" topmargin="0" marginwidth="0" marginheight="0">
<TABLE width="780" border="0" cellpadding="0" cellspacing="0" align="center">
<TR><TD colspan="3" bgcolor="#336600" height="80"><IMG src="images/spacer.gif" width="10" height="1"><font face="Georgia" size="6" color="#FFFFFF"><B>{esc(v.site)}</B></font><BR>
<IMG src="images/spacer.gif" width="10" height="1"><font face="Verdana" size="1" color="#DDEECC">Your online resource since {v.year - 3}</font></TD></TR>
<TR><TD colspan="3" bgcolor="#99CC66"><font face="Verdana" size="1">&nbsp;<A href="{attr(v.origin)}/index.html">Home</A> &gt; <A href="{attr(v.origin)}/articles.html">Articles</A> &gt; {esc(v.title)}</font></TD></TR>
<TR>
<TD width="150" valign="top" bgcolor="#669933"><TABLE width="150" border="0" cellpadding="4" cellspacing="0">
{menu}</TABLE><BR>
<CENTER><script type="text/javascript"><!--
google_ad_client = "pub-0000000000000000"; google_ad_width = 120; google_ad_height = 600; google_ad_format = "120x600_as";
//--></script>
<script type="text/javascript" src="http://pagead2.googlesyndication.com/pagead/show_ads.js"></script></CENTER></TD>
<TD width="10"><IMG src="images/spacer.gif" width="10" height="1"></TD>
<TD width="620" valign="top"><BR>
<font face="Verdana, Arial, Helvetica" size="4" color="#336600"><B>{esc(v.title)}</B></font><BR>
<font face="Verdana" size="1" color="#666666">{"by " + esc(v.page.author) + " - " if v.page.author else ""}last updated {us_date(v.page.published)}</font><BR><BR>
{body_html(v, "legacy")}
{pages}
<TABLE width="100%" border="0" bgcolor="#FFFFCC" cellpadding="6"><TR><TD><font face="Verdana" size="1"><B>Sponsored Links</B><BR>
{"<BR>".join(f'<A href="https://clk.promolink-demo.net/c?id={i}">{esc(s.split("|")[0])}</A>' for i, s in enumerate(v.pick(SPONSORED, 2, "legacy-ads")))}</font></TD></TR></TABLE>
{comments}
<BR><HR size="1" noshade>
<CENTER><font face="Verdana" size="1">Copyright &copy; {v.year} {esc(v.site)}. All Rights Reserved. | <A href="privacy.html">Privacy</A> | <A href="links.html">Link to us</A><BR>
You are visitor number <B>{counter:06d}</B> | Best viewed with Internet Explorer 6 at 1024x768</font></CENTER><BR>
</TD></TR></TABLE>
</BODY>
</HTML>
"""


LEGACY_MENU = (
    "Articles",
    "Tips &amp; Tricks",
    "Recipes",
    "Gardening",
    "Pets",
    "Computers",
    "Health",
    "Free Downloads",
    "Photo Gallery",
    "FAQ",
    "Guestbook",
    "Awards",
)


THEMES: dict[str, Callable[[PageView], str]] = {
    "news": news,
    "blog": blog,
    "recipe": recipe,
    "forum": forum,
    "gov": gov,
    "shop": shop,
    "magazine": magazine,
    "qa": qa,
    "edu": edu,
    "health": health,
    "legacy": legacy,
    "docs": docs,
}


def render(v: PageView) -> str:
    return THEMES[v.page.theme or "blog"](v)


def js_shell(page: Page) -> str:
    """A single-page app as a crawler archives it: scripts and an empty mount point, no text at all."""
    h = zlib.crc32(page.url.encode())
    return f"""<!doctype html>
<html lang="{page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>{esc(page.title)}</title>
<link rel="icon" href="/favicon.ico">
<link href="/static/css/main.{h:08x}.css" rel="stylesheet">
<script defer="defer" src="/static/js/runtime.{h >> 4:07x}.js"></script>
<script defer="defer" src="/static/js/main.{h >> 8:06x}.chunk.js"></script>
</head>
<body>
<div id="root"></div>
<script>window.__APP_CONFIG__={{"apiBase":"/api/v2","release":"{h % 97}.{h % 13}.0","sentry":true}};</script>
</body>
</html>
"""


NOT_FOUND = """<html>
<head><title>404 Not Found</title></head>
<body>
<center><h1>404 Not Found</h1></center>
<hr><center>nginx</center>
</body>
</html>
"""
