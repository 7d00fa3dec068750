"""The parser pieces behind action=parse, checked on hand-worked examples."""

from __future__ import annotations

from wikihowqa.replay import wikitext as wt


def test_sections_are_numbered_like_mediawikis_table_of_contents():
    text = "intro\n== A ==\nx\n=== B ===\n==== C ====\n== D ==\n==== E ====\n= F =\n== G ==\n"
    got = [(s.line, s.level, s.toclevel, s.number, s.index) for s in wt.sections(text)]
    # E jumps two levels under D but is only one TOC level deeper; F (level 1) starts a new top level.
    assert got == [
        ("A", 2, 1, "1", 1),
        ("B", 3, 2, "1.1", 2),
        ("C", 4, 3, "1.1.1", 3),
        ("D", 2, 1, "2", 4),
        ("E", 4, 2, "2.1", 5),
        ("F", 1, 1, "3", 6),
        ("G", 2, 2, "3.1", 7),
    ]
    assert [s.byteoffset for s in wt.sections(text)] == [
        text.encode().index(h.encode()) for h in ("== A", "=== B", "==== C", "== D", "==== E", "= F", "== G")
    ]


def test_byteoffsets_count_utf8_bytes_and_duplicate_anchors_get_suffixes():
    text = "Crème\n== Étape ==\n== Étape ==\n"
    first, second = wt.sections(text)
    assert first.byteoffset == len("Crème\n".encode())
    assert (first.anchor, second.anchor) == ("Étape", "Étape_2")


def test_headings_in_comments_and_nowiki_are_not_sections():
    text = "<!--\n== Hidden ==\n-->\n<nowiki>\n== Literal ==\n</nowiki>\n== Real ==\n"
    assert [s.line for s in wt.sections(text)] == ["Real"]


def test_external_links_in_order_deduplicated_and_trimmed():
    text = (
        "See https://a.example/x. Also [https://b.example/y B] and <ref>http://c.example/z</ref>\n"
        "(http://d.example/p) again https://a.example/x, [//e.example/proto]\n"
        "<!-- https://hidden.example/ --> '''https://f.example/bold'''"
    )
    assert wt.external_links(text) == [
        "https://a.example/x",
        "https://b.example/y",
        "http://c.example/z",
        "http://d.example/p",
        "//e.example/proto",
        "https://f.example/bold",
    ]


def test_section_text_returns_a_heading_and_its_subsections():
    text = "lead\n== A ==\na\n=== A1 ===\na1\n== B ==\nb\n"
    assert wt.section_text(text, 0) == "lead\n"
    assert wt.section_text(text, 1) == "== A ==\na\n=== A1 ===\na1"
    assert wt.section_text(text, 2) == "=== A1 ===\na1"
    assert wt.section_text(text, 3) == "== B ==\nb"
    assert wt.section_text(text, 4) is None


def test_quicksummary_keeps_pipes_inside_the_content():
    parsed = wt.parse_quicksummary("{{#quicksummary:top|Last one.|Use a 1|2 ratio.}}")
    assert parsed == ("top", "Last one.", "Use a 1|2 ratio.")
    assert wt.parse_quicksummary("plain text") is None


def test_links_templates_and_images():
    text = (
        "[[How to X|x]] [[Category:Y]] [[:Category:Z]] [[Image:a b.jpg|center]] {{fa}} {{Summary:How to X}}"
    )
    assert wt.internal_links(text) == ["How to X", "Category:Z"]
    assert wt.images(text) == ["A_b.jpg"]
    assert wt.templates(text) == ["fa", "Summary:How to X"]


def test_html_render_escapes_text_and_numbers_references():
    ctx = wt.RenderContext(
        href=lambda t: "/wiki/" + t.replace(" ", "_"),
        exists=lambda t: t == "Known",
        template=lambda name: None,
    )
    html = wt.render_html(
        "Use <b>2 < 3</b> & [[Known]].<ref name=a>[https://x.example/ X]</ref>\n# one<ref name=a/>\n# two\n",
        ctx,
    )
    assert "<b>2 &lt; 3</b> &amp;" in html
    assert '<a href="/wiki/Known" title="Known">Known</a>' in html
    assert html.count('href="#cite_note-1"') == 2 and "cite_note-2" not in html
    assert "<ol><li>one" in html and "</li><li>two" in html
    assert '<a rel="nofollow" class="external text" href="https://x.example/">X</a>' in html
