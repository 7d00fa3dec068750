"""Boilerplate removal: what goes, and the article containers that must never go."""

from __future__ import annotations

import lxml.html
import pytest

from wikihowqa.parse.boilerplate import remove_boilerplate


def clean(html: str) -> tuple[str, dict[str, int]]:
    root = lxml.html.document_fromstring(html)
    removed = remove_boilerplate(root)
    return " ".join(" ".join(root.itertext()).split()), dict(removed)


def test_each_kind_is_recognised_by_class_or_id():
    text, removed = clean("""<html><body><article><h1>T</h1><p>Body text stays.</p></article>
      <section id="disqus_thread">Disqus comments</section>
      <div class="yarpp-related">Related reading</div>
      <div class="social-share-bar">Share on X</div>
      <div class="cc-window cookie-banner">We use cookies</div>
      <div class="mc4wp-form">Sign up for our newsletter</div></body></html>""")
    assert text == "T Body text stays."
    assert removed == {"comments": 1, "related": 1, "share": 1, "cookie": 1, "newsletter": 1}


def test_schema_org_comments_are_removed():
    text, removed = clean("""<html><body><article><h1>T</h1><p>Body.</p>
      <div itemprop="comment" itemscope itemtype="https://schema.org/Comment"><p>Nice one</p></div>
      </article></body></html>""")
    assert "Nice one" not in text and removed["comments"] == 1


def test_post_category_and_tag_classes_do_not_count():
    # WordPress puts the post's categories on <article>: a post filed under "social media" is no share widget
    text, removed = clean("""<html><body><div class="tag-comments category-social-media">
      <p>Body text of the post.</p></div>
      </body></html>""")
    assert text == "Body text of the post." and removed == {}


def test_commentary_is_content_not_comments():
    text, _ = clean('<html><body><div class="commentary"><p>An opinion piece.</p></div></body></html>')
    assert text == "An opinion piece."


def test_the_containers_of_the_headline_are_protected():
    text, removed = (
        clean("""<html><body><div class="post-share-wrapper"><h1>Headline</h1><p>Story text.</p></div>
      </body></html>""")
    )
    assert text == "Headline Story text." and removed == {}


def test_lists_of_links_go_and_lists_of_text_stay():
    text, removed = clean("""<html><body><article><h1>T</h1>
      <ul><li><a href="/1">One story</a></li><li><a href="/2">Two story</a></li>
      <li><a href="/3">Three story</a></li></ul>
      <ul><li>Mix the flour</li><li>Add <a href="/water">water</a> slowly</li><li>Knead ten minutes</li></ul>
      </article></body></html>""")
    assert "One story" not in text and "Mix the flour" in text and removed == {"link_list": 1}


def test_navigation_and_page_footer_go_but_an_article_footer_stays():
    text, removed = clean("""<html><body><nav>Home Shop</nav><article><h1>T</h1><p>Body.</p>
      <footer>About the author: gardener.</footer></article><footer>© 2020 Site</footer></body></html>""")
    assert text == "T Body. About the author: gardener." and removed == {"navigation": 2}


def test_a_comments_heading_takes_its_section_with_it():
    text, removed = clean("""<html><body><div class="entry"><h1>T</h1><p>Body.</p>
      <h3>5 Comments</h3><div><p>First!</p></div><div><p>Great.</p></div></div></body></html>""")
    assert text == "T Body." and removed == {"comments": 1}


def test_a_heading_whose_anchor_slugs_its_words_is_not_a_widget():
    # WordPress gives each heading an anchor made of its words: "social" in it names the heading's topic
    text, removed = clean("""<html><body><article><h1>T</h1><p>Intro.</p>
      <h2 class="wp-block-heading" id="h-what-is-social-shopping">
        <strong>What is Social Shopping?</strong></h2>
      <p>Buying inside the apps.</p>
      <h3 id="2-social-share-buttons">2. Social share buttons</h3><p>Where to put them.</p>
      </article></body></html>""")
    assert "What is Social Shopping?" in text and "2. Social share buttons" in text and removed == {}


def test_a_short_heading_anchor_still_names_a_widget():
    # two words are a widget's name as often as a heading's: "related-posts" over a list of links
    text, removed = clean("""<html><body><article><h1>T</h1><p>Body text of the post, long enough.</p>
      <h2 id="related-posts">Related posts</h2></article></body></html>""")
    assert text == "T Body text of the post, long enough." and removed == {"related": 1}


