"""Site chromes: the boilerplate real pages wrap around their article.

Each theme is a Jinja2 template (``templates/<theme>.html``) that writes a whole HTML document in the markup
habits of one kind of site (navigation, ads, consent banners, newsletter boxes, share widgets, related links,
comments, pagination); this module holds what the templates call: the page view, the pieces several themes
share, and the lists they pick from. Everything a theme adds is boilerplate: the ground truth is only the
body's blocks. Choices that vary between pages of a theme are drawn from a hash of the URL, so rendering
stays deterministic.
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

    @property
    def url_hash(self) -> int:
        """A number of the URL the themes derive ids and counts from (topic ids, visitor counters)."""
        return zlib.crc32(self.page.url.encode())


# --------------------------------------------------------------------------- templates


def _page(template: str, **context: object) -> str:
    return TEMPLATES.get_template(f"{template}.html").render(**context)


# --------------------------------------------------------------------------- shared pieces


def charset_name(encoding: str) -> str:
    return {"shift_jis": "Shift_JIS", "euc-jp": "EUC-JP"}.get(encoding, encoding)


def long_date(d: date | None) -> str:
    return f"{d:%B} {d.day}, {d.year}" if d else ""


def us_date(d: date | None) -> str:
    return f"{d.month:02d}/{d.day:02d}/{d.year}" if d else ""


def text_hash(text: str) -> int:
    """A stable number of a text (ids of ad links and analytics tags)."""
    return zlib.crc32(text.encode())


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


@dataclass(frozen=True)
class ForumPost:
    """One post of a forum thread: the article as its first post, then each comment as a reply."""

    author: str
    when: date | None
    content: str  # HTML
    pid: int
    first: bool
    reply_to: str = ""


def forum_posts(v: PageView, topic: int) -> list[ForumPost]:
    """The thread's posts in reading order, replies flattened after the comment they answer."""
    pid = topic * 10 if v.number in (0, 1) else topic * 10 + v.number
    posts = [ForumPost(v.page.author or "admin", v.page.published, body_html(v, "bbcode"), pid, True)]
    if v.show_comments and v.page.comments:

        def flatten(comments: Sequence[Comment], parent: str = "") -> None:
            for c in comments:
                posts.append(
                    ForumPost(c.author, c.date, esc(c.text), topic * 10 + 100 + len(posts), False, parent)
                )
                flatten(c.replies, c.author)

        flatten(v.page.comments)
    return posts


# --------------------------------------------------------------------------- the lists the themes pick from


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


MAG_RELATED = (
    "The 12 best gifts for people who have everything",
    "We tried 9 popular cleaning hacks",
    "How to make your home feel bigger",
    "What nutritionists eat for breakfast",
    "The surprising science of habits",
    "Small changes that made our mornings easier",
    "Everything you need for a first apartment",
)


QA_RELATED = (
    "Is it safe to do this without special tools?",
    "Why does mine keep failing after a week?",
    "What is the difference between the two common methods?",
    "How often should this be done?",
    "Does temperature matter more than time?",
    "Cheapest way to get started?",
    "What are the first signs of a problem?",
)


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


HEALTH_RELATED = (
    "Simple stretches for desk workers",
    "What to keep in a home first aid kit",
    "How much water do you really need?",
    "Understanding food labels",
    "When to see a doctor about a headache",
    "Sleep myths, debunked",
)


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
            "EDU_TOPICS",
            "GOV_SECTIONS",
            "HEALTH_RELATED",
            "LEGACY_MENU",
            "MAG_RELATED",
            "NEWS_RELATED",
            "QA_RELATED",
            "SHOP_PRODUCTS",
            "SPONSORED",
            "attr",
            "body_html",
            "charset_name",
            "comment_tree",
            "count_comments",
            "esc",
            "forum_posts",
            "long_date",
            "pagination",
            "slugify",
            "text_hash",
            "us_date",
        )
    }
)

#: The shared pieces (``templates/_shared.html``: the charset and link tags of the head, related links,
#: sponsored boxes, ad frames, share bars, cookie banners, newsletter forms, analytics tags), callable by
#: name from every theme's template.
_SHARED = TEMPLATES.get_template("_shared.html").module
TEMPLATES.globals.update(
    {
        name: getattr(_SHARED, name)
        for name in (
            "ad_iframe",
            "analytics",
            "cookie_banner",
            "head_links",
            "meta_charset",
            "newsletter",
            "related",
            "share_links",
            "sponsored",
        )
    }
)


def render(v: PageView) -> str:
    return _page(v.page.theme or "blog", v=v)


def js_shell(page: Page) -> str:
    """A single-page app as a crawler archives it: scripts and an empty mount point, no text at all."""
    return _page("js_shell", page=page, h=zlib.crc32(page.url.encode()))


NOT_FOUND = """<html>
<head><title>404 Not Found</title></head>
<body>
<center><h1>404 Not Found</h1></center>
<hr><center>nginx</center>
</body>
</html>
"""
