"""A forum thread read as its posts: quotes of earlier posts, author panes, signatures and edit notes out,
the whole thread where an extractor kept one post, and each long paragraph once."""

from __future__ import annotations

import lxml.html

from wikihowqa.parse.blocks import Block
from wikihowqa.parse.sizes import text_sizes
from wikihowqa.parse.thread import (
    drop_answer_comments,
    drop_pasted_logs,
    drop_post_furniture,
    drop_quoted_copies,
    kept_one_post,
    missed_posts,
    posts_of,
    read_thread,
    said_once,
    thread_within,
)

FIRST = "My old projector has been wonderful for ten years but the time has come to find one that handles 4K."
SECOND = "Whatever you buy, calibrate it once it is mounted, because the factory settings are far too bright."
THIRD = "I moved to a laser model last spring and the fan noise alone was worth the price of the upgrade."


def _post(author: str, text: str, extra: str = "") -> str:
    return (
        f"<article class='message'><section class='message-user'><div class='message-userDetails'>"
        f"<h4><a href='/u/{author}'>{author}</a></h4><h5>Well-known member</h5></div>"
        f"<div class='message-userExtras'><dl><dt>Joined</dt><dd>Feb 16, 2015</dd><dt>Messages</dt>"
        f"<dd>6,696</dd></dl></div></section>"
        f"<div class='message-body'>{extra}<p>{text}</p></div>"
        f"<aside class='message-signature'>My setup: an old receiver and two bookshelf speakers</aside>"
        f"<div class='message-lastEdit'>Last edited: Jul 6, 2024</div></article>"
    )


def _thread(*posts: str, after: str = "") -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(
        f"<html><body><div class='thread'>{''.join(posts)}{after}</div></body></html>"
    )


def test_a_quote_repeating_an_earlier_post_goes_and_a_quote_of_elsewhere_stays():
    outside = "Ten thousand lumens is more than any living room needs, the reviewer wrote in his roundup."
    root = _thread(
        _post("josephf", FIRST),
        _post("bud", SECOND, f"<blockquote>josephf said: {FIRST}</blockquote>"),
        _post("ann", THIRD, f"<blockquote>{outside}</blockquote>"),
    )
    assert drop_quoted_copies(root, text_sizes(root)) == 1
    text = root.text_content()
    assert text.count(FIRST) == 1 and "josephf said" not in text and outside in text


def test_a_post_body_rendered_as_a_blockquote_stays_and_its_later_copy_goes():
    # vBulletin renders every post's own body as a <blockquote>, and a quote inside it as a <div>
    root = lxml.html.document_fromstring(
        f"<html><body><blockquote class='postcontent'>{FIRST}</blockquote>"
        f"<blockquote class='postcontent'><div class='bbcode_quote'>Originally Posted by josephf {FIRST}"
        f"</div>{SECOND}</blockquote></body></html>"
    )
    drop_quoted_copies(root)
    text = root.text_content()
    assert text.count(FIRST) == 1 and SECOND in text and "Originally Posted" not in text


def test_author_panes_are_cut_to_the_name_and_signatures_and_edit_notes_go():
    root = _thread(_post("josephf", FIRST), _post("bud", SECOND))
    drop_post_furniture(root, text_sizes(root))
    text = " ".join(root.text_content().split())
    assert "josephf" in text and "bud" in text and FIRST in text
    assert "Well-known member" not in text and "Joined" not in text and "6,696" not in text
    assert "bookshelf speakers" not in text and "Last edited" not in text


def test_an_extractor_that_kept_one_post_kept_a_fragment_of_the_thread():
    root = _thread(_post("josephf", FIRST), _post("bud", SECOND), _post("ann", THIRD))
    main = root.find("body")
    chars = text_sizes(root)[0]
    posts = posts_of(main, chars)
    assert len(posts) == 3
    assert kept_one_post(main, [FIRST], chars, posts)
    assert not kept_one_post(main, [FIRST, THIRD], chars, posts)


def test_a_thread_is_read_up_to_its_last_post():
    similar = (
        "<div class='similar'><h3>Similar threads</h3><p>Best budget projector for a small room</p></div>"
    )
    root = _thread(_post("josephf", FIRST), _post("bud", SECOND), _post("ann", THIRD), after=similar)
    main = root.find("body")
    texts = [b.text for b in read_thread(main, posts_of(main, text_sizes(root)[0]))]
    assert THIRD in texts and "Similar threads" not in texts


def test_a_long_paragraph_is_read_once_and_short_repeated_lines_stay():
    blocks = [Block("paragraph", t) for t in (FIRST, "Reply", SECOND, "Reply", FIRST, THIRD)]
    assert [b.text for b in said_once(blocks)] == [FIRST, "Reply", SECOND, "Reply", THIRD]


def test_comments_under_a_question_and_its_answers_go_but_a_threads_replies_stay():
    qa = lxml.html.document_fromstring(
        "<html><body><div itemscope itemtype='https://schema.org/Question'><p>How do I mount it?</p>"
        "<ul><li itemprop='comment' itemscope itemtype='https://schema.org/Comment'>Which model?</li></ul>"
        "<div itemscope itemtype='https://schema.org/Answer'><p>Use a ceiling bracket.</p>"
        "<div itemprop='comment' itemscope itemtype='https://schema.org/Comment'>Worked for me</div></div>"
        "</div></body></html>"
    )
    assert drop_answer_comments(qa, text_sizes(qa)) == 2
    text = qa.text_content()
    assert "ceiling bracket" in text and "Which model" not in text and "Worked for me" not in text
    thread = lxml.html.document_fromstring(
        "<html><body><div itemscope itemtype='https://schema.org/DiscussionForumPosting'><p>Opening post</p>"
        "<div itemprop='comment' itemscope itemtype='https://schema.org/Comment'>A reply</div>"
        "</div></body></html>"
    )
    assert drop_answer_comments(thread, text_sizes(thread)) == 0