def test_a_highlighters_comment_tokens_inside_code_are_not_a_comment_section():
    text, removed = clean("""<html><body><article><h1>T</h1><p>Run these:</p>
      <pre><code><span class="hljs-comment"># initialise the repository</span>
git init</code></pre></article></body></html>""")
    assert "# initialise the repository" in text and "comments" not in removed


def test_a_long_text_in_a_newsletter_named_container_is_the_content_not_a_sign_up_box():
    issue = " ".join(f"Paragraph {i} of this month's letter on sleep, light and exercise." for i in range(60))
    text, removed = clean(f"""<html><body><div class="newsletter-signup">Sign up for our newsletter</div>
      <article class="newsletter-content"><p>{issue}</p></article>
      <div class="sidebar">{issue} {issue}</div></body></html>""")
    assert "Paragraph 59 of this month's letter" in text and "Sign up for our newsletter" not in text
    assert removed == {"newsletter": 1}


def test_a_long_cookie_preference_centre_still_goes():
    policy = " ".join(f"Cookie category {i} stores preferences on your device." for i in range(80))
    article = " ".join(f"Sentence {i} of the article itself." for i in range(400))
    text, removed = clean(f"""<html><body><article><h1>T</h1><p>{article}</p></article>
      <div id="onetrust-consent-sdk">{policy}</div></body></html>""")
    assert "Cookie category 3 stores" not in text and "Sentence 399 of the article" in text
    assert removed == {"cookie": 1}


def test_a_marquee_says_its_phrase_once():
    ticker = "".join("<span>Book Now <b>*</b></span>" for _ in range(40))
    page = f"<html><body><h1>T</h1><p>Body.</p><div class='ticker'>{ticker}</div></body></html>"
    text, removed = clean(page)
    assert text == "T Body. Book Now *"
    assert removed == {"repeats": 39}


def test_code_lines_that_start_alike_are_not_a_marquee():
    lines = "".join("<span>using System;</span>" for _ in range(8))
    text, _ = clean(f"<html><body><h1>T</h1><pre><code>{lines}</code></pre></body></html>")
    assert text.count("using System") == 8


def test_a_section_named_after_its_own_heading_is_not_a_widget():
    text, removed = clean("""<html><body><h1>T</h1>
      <section id="respond-to-review-comments"><h2>Respond to review comments</h2><p>Reply inline.</p>
      </section>
      <div id="you-may-also-like"><h3>You may also like</h3><a href="/a">Another post</a></div>
      </body></html>""")
    assert "Reply inline." in text
    assert "Another post" not in text
    assert removed == {"related": 1}


def test_an_author_box_opened_by_its_heading_goes():
    text, removed = clean("""<html><body><article><h1>T</h1>
      <p>Body text stays. It runs for a while, longer than the box of its author.</p>
      <div class="bg-blue"><h2>About the Author</h2><p>Jane is an editor who writes about health.</p></div>
      </article></body></html>""")
    assert text == "T Body text stays. It runs for a while, longer than the box of its author."
    assert removed == {"author": 1}


def test_an_about_the_author_section_in_running_text_stays():
    text, removed = clean("""<html><body><article><h1>T</h1><div class="rich"><p>Body text stays.</p>
      <h2>About the author</h2><p>Her life and her books, the subject of this post.</p></div>
      </article></body></html>""")
    assert "Her life and her books" in text and removed == {}


def test_an_author_box_named_by_its_class_goes_but_not_on_a_thread():
    html = """<html><body><article><h1>T</h1><p>Body text stays. It runs for a while, longer than the box.</p>
      <div class="entry-author-profile">Jane Doe is an editor who writes about health and sleep.</div>
      </article></body></html>"""
    text, removed = clean(html)
    assert "Jane Doe" not in text and removed == {"author": 1}
    root = lxml.html.document_fromstring(html)
    remove_boilerplate(root, keep_comments=True)
    assert "Jane Doe" in root.text_content()


