"""Pages that are not news articles, in the shapes met on real sites: each cause issue 14 found on them.

Forum threads keep their posts (on a forum they are the content) while an article's comment section still
goes; class names match boilerplate rules by whole word, never by substring; a product page's description
and specifications count even where only its JSON-LD has them; a link-heavy table of job postings is data.
"""

from __future__ import annotations

import json

import pytest

from wikihowqa.parse import parse_html

LOREM = (
    "Descaling the boiler every three months keeps the pressure stable and the shots consistent, "
    "and a citric acid solution is gentler on the seals than vinegar."
)


def _page(body: str, head: str = "", title: str = "A page") -> bytes:
    return f"<html><head><title>{title}</title>{head}</head><body>{body}</body></html>".encode()


# ---------------------------------------------------------------- class and id names: whole words only


@pytest.mark.parametrize(
    "opening",
    [
        '<div class="entry themeform share">',  # a theme that names the post body's box "share"
        '<div class="cmp-container"><div class="cmp-text">',  # Adobe AEM components, not a consent platform
        '<div id="share-btn" class="post-body">',  # a post body whose id names its share button
        '<div class="themeform">',
    ],
)
def test_a_content_box_with_a_widget_like_name_keeps_its_text(opening):
    closing = "</div>" * opening.count("<div")
    paragraphs = "".join(f"<p>{LOREM} Step {i} of the routine is described here.</p>" for i in range(6))
    # The headline sits apart, in the page header, as on most themes: nothing protects the box itself.
    html = _page(
        f"<nav><a href='/'>Home</a></nav><header><h1>Descaling</h1></header>{opening}{paragraphs}{closing}"
    )
    page = parse_html(html, "https://espresso.example/descaling")
    assert page.ok and page.text.count("Descaling the boiler") == 6


def test_widgets_are_still_recognised_by_whole_words_and_compounds():
    html = _page(
        "<article><h1>Descaling</h1>"
        + "".join(f"<p>{LOREM} ({i})</p>" for i in range(4))
        + '<div class="social-share-bar"><a href="/s">Share on X</a> <a href="/f">Facebook</a></div>'
        + '<div class="jp-relatedposts"><a href="/a">Cleaning a grinder</a></div>'
        + '<div id="cookieNotice" role="dialog">We use cookies to improve the site.</div>'
        + "</article>"
    )
    page = parse_html(html, "https://espresso.example/descaling")
    assert "Share on X" not in page.text and "Cleaning a grinder" not in page.text
    assert "We use cookies" not in page.text and page.text.count("Descaling the boiler") == 4
    assert {"share", "related", "cookie"} <= set(page.removed)


# ---------------------------------------------------------------- forum threads and article comments

POSTS = [
    (
        "coffee_nut",
        "My machine loses pressure after a minute and the shots run thin. I descaled it last "
        "spring with vinegar. Is the pump going, or is it the gasket?",
    ),
    (
        "barista_bo",
        "Vinegar is hard on the group head gasket. Replace the gasket first: it costs a few "
        "euros and it is the usual cause when pressure drops after warming up.",
    ),
    (
        "lever_lucy",
        "Agree with the gasket. Also check the shower screen for scale, a blocked screen "
        "gives the same symptoms and a soak in citric acid clears it.",
    ),
    (
        "coffee_nut",
        "It was the gasket. New one fitted in ten minutes and the pressure holds again. "
        "Thanks both, marking this solved for the next person.",
    ),
]


def _thread(post_open: str, post_close: str) -> bytes:
    posts = "".join(
        f'{post_open}<div class="message-user"><a class="username" href="/members/{who}">{who}</a>'
        f'<time datetime="2024-03-0{i + 1}">March {i + 1}, 2024</time></div>'
        f'<div class="message-body"><p>{text}</p></div>{post_close}'
        for i, (who, text) in enumerate(POSTS)
    )
    return _page(
        "<header><nav><a href='/forums'>Forums</a> <a href='/login'>Log in</a></nav></header>"
        f'<main><h1>Pressure drops after a minute</h1><div id="comments" class="cTopic">{posts}</div></main>'
        "<footer>© Espresso Forum</footer>",
        title="Pressure drops after a minute | Espresso Forum",
    )


@pytest.mark.parametrize(
    ("post_open", "post_close"),
    [
        ('<article class="message message--post">', "</article>"),  # XenForo
        ('<div class="MtnComment Discussion">', "</div>"),  # Vanilla forums
        ('<div class="comment post">', "</div>"),
    ],
)
def test_a_forum_thread_keeps_every_post_even_under_comment_names(post_open, post_close):
    page = parse_html(_thread(post_open, post_close), "https://forum.example/t/pressure-drops")
    assert page.ok and page.page_type == "forum"
    for _, text in POSTS:
        assert text in page.text
    assert "Log in" not in page.text and "© Espresso Forum" not in page.text


def test_an_article_still_loses_its_comment_section(fixture_bytes):
    page = parse_html(fixture_bytes("blog_with_comments.html"), "https://homehacks.example/descale-kettle/")
    assert page.page_type == "article" and page.comments_removed
    assert "Hard water leaves a chalky crust" in page.text and "worked brilliantly" not in page.text


