"""Pre-CSS pages lay the whole page out in tables: that grid is not data, the tables inside it are."""

from __future__ import annotations

import lxml.html

from wikihowqa.parse.html import gfm_tables, unwrap_layout_tables
from wikihowqa.parse.page import parse_html

PROSE = " ".join(f"Sentence {i} explains how to rinse the filter with hot water first." for i in range(12))
LEGACY = f"""<html><head><title>Old site - Rinsing filters</title></head><body>
<TABLE width="780"><TR><TD colspan="2"><font size="6">Old Site</font></TD></TR>
<TR><TD width="150"><TABLE><TR><TD><a href="/a">Home</a></TD></TR>
<TR><TD><a href="/b">Links</a></TD></TR></TABLE></TD>
<TD><font size="4"><b>Rinsing filters</b></font><BR><BR>
<font size="2">{PROSE}</font><br><br>
<font size="2">Second paragraph: always rinse before brewing, it removes the papery taste.</font><br><br>
<TABLE border="1"><TR><TD>Filter</TD><TD>Rinse</TD></TR><TR><TD>Paper</TD><TD>Yes</TD></TR>
<TR><TD>Metal</TD><TD>No</TD></TR></TABLE>
<font size="2">Closing words of the article about filters and water, kept as a paragraph.</font>
</TD></TR></TABLE></body></html>"""


def test_the_page_grid_becomes_containers_and_the_data_table_stays_a_table():
    root = lxml.html.document_fromstring(LEGACY)
    assert unwrap_layout_tables(root) == 1  # the outer grid only; the menu and data tables are not prose
    assert [t.get("border") for t in root.iter("table")] == [None, "1"]
    paragraphs = [" ".join(p.itertext()).strip() for p in root.iter("p")]
    assert any(p.startswith("Sentence 0 explains") for p in paragraphs)
    assert "Second paragraph: always rinse before brewing, it removes the papery taste." in paragraphs


def test_a_data_table_with_short_cells_is_left_alone():
    root = lxml.html.document_fromstring("<table><tr><td>Grind</td><td>Medium</td></tr></table>")
    assert unwrap_layout_tables(root) == 0 and root.find(".//table") is not None


def test_a_presentation_table_is_unwrapped():
    root = lxml.html.document_fromstring('<table role="presentation"><tr><td>x</td></tr></table>')
    assert unwrap_layout_tables(root) == 1 and root.find(".//table") is None


def test_legacy_page_gives_its_prose_as_paragraphs_and_its_data_as_a_markdown_table():
    page = parse_html(LEGACY.encode(), "http://old.example/filters")
    assert page.ok, page.rejection
    assert "Second paragraph: always rinse before brewing" in page.text
    assert "Home" not in page.text.split()  # the menu column is not content
    assert "| Filter | Rinse |\n|---|---|\n| Paper | Yes |" in page.markdown.replace(" \n", "\n")


def test_header_less_markdown_tables_get_a_delimiter_row():
    assert gfm_tables("| a | b |\n| 1 | 2 |") == "| a | b |\n|---|---|\n| 1 | 2 |"
    already = "| a | b |\n| --- | :---: |\n| 1 | 2 |"
    assert gfm_tables(already) == already
    assert gfm_tables("text | with a pipe") == "text | with a pipe"
