"""The demo corpus's site chromes are Jinja2 templates: one per theme the sources may name, each rendering
every view of a page (paginated parts, View all, with and without comments) without an unknown name."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from democorpus.archive import _html_files  # noqa: E402
from democorpus.sources import THEMES, load_sources  # noqa: E402
from democorpus.themes import TEMPLATES, js_shell, render  # noqa: E402

SOURCES = load_sources(REPO / "tools" / "democorpus")
#: A page with everything a chrome can show: paginated, a View-all variant, nested comments, an author.
RICH = max(SOURCES.pages, key=lambda p: (len(p.parts()), bool(p.view_all), len(p.comments), bool(p.author)))


def test_every_theme_has_its_template_and_no_other_template_is_left_over():
    names = {name.removesuffix(".html") for name in TEMPLATES.list_templates()}
    assert names == {*THEMES, "js_shell", "_shared"}


@pytest.mark.parametrize("theme", THEMES)
def test_each_theme_renders_every_view_of_a_rich_page(theme):
    page = dataclasses.replace(RICH, theme=theme)
    for _, _, view in _html_files(page, page.parts()):
        for show_comments in (True, False):
            html = render(dataclasses.replace(view, show_comments=show_comments))
            assert html.lower().startswith("<!doctype html") and html.lower().endswith("</html>\n")
            assert page.title.split()[0] in html
    commented = render(dataclasses.replace(_html_files(page, page.parts())[-1][2], show_comments=True))
    assert RICH.comments[0].author in commented or RICH.comments[0].author.replace("'", "&#x27;") in commented


def test_the_js_shell_has_no_text_but_its_title():
    html = js_shell(RICH)
    assert '<div id="root"></div>' in html and html.endswith("</html>\n")
