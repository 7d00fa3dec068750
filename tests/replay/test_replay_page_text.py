"""What the replay wiki reads out of wikitext (rvsection, the Quick Summary, files), on worked examples."""

from __future__ import annotations

from wikihowqa.replay.page_text import images, parse_quicksummary, section_text


def test_section_text_returns_a_heading_and_its_subsections():
    text = "lead\n== A ==\na\n=== A1 ===\na1\n== B ==\nb\n"
    assert section_text(text, 0) == "lead\n"
    assert section_text(text, 1) == "== A ==\na\n=== A1 ===\na1"
    assert section_text(text, 2) == "=== A1 ===\na1"
    assert section_text(text, 3) == "== B ==\nb"
    assert section_text(text, 4) is None
    assert section_text("no headings", 0) == "no headings"
    assert section_text("no headings", 1) is None


def test_headings_in_comments_and_nowiki_are_not_sections():
    text = "<!--\n== Hidden ==\n-->\n<nowiki>\n== Literal ==\n</nowiki>\n== Real ==\nr\n"
    assert section_text(text, 1) == "== Real ==\nr"
    assert section_text(text, 2) is None


def test_quicksummary_keeps_pipes_inside_the_content():
    parsed = parse_quicksummary("{{#quicksummary:top|Last one.|Use a 1|2 ratio.}}")
    assert parsed == ("top", "Last one.", "Use a 1|2 ratio.")
    assert parse_quicksummary("plain text") is None
    assert parse_quicksummary("{{Other:top|a|b}}") is None
    assert parse_quicksummary("before {{#quicksummary:top|a|b}}") is None


def test_a_pipe_inside_a_link_does_not_split_the_quicksummary():
    # The regular expressions this replaced split at the link's "|": last_sentence "Then [[Drain", …
    parsed = parse_quicksummary("{{#quicksummary:bottom|Then [[Drain|drain it]].|Brew it.}}\n")
    assert parsed == ("bottom", "Then [[Drain|drain it]].", "Brew it.")


def test_images_are_the_files_shown_outside_comments_and_nowiki():
    text = (
        "[[How to X|x]] [[Category:Y]] [[Image:a b.jpg|center]] [[file:c.png]] [[Image:a b.jpg]] "
        "<!-- [[File:hidden.jpg]] --> <nowiki>[[File:literal.jpg]]</nowiki>"
    )
    assert images(text) == ["A_b.jpg", "C.png"]
    assert images("[[How to X]] and no file at all") == []
    assert images("Save it as File: report.pdf, then [[How to X]]") == []  # the word, not a link
