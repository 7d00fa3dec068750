"""References, Quick Summaries and plain text, read out of wikitext."""

from __future__ import annotations

from wikihowqa.collect.wikitext_reading import (
    plain_text,
    quick_summary,
    references,
    transcludes_summary,
)

ARTICLE = """Intro with an [https://intro-link.example/x ordinary link].
== Steps ==
=== Method 1: Getting Ready ===
# '''Heat the water.'''<ref>https://www.brewbasics.net/guide</ref> See [[How to Boil Water|boiling]].
# Weigh it.<ref name="ratio">[http://coffee-lab.org/ratios Ratio chart]</ref> Again.<ref name="ratio" />
# Cited by a template.<ref>{{cite web|url=https://journal.example/paper|title=A paper}}</ref>
# Cited with a fragment.<ref>https://www.brewbasics.net/guide#step-2</ref>
== Tips ==
* Buy a kettle: [https://www.kettle-store.example/kettles kettles on sale].
* Or see https://bare-link.example/tip for more.
== Things You'll Need ==
* [https://shop.example/scale A scale]
== Quick Summary ==
{{Summary:How to Brew Coffee}}
== Sources and Citations ==
{{reflist}}
* [https://www.brewbasics.net/guide The guide]
* [https://extension.example.edu/coffee.pdf Coffee report], a PDF
* https://bare-source.example/page
"""


def test_references_are_ref_tags_then_the_sources_list_in_first_citation_order_each_once():
    assert references(ARTICLE) == (
        "https://www.brewbasics.net/guide",
        "http://coffee-lab.org/ratios",
        "https://journal.example/paper",
        "https://extension.example.edu/coffee.pdf",
        "https://bare-source.example/page",
    )


def test_ordinary_external_links_are_not_references():
    found = references(ARTICLE)
    for link in ("intro-link.example", "kettle-store.example", "bare-link.example", "shop.example"):
        assert not any(link in url for url in found)


def test_a_references_heading_counts_like_sources_and_citations():
    text = "# Step.\n== References ==\n* [https://a.example/one One]\n== Tips ==\n* [https://b.example/ B]\n"
    assert references(text) == ("https://a.example/one",)


def test_an_article_without_refs_or_sources_has_no_references():
    assert references("Just text with [https://x.example/ a link].\n== Tips ==\n* tip\n") == ()


def test_named_reuse_alone_adds_nothing_and_an_empty_ref_is_ignored():
    assert references('A.<ref name="a" /> B.<ref></ref> C.<ref>no url here</ref>') == ()


def test_the_quick_summary_answer_is_content_then_last_sentence_as_plain_text():
    page = (
        "{{#quicksummary:bottom|Finally, serve it [[Serving Coffee|right away]].<ref>https://x.example</ref>"
        "|To brew coffee, heat '''fresh''' water to 93°C {{Tip|hot}} and use a [https://a.example/r ratio] "
        "of 1:16.}}"
    )
    summary = quick_summary(page)
    assert summary is not None and summary.position == "bottom"
    assert summary.answer == (
        "To brew coffee, heat fresh water to 93°C and use a ratio of 1:16. Finally, serve it right away."
    )


def test_a_pipe_inside_the_content_stays_part_of_the_content():
    summary = quick_summary("{{#quicksummary:top|Last one.|First part | second part.}}")
    assert summary is not None and summary.answer == "First part | second part. Last one."


def test_a_page_without_the_parser_function_or_with_empty_text_has_no_summary():
    assert quick_summary("Just some text.") is None
    assert quick_summary("{{#quicksummary:bottom| | }}") is None
    assert quick_summary("{{Other|a|b}}") is None


def test_summary_transclusion_is_detected():
    assert transcludes_summary(ARTICLE)
    assert not transcludes_summary("== Steps ==\n# A step.")


def test_plain_text_drops_markup_files_refs_and_templates():
    text = (
        "'''Bold''' and ''italic'' [[Target|shown]] [[Plain]] [[Image:x.jpg|center]] "
        "[https://a.example label] [https://b.example] {{template|x}}<ref>hidden</ref> &amp; done<!-- no -->"
    )
    assert plain_text(text) == "Bold and italic shown Plain label & done"