def test_a_post_with_short_replies_reads_as_an_article_and_its_comments():
    long_post = "".join(f"<p>{LOREM} Part {i}.</p>" for i in range(8))
    replies = [
        ("ana", "Great write-up, thanks!"),
        ("ben", "Saved this for later, very useful."),
        ("cy", "Worked for my machine too, thank you."),
    ]
    posts = f'<div class="post"><span class="author">host</span><time>2020</time>{long_post}</div>' + "".join(
        f'<div class="post"><span class="author">{who}</span><time>2020</time>'
        f"<p>{text} {LOREM[:60]}</p></div>"
        for who, text in replies
    )
    page = parse_html(_page(f"<main><h1>How I descale</h1>{posts}</main>"), "https://blog.example/descale")
    assert page.ok and page.page_type != "forum" and page.comments_removed
    assert page.text.count("Descaling the boiler") == 8
    assert all(text not in page.text for _, text in replies)


# ---------------------------------------------------------------- products: JSON-LD description and specs


def test_a_thread_whose_posts_name_no_author_or_date_keeps_every_post():
    # posts of one shape, their dates plain text and their authors in unnamed boxes: the rules find no
    # dated posts and read an article, the forest reads a thread, and the run of posts holds the page's text
    posts = "".join(
        f'<div class="blockpost"><h2><span>2024-03-0{i + 1} 10:0{i}</span></h2>'
        f'<div class="postleft"><dl><dt><strong>{who}</strong></dt><dd>Member</dd></dl></div>'
        f'<div class="postright"><div class="postmsg"><p>{text}</p></div></div></div>'
        for i, (who, text) in enumerate(POSTS * 2)
    )
    body = (
        "<header><nav><a href='/'>Index</a> <a href='/login'>Log in</a></nav></header>"
        f"<main><h1>Pressure drops after a minute</h1><div class='topic'>{posts}</div></main>"
        "<footer>Powered by a forum engine</footer>"
    )
    page = parse_html(
        _page(body, title="Pressure drops after a minute"), "https://forum.example/t/pressure/123"
    )
    assert page.ok and page.page_type == "forum"
    assert all(page.text.count(text) >= 1 for _, text in POSTS) and "Log in" not in page.text


def test_a_product_description_and_specifications_only_in_json_ld_are_kept():
    data = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": "Citric Descaler 500 g",
        "description": "<p>Food-grade citric acid for espresso machines and kettles. One sachet per litre "
        "of water removes limescale without harming seals or gaskets.</p>",
        "additionalProperty": [
            {"@type": "PropertyValue", "name": "Net weight", "value": "500 g"},
            {"@type": "PropertyValue", "name": "Doses", "value": "20 treatments"},
        ],
        "offers": {"@type": "Offer", "price": "9.90", "priceCurrency": "EUR"},
    }
    head = f'<script type="application/ld+json">{json.dumps(data)}</script>'
    body = (
        "<main><h1>Citric Descaler 500 g</h1><div class='price'>€9.90</div>"
        "<form action='/cart/add'><button>Add to cart</button></form>"
        "<div id='description'></div><p>Free shipping on orders over €30 in the whole country.</p></main>"
    )
    page = parse_html(_page(body, head, "Citric Descaler 500 g"), "https://shop.example/products/descaler")
    assert page.ok and page.page_type == "product"
    assert "One sachet per litre of water removes limescale" in page.text
    assert "Net weight | 500 g" in page.text and "Doses | 20 treatments" in page.text
    assert "| Net weight | 500 g |" in page.markdown


# ---------------------------------------------------------------- link-heavy tables are data


def test_a_job_board_table_of_links_is_content_not_a_link_list():
    jobs = [
        ("Barista, full time", "Lyon"),
        ("Coffee roaster", "Nantes"),
        ("Shift lead", "Lille"),
        ("Café manager", "Paris"),
        ("Espresso machine technician", "Lyon"),
        ("Trainer", "Bordeaux"),
    ]
    rows = "".join(
        f"<tr><td><a href='/jobs/{i}'>{title}</a></td><td><a href='/city/{city}'>{city}</a></td>"
        f"<td><a href='/jobs/{i}#apply'>Apply</a></td></tr>"
        for i, (title, city) in enumerate(jobs)
    )
    html = _page(
        f"<nav><a href='/'>Home</a></nav><main><h1>Open positions</h1><table>{rows}</table></main>",
        title="Open positions",
    )
    page = parse_html(html, "https://jobs.example/openings")
    assert page.ok, page.rejection
    for title, city in jobs:
        assert title in page.text and city in page.text


# ---------------------------------------------------------------- the recognised type is recorded


def test_the_page_type_is_recorded_with_the_page():
    from wikihowqa.parse.pagetype import PAGE_TYPES

    page = parse_html(_thread('<article class="message">', "</article>"), "https://forum.example/t/1")
    assert page.page_type in PAGE_TYPES and page.info()["page_type"] == "forum"


def test_a_second_dated_block_as_long_as_half_the_first_is_no_comment_and_stays():
    # a blog's classless layout: one dated block holds the post, the next (as dated) its archive column
    post = "".join(f"<p>{LOREM} Part {i}.</p>" for i in range(8))
    column = "".join(f"<p>Archive entry {i}: {LOREM}</p>" for i in range(5))
    body = (
        f"<div><span class='author'>host</span><time>2020</time><h1>How I descale</h1>{post}</div>"
        f"<div><span class='author'>host</span><time>2019</time>{column}</div>"
    )
    page = parse_html(_page(body, title="How I descale"), "https://blog.example/2020/descale")
    assert page.ok and not page.comments_removed
    assert page.text.count("Descaling the boiler") >= 8
