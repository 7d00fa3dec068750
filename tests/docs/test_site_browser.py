"""The built docs site in Chromium, served from loopback as a reader's web host would: every page loads with
no request leaving it (no web font, no CDN: it must work offline), every internal link resolves, the search
finds a command, and axe-core finds no serious issue on any page."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from tests.components import CHROMIUM as CHROMIUM_BROWSER
from tests.components import require, require_module

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("WIKIHOWQA_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """``mkdocs build --strict`` into a temporary folder (a warning, such as a broken link, fails it);
    ``WIKIHOWQA_DOCS_SITE``: the site scripts/test.sh has just built that way."""
    if os.environ.get("WIKIHOWQA_DOCS_SITE"):
        return Path(os.environ["WIKIHOWQA_DOCS_SITE"])
    site = tmp_path_factory.mktemp("docs-site") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT / "src")}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    print(f"\nmkdocs build --strict: {time.monotonic() - started:.0f} s")
    return site


def test_the_site_builds_with_no_warning_and_every_reference_page(built_site):
    for page in (
        "reference/cli.html",
        "reference/settings.html",
        "reference/formats.html",
        "reference/api.html",
    ):
        assert (built_site / page).is_file(), page
    assert (built_site / "reference" / "predictions.schema.json").is_file()
    api = (built_site / "reference" / "api.html").read_text(encoding="utf-8")
    assert 'id="wikihowqa.dataset.readers.read_predictions"' in api  # mkdocstrings rendered the modules


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def served(built_site):
    """The site on 127.0.0.1 (a thread of this process: nothing to leave running)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(built_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    require(
        CHROMIUM_BROWSER,
        None
        if CHROMIUM.exists()
        else f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)",
    )
    sync_api = require_module("playwright.sync_api", CHROMIUM_BROWSER, install="pip install playwright")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def open_page(browser, base: str, name: str, width: int = 1280):
    """A page in its own context; every request is recorded, and one leaving the site is refused."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    outside: list[str] = []
    errors: list[str] = []

    def route(r):
        if r.request.url.startswith(base) or r.request.url.startswith(("data:", "blob:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + name, wait_until="load")
    return context, page, outside, errors


def test_every_page_loads_with_no_request_leaving_it_and_every_internal_link_resolves(
    browser, built_site, served
):
    """One pass over the pages: each loads with no request leaving the site and no script error, and each
    of its links into the site names a file that exists and, with a #fragment, an id in that page."""
    names = pages(built_site)
    assert {"index.html", "reference/cli.html", "tutorials/human-study.html"} <= set(names)
    ids: dict[str, set[str]] = {}
    links: list[tuple[str, str]] = []
    for name in names:
        context, page, outside, errors = open_page(browser, served, name)
        page.wait_for_load_state("networkidle")
        assert outside == [], (name, outside)
        assert errors == [], (name, errors)
        assert page.locator("article h1").count() == 1, name
        ids[name] = set(page.eval_on_selector_all("[id]", "es => es.map(e => e.id)"))
        hrefs = page.eval_on_selector_all("a[href]", "as => as.map(a => a.getAttribute('href'))")
        links += [(name, h) for h in hrefs]
        context.close()
    checked = 0
    for name, href in links:
        url = urlsplit(urljoin(served + name, href))
        if f"{url.scheme}://{url.netloc}/" != served:
            continue  # an outside link: shown, never fetched (the pages above made no such request)
        target = unquote(url.path.lstrip("/")) or "index.html"
        if target.endswith("/"):
            target += "index.html"
        assert (built_site / target).is_file(), (name, href)
        if url.fragment and target in ids:
            assert unquote(url.fragment) in ids[target], (name, href)
        checked += 1
    assert checked > 200  # the nav alone links every page from every page


def test_search_finds_a_command(browser, served):
    context, page, outside, _ = open_page(browser, served, "index.html")
    page.click("input[data-md-component='search-query']")  # the header's search box at laptop width
    page.keyboard.type("export-judgments")
    page.wait_for_selector(".md-search-result__item", timeout=30_000)
    links = page.eval_on_selector_all(".md-search-result__item a", "as => as.map(a => a.href)")
    assert any("reference/cli.html" in h for h in links), links
    assert outside == []
    context.close()


#: One page of each kind (the theme is shared; what differs is the content: tables, code, definitions,
#: generated reference, mkdocstrings, figures), at laptop width; the first three at phone width too.
AXE_PAGES = [
    "index.html", "quickstart.html", "tutorials/evaluate-your-system.html", "install.html",
    "how-to/scaling.html", "concepts/glossary.html", "reference/cli.html", "reference/settings.html",
    "reference/formats.html", "reference/api.html", "background/benchmarks.html", "study-server.html",
]  # fmt: skip


def test_axe_core_finds_no_serious_issue(browser, built_site, served, axe_source):
    for width in (390, 1280):
        for name in AXE_PAGES if width == 1280 else AXE_PAGES[:3]:
            context, page, _, _ = open_page(browser, served, name, width)
            page.evaluate(axe_source)
            result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
            serious = [
                (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
                for v in result["violations"]
                if v["impact"] in ("serious", "critical")
            ]
            assert serious == [], (name, width, serious)
            context.close()
