"""What a reader never sees is not read, unless a client-side app's fallback view is all the page has."""

from __future__ import annotations

import lxml.html

from wikihowqa.parse import parse_html
from wikihowqa.parse.noscript import drop_hidden, fallback_view

POST = (
    "I just joined today and wanted to share some ideas about how threads could be organised by topic, "
    "so that a discussion engine reads less like a chat room and more like a library of answers. "
)


def _shell(view: str) -> str:
    return (
        "<html><head><title>Types of threads</title></head><body>"
        "<div id='app'><p>Loading...</p></div>"
        f"<main><noscript><div class='container'><h1>Types of threads</h1>{view}</div></noscript></main>"
        "</body></html>"
    )


def test_a_shell_pages_noscript_view_is_read():
    # a forum engine renders the thread for crawlers inside <noscript>; the page shown to scripts is empty
    page = parse_html(_shell("".join(f"<p>{POST}({i})</p>" for i in range(6))), "https://forum.example/d/1")
    assert page.ok and "discussion engine reads less like a chat room" in page.text


def test_an_ordinary_pages_noscript_is_dropped():
    # a tracking pixel and an "enable JavaScript" notice beside the page's own text
    html = (
        "<html><body><article>" + "".join(f"<p>{POST}({i})</p>" for i in range(6)) + "</article>"
        "<noscript><img src='/pixel.gif'></noscript>"
        "<noscript><p>"
        + "Please enable JavaScript to use every feature of this site. "
        * 30
        + "</p></noscript>"
        "</body></html>"
    )
    root = lxml.html.document_fromstring(html)
    assert fallback_view(root) is None
    drop_hidden(root)
    assert not root.xpath("//noscript") and "enable JavaScript" not in root.text_content()


def test_a_closed_dialog_is_never_read_and_an_open_one_is():
    root = lxml.html.document_fromstring(
        "<html><body><p>Shown.</p><dialog><p>Terms of content use.</p></dialog>"
        "<dialog open><p>An open notice.</p></dialog><template><p>Row</p></template></body></html>"
    )
    drop_hidden(root)
    text = root.text_content()
    assert "Terms of content use" not in text and "An open notice" in text and "Row" not in text


def test_a_popover_is_hidden_until_opened():
    root = lxml.html.document_fromstring(
        "<html><body><p>The thread.</p><button popovertarget='pwa'>Learn more</button>"
        "<div id='pwa' popover><p>Tap Add to Home Screen to install this app.</p></div></body></html>"
    )
    drop_hidden(root)
    text = root.text_content()
    assert "The thread." in text and "Add to Home Screen" not in text
