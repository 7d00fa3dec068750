"""``--serve``: the site over HTTP on 127.0.0.1 only, every answer with the pages' CSP as a header."""

from __future__ import annotations

import threading

import httpx
import pytest

from wikihowqa.view.pages import CSP
from wikihowqa.view.serve import server

#: The fixtures evaluate a small dataset (grounding loads MiniLM) and meta-evaluate a planted study.
pytestmark = pytest.mark.slow


def test_the_site_is_served_on_loopback_with_the_csp_header(explorer_site):
    httpd = server(explorer_site)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = httpd.server_address[:2]
        assert host == "127.0.0.1"
        page = httpx.get(f"http://127.0.0.1:{port}/question.html")
        data = httpx.get(f"http://127.0.0.1:{port}/data/site.js")
        missing = httpx.get(f"http://127.0.0.1:{port}/nothing.html")
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
    assert page.status_code == 200 and "question.js" in page.text
    assert page.headers["content-security-policy"] == CSP
    assert page.headers["x-content-type-options"] == "nosniff"
    assert data.status_code == 200 and data.text.startswith("wikihowqaData(")
    assert missing.status_code == 404 and missing.headers["content-security-policy"] == CSP
    assert not thread.is_alive()
