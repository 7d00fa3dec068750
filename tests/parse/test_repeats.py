"""A section the page shows twice is read once; a line the page means to repeat stays."""

from __future__ import annotations

from wikihowqa.parse import parse_html
from wikihowqa.parse.blocks import Block
from wikihowqa.parse.repeats import repeated_runs, without_copies

SECTION = [
    f"Step {n}: measure the wall twice before you cut the first board, because plaster hides the studs "
    f"and the pipes behind it ({n})."
    for n in range(4)
]


def _blocks(*texts: str) -> list[Block]:
    return [Block("paragraph", t) for t in texts]


def test_a_copied_run_of_long_blocks_is_dropped_and_the_first_copy_kept():
    blocks = _blocks("Intro words here.", *SECTION, "Related tools", *SECTION[:3])
    assert repeated_runs(blocks) == {6, 7, 8}
    kept, markdown = without_copies(blocks, "\n\n".join(b.text for b in blocks)) or ((), "")
    assert [b.text for b in kept] == ["Intro words here.", *SECTION, "Related tools"]
    assert markdown.count("Step 0:") == 1 and "Related tools" in markdown


def test_a_single_repeated_line_is_meant_and_stays():
    cta = "Book a free consultation with one of our engineers today and get a written quote within two days."
    blocks = _blocks(SECTION[0], cta, SECTION[1], cta, SECTION[2], cta)
    assert repeated_runs(blocks) == set()
    assert without_copies(blocks, "") is None


def test_short_repeated_lines_do_not_make_a_run():
    blocks = _blocks(*SECTION, "Yes", "No", "Maybe", "Yes", "No", "Maybe")
    assert repeated_runs(blocks) == set()


def test_a_page_rendering_its_article_twice_is_parsed_once():
    body = "".join(f"<p>{t}</p>" for t in SECTION)
    html = (
        "<html><head><title>Cutting drywall</title></head><body><article><h1>Cutting drywall</h1>"
        f"{body}<div class='mobile-copy'>{body}</div></article></body></html>"
    )
    page = parse_html(html, "https://example.org/drywall")
    assert page.ok
    assert page.text.count("Step 2:") == 1
    assert page.markdown.count("Step 2:") == 1


def test_a_section_under_a_heading_of_its_own_that_repeats_another_is_the_authors_and_stays():
    # two meal plans, the second under its own title, sharing most of their meals in the same order
    blocks = [Block("heading", "Plan E"), *_blocks(*SECTION), Block("heading", "Plan F"), *_blocks(*SECTION)]
    assert repeated_runs(blocks) == set()


def test_thousands_of_identical_paragraphs_are_read_a_few_times_in_linear_time():
    # a pathological page: the same long paragraph 20,000 times (a quadratic search would not finish)
    blocks = _blocks(*[SECTION[0]] * 20_000)
    assert len(blocks) - len(repeated_runs(blocks)) == 3
