# ruff: noqa: E501  (HTML templates read best one tag run per line)
"""Site chromes: the boilerplate real pages wrap around their article.

Each theme is one function ``PageView -> str`` that fills a Jinja2 template (``templates/<theme>.html``) with a
whole HTML document in the markup habits of one kind of site (navigation, ads, consent banners, newsletter boxes, share widgets, related links, comments,
pagination). Everything a theme adds is boilerplate: the ground truth is only the body's blocks. Choices that
vary between pages of a theme are drawn from a hash of the URL, so rendering stays deterministic.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import jinja2

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


# --------------------------------------------------------------------------- templates


def _page(template: str, **context: object) -> str:
    return TEMPLATES.get_template(f"{template}.html").render(**context)


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
    return _page("news", v=v, byline=byline, comments=comments, nav=nav, ticker=ticker)


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
    return _page("blog", v=v, archive=archive, comments=comments)


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
    return _page("recipe", v=v, comments=comments, more=more)


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
    return _page("forum", v=v, forum_name=forum_name, posts_html=posts_html, t=t)


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
    return _page("gov", v=v, agency=agency, comments=comments, side=side)


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
    return _page("shop", v=v, cards=cards, comments=comments)


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
    return _page("magazine", v=v, bio=bio, comments=comments)


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
    return _page("qa", v=v, comments=comments, qid=qid, tags=tags, votes=votes)


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
    return _page("edu", v=v, comments=comments, side=side)


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
    return _page("health", v=v, comments=comments, reviewer=reviewer, toc=toc)


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
    return _page("docs", v=v, comments=comments, kb=kb, side=side)


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
    return _page("legacy", v=v, comments=comments, counter=counter, menu=menu, pages=pages)


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

#: Escaping is the templates' own (``esc``/``attr`` where the f-strings had them), not autoescape: the chromes
#: hold ready-made entities ("Tips &amp; Tricks") and the output must stay byte for byte what it was.
TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    autoescape=False,
    keep_trailing_newline=True,
    undefined=jinja2.StrictUndefined,
)
TEMPLATES.filters.update(esc=esc, fmt=format)
TEMPLATES.globals.update(
    {
        name: globals()[name]
        for name in (
            "BLOG_RELATED",
            "BLOG_TAGLINES",
            "DOCS_TOPICS",
            "HEALTH_RELATED",
            "MAG_RELATED",
            "NEWS_RELATED",
            "QA_RELATED",
            "SPONSORED",
            "ad_iframe",
            "analytics",
            "attr",
            "body_html",
            "cookie_banner",
            "esc",
            "head_links",
            "long_date",
            "meta_charset",
            "newsletter",
            "pagination",
            "related",
            "share_links",
            "slugify",
            "sponsored",
            "us_date",
        )
    }
)


def render(v: PageView) -> str:
    return THEMES[v.page.theme or "blog"](v)


def js_shell(page: Page) -> str:
    """A single-page app as a crawler archives it: scripts and an empty mount point, no text at all."""
    h = zlib.crc32(page.url.encode())
    return _page("js_shell", h=h, page=page)


NOT_FOUND = """<html>
<head><title>404 Not Found</title></head>
<body>
<center><h1>404 Not Found</h1></center>
<hr><center>nginx</center>
</body>
</html>
"""