def test_a_consent_manager_holding_a_modal_goes_however_much_text_it_holds():
    purposes = " ".join(f"These cookies of kind {i} help us measure the site's audience." for i in range(80))
    thread = "A short reply in the thread."
    text, removed = clean(f"""<html><body><h1>T</h1><p>{thread}</p>
      <div id="consent-sdk"><div role="dialog" aria-modal="true">{purposes}</div></div></body></html>""")
    assert thread in text and "kind 3 help" not in text
    assert removed == {"cookie": 1}


def test_a_page_about_cookies_in_a_cookie_named_container_stays():
    policy = " ".join(f"Section {i} of our cookie policy explains what we store." for i in range(80))
    text, removed = clean(f"<html><body><h1>T</h1><div class='cookie-policy'>{policy}</div></body></html>")
    assert "Section 79 of our cookie policy" in text and removed == {}


def test_a_box_of_other_posts_opened_by_its_heading_goes():
    text, removed = clean("""<html><body><div class="wrap"><h1>T</h1>
      <p>Body text stays. It runs for a while, longer than the box of other posts.</p></div>
      <div class="col"><h3>Read This Next</h3><p>Another post on the site and a line of its excerpt.</p></div>
      </body></html>""")
    assert text == "T Body text stays. It runs for a while, longer than the box of other posts."
    assert removed == {"related": 1}


def test_links_after_a_related_posts_heading_at_the_end_of_a_body_go():
    text, removed = clean("""<html><body><div class="entry"><h1>T</h1>
      <p>Body text stays. It runs for a while, longer than the list of other posts.</p>
      <h3>Related articles</h3><ul><li><a href="/a">First other post</a></li>
      <li><a href="/b">Second other post</a></li></ul></div></body></html>""")
    assert text == "T Body text stays. It runs for a while, longer than the list of other posts."
    assert removed == {"related": 1}


def test_a_section_of_text_under_a_related_heading_stays():
    text, removed = clean("""<html><body><div class="entry"><h1>T</h1><p>Body text stays.</p>
      <h2>Related reading</h2><p>Two books on the subject, which the post goes on to compare.</p>
      </div></body></html>""")
    assert "Two books on the subject" in text and removed == {}


@pytest.mark.parametrize(
    ("page", "heading", "line", "keep"),
    [
        ("News", "Latest news", "A story of the day and its first line.", {"keep_link_lists": True}),
        ("Thread", "Latest posts", "A reply in the thread and its first line.", {"keep_comments": True}),
    ],
)
def test_a_listing_or_a_thread_keeps_the_box_under_a_latest_posts_heading(page, heading, line, keep):
    root = lxml.html.document_fromstring(f"""<html><body><h1>{page}</h1><div class="col">
      <h2>{heading}</h2><p>{line}</p></div></body></html>""")
    remove_boilerplate(root, **keep)
    assert line in root.text_content()


def test_a_box_of_other_posts_titled_by_a_plain_label_goes():
    text, removed = clean("""<html><body><div class="wrap"><h1>T</h1>
      <p>Body text stays. It runs for a while, longer than the box of other posts.</p></div>
      <div class="callout"><div class="callout-title">Related Posts</div>
      <p>Another post on the site and a line of its excerpt.</p></div></body></html>""")
    assert text == "T Body text stays. It runs for a while, longer than the box of other posts."
    assert removed == {"related": 1}


def test_a_most_read_box_goes_but_a_heading_that_only_starts_so_stays():
    text, removed = clean("""<html><body><div class="wrap"><h1>T</h1><p>Body text stays, and runs on.</p>
      <div class="rich"><h2>Related work on the subject</h2><p>Our earlier studies.</p></div></div>
      <div class="col"><h3>Most read</h3><p>Another post on the site and a line of its excerpt.</p></div>
      </body></html>""")
    assert text == "T Body text stays, and runs on. Related work on the subject Our earlier studies."
    assert removed == {"related": 1}


def test_a_run_of_many_one_link_paragraphs_is_a_link_list_but_a_few_stay():
    many = "".join(f'<p><a href="/costs-{i}"><b>Average costs in town {i}</b></a></p>' for i in range(12))
    few = "".join(f'<p><a href="/source-{i}">Source {i}</a></p>' for i in range(4))
    text, removed = clean(f"""<html><body><div class="post"><h1>T</h1><p>Body text stays.</p>{few}</div>
      <div class="more">{many}</div></body></html>""")
    assert text == "T Body text stays. Source 0 Source 1 Source 2 Source 3"
    assert removed == {"link_list": 12}
