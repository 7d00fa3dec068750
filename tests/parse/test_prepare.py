"""Markup rewritten before extraction: code listings in figures, the hidden panels of tab sets."""

from __future__ import annotations

import lxml.html

from wikihowqa.parse.html import extract
from wikihowqa.parse.prepare import divs_to_paragraphs, show_tab_panels, unwrap_text_figures

PROSE = "Ownership is a set of rules that govern how a program manages memory while it runs. " * 4


def _page(body: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(f"<html><body><main>{body}</main></body></html>")


def test_a_code_listing_in_a_figure_is_kept():
    root = _page(
        f"<p>{PROSE}</p><figure class='listing'><figcaption>Listing 4-3</figcaption>"
        f'<pre><code>fn gives_ownership() -> String {{ String::from("yours") }}</code></pre></figure>'
        f"<p>{PROSE}</p>"
    )
    assert unwrap_text_figures(root) == 1
    assert "gives_ownership" in extract(root, "documentation").text


def test_a_picture_in_a_figure_stays_a_figure():
    root = _page("<figure><img src='a.png'><figcaption>A chart</figcaption></figure>")
    assert unwrap_text_figures(root) == 0
    assert root.find(".//figure") is not None


def test_the_inactive_panels_of_a_tab_set_are_shown_on_documentation():
    panels = "".join(
        f"<div role='tabpanel' {hide}><p>{PROSE}</p><p>Run the {os} installer for the core tools.</p></div>"
        for os, hide in [
            ("Windows", ""),
            ("macOS", "hidden aria-hidden='true'"),
            ("Linux", "style='display:none'"),
        ]
    )
    root = _page(panels)
    assert show_tab_panels(root) == 2
    text = extract(root, "documentation").text
    assert all(f"Run the {os} installer" in text for os in ("Windows", "macOS", "Linux"))


def test_a_shown_tab_panel_is_left_alone():
    root = _page("<div role='tabpanel' style='color: red'><p>Shown.</p></div>")
    assert show_tab_panels(root) == 0
    assert root.find(".//div").get("style") == "color: red"


def test_a_div_of_text_is_read_as_a_paragraph():
    answer = "Every therapist is licensed and has at least three years of experience in practice."
    root = _page(
        f"<p>{PROSE}</p><div class='faq'><div class='question'><a href='#a1'>Who are they?</a></div>"
        f"<div id='a1' class='answer'>{answer}</div></div><p>{PROSE}</p>"
    )
    assert divs_to_paragraphs(root) == 1
    assert root.get_element_by_id("a1").tag == "p"
    assert answer in extract(root, "service").text


def test_a_div_holding_blocks_or_a_short_label_stays_a_div():
    root = _page("<div id='box'><p>One.</p><p>Two.</p></div><div id='label'>Learn more</div>")
    assert divs_to_paragraphs(root) == 0
    assert root.get_element_by_id("box").tag == "div"
    assert root.get_element_by_id("label").tag == "div"