def test_reactions_bars_and_what_quotes_leave_out_go_and_link_previews_are_cut_to_their_title():
    preview = (
        "<aside class='onebox'><h3><a href='https://example.org/review'>Laser projector review</a></h3>"
        "<p>Our verdict on the brightest models of the year, tested in a living room.</p></aside>"
    )
    root = _thread(
        _post("josephf", FIRST, preview),
        _post("bud", SECOND, "<div class='reactionsBar'>Reactions: ann, joe and 19 others</div>"),
        _post("ann", THIRD, "<span data-excludequote><strong>Edited January 29 by ann</strong></span>"),
    )
    drop_post_furniture(root, text_sizes(root))
    text = " ".join(root.text_content().split())
    assert "Laser projector review" in text and "Our verdict" not in text and "19 others" not in text
    assert THIRD in text and "Edited January" not in text


def test_an_author_card_declaring_a_person_is_cut_to_the_name():
    card = (
        "<div class='cell'><script type='application/ld+json'>{\"@type\": \"Person\", \"name\": \"lowjhg\"}"
        "</script><a href='/u/lowjhg'>lowjhg</a><div>Join Date: Aug 2008</div><div>Posts: 1,077</div></div>"
    )
    root = _thread(f"<div class='row'>{card}<div class='text'>{FIRST}</div></div>")
    drop_post_furniture(root, text_sizes(root))
    text = " ".join(root.text_content().split())
    assert "lowjhg" in text and FIRST in text and "Join Date" not in text


def test_the_posts_are_the_longest_run_not_the_pages_layout_blocks():
    posts = "".join(f"<article class='message'><p>{t}</p></article>" for t in (FIRST, SECOND, THIRD) * 2)
    summary = f"<div class='block summary'><p>{FIRST} {SECOND} {THIRD}</p></div>"
    similar = f"<div class='block'><p>{THIRD} {SECOND}</p></div>"
    root = lxml.html.document_fromstring(
        f"<html><body>{summary}<div class='block messages'>{posts}</div>{similar}</body></html>"
    )
    posts_found = posts_of(root.find("body"), text_sizes(root)[0])
    assert len(posts_found) == 6 and all(p.tag == "article" for p in posts_found)


def test_an_extractor_that_left_out_whole_replies_kept_a_part_of_the_thread():
    root = _thread(_post("josephf", FIRST), _post("bud", SECOND), _post("ann", THIRD))
    sizes = text_sizes(root)
    drop_post_furniture(root, sizes)  # as the forum profile does first: the posts are their authors and text
    chars = sizes[0]
    posts = posts_of(root.find("body"), chars)
    assert missed_posts([FIRST], chars, posts)
    assert not missed_posts([FIRST, SECOND, THIRD], chars, posts)


def test_a_thread_beside_a_sidebar_as_large_is_found_inside_the_container():
    online = " ".join(f"Member {i} is viewing this thread." for i in range(20))
    root = lxml.html.document_fromstring(
        "<html><body><div class='body-main'><div class='content'><div class='thread'>"
        f"{_post('josephf', FIRST)}{_post('bud', SECOND)}{_post('ann', THIRD)}</div></div>"
        f"<div class='side'><p>{online}</p></div></div></body></html>"
    )
    sizes = text_sizes(root)
    drop_post_furniture(root, sizes)
    main = root.find(".//div[@class='body-main']")
    inner, posts = thread_within(main, [FIRST], sizes[0])
    assert inner.get("class") == "content" and len(posts) == 3  # the sidebar left out


def test_an_author_pane_is_cut_to_the_name_not_to_the_letter_avatar():
    pane = (
        "<div class='message-userDetails'><a href='/u/bud' class='avatar'>B</a>"
        "<h4><a href='/u/bud'>boobaloobie</a></h4><dl><dt>Joined</dt><dd>Feb 16, 2015</dd></dl></div>"
    )
    root = _thread(f"<article class='message'>{pane}<div class='message-body'><p>{FIRST}</p></div></article>")
    drop_post_furniture(root, text_sizes(root))
    text = " ".join(root.text_content().split())
    assert text.startswith("boobaloobie") and "Joined" not in text


def test_a_pasted_log_goes_and_a_posted_snippet_stays():
    log = "\n".join(f"6:51:{i % 60:02d} AM: installing plugin number {i} from the cache" for i in range(300))
    snippet = "automation:\n  trigger: sunset\n  action: light.turn_on"
    root = _thread(
        _post("josephf", FIRST, f"<pre><code>{log}</code></pre>"),
        _post("bud", SECOND, f"<p>Try this: <code>{snippet}</code></p>"),
        _post("ann", THIRD, f"<p>Here is mine: <code>{log}</code></p>"),
    )
    assert drop_pasted_logs(root, text_sizes(root)) == 2
    text = root.text_content()
    assert "installing plugin" not in text and snippet in text
    assert all(post in text for post in (FIRST, SECOND, THIRD)) and "Here is mine:" in text
