"""The explorer in a real browser (Chromium driven by Playwright), opened from disk as a user would: the
leaderboard sorts, a search finds a question, an answer sentence highlights exactly the passages grounding
reported for it (and a passage the sentences it supports), the side-by-side view lists the largest
difference first, hostile text runs nothing on any page, and axe-core finds no serious issue."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.components import CHROMIUM as CHROMIUM_BROWSER
from tests.components import require, require_module

from .conftest import PAYLOAD, per_question_rows

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path(os.environ.get("WIKIHOWQA_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]
GOLD = "gold answer (human)"
PAGE_TYPES = ["index.html", "leaderboard.html", "questions.html", "question.html#id=1366001", "compare.html"]


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


class Tab:
    """One page from disk in its own context; records dialogs, page errors and console errors."""

    def __init__(self, browser, site: Path, name: str, width: int = 1366) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 800})
        self.page = self.context.new_page()
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.goto(
            (site / name.split("#")[0]).as_uri() + ("#" + name.split("#")[1] if "#" in name else "")
        )
        if not name.startswith(("index", "leaderboard")):
            self.page.wait_for_selector("body[data-ready='1']")

    def close(self) -> None:
        self.context.close()


@pytest.fixture()
def tab(browser, explorer_site):
    opened: list[Tab] = []

    def open_(name: str, width: int = 1366, site: Path | None = None) -> Tab:
        opened.append(Tab(browser, site or explorer_site, name, width))
        return opened[-1]

    yield open_
    for t in opened:
        assert not t.errors, t.errors  # no script error and no CSP violation on any page opened
        t.close()


def test_the_leaderboard_sorts_by_any_metric_best_first_then_reversed(tab, explorer_inputs):
    report = json.loads((explorer_inputs["report"] / "evaluation.json").read_text())
    t = tab("leaderboard.html")
    by_rl = {row["system"]: row["metrics"]["R-1"]["mean"] for row in report["leaderboard"]}

    def systems() -> list[str]:
        return t.page.eval_on_selector_all("#leaderboard tbody th", "ths => ths.map(t => t.dataset.value)")

    t.page.click("#leaderboard thead button:text-is('R-1')")
    assert systems() == sorted(by_rl, key=lambda s: -by_rl[s])
    assert t.page.get_attribute("#leaderboard th:has(button:text-is('R-1'))", "aria-sort") == "descending"
    t.page.click("#leaderboard thead button:text-is('R-1')")
    assert systems() == sorted(by_rl, key=lambda s: by_rl[s])
    t.page.click("#leaderboard thead button:text-is('System')")
    assert systems() == sorted(by_rl)
    assert t.page.locator("#meta-table tbody tr").count() > 0  # the meta-evaluation's agreement table


def test_a_search_finds_a_question_and_filters_combine(tab):
    t = tab("questions.html")
    assert t.page.locator("#questions-body tr").count() == 3
    t.page.fill("#search", "dry FIGS")
    assert t.page.locator("#questions-body tr").all_inner_texts()[0].startswith("How To Dry Figs")
    assert t.page.locator("#questions-body tr").count() == 1
    t.page.fill("#search", "")
    t.page.select_option("#split", label="test")
    assert t.page.locator("#questions-body tr").count() == 2
    t.page.fill("#min", "1000")  # no score is this high
    assert t.page.locator("#questions-body tr").count() == 0
    assert "0 of 3 questions" in t.page.text_content("#status")
    t.page.fill("#min", "")
    t.page.click("#questions-body a:text('How To Dry Figs')")
    t.page.wait_for_selector("body[data-ready='1']")
    assert t.page.text_content("#q-title") == "How To Dry Figs"


def test_an_answer_sentence_highlights_exactly_the_passages_grounding_reported(tab, explorer_inputs):
    rows = [r for r in per_question_rows(explorer_inputs["report"]) if r["article_id"] == 1366001]
    t = tab("question.html#id=1366001")
    checked = 0
    for row in rows:
        card = t.page.locator(".answer", has=t.page.locator("h3", has_text=row["system"]))
        for k, sentence in enumerate(row["grounding"]["sentences"]):
            button = card.locator("button.sentence").nth(k)
            assert button.inner_text() == sentence["sentence"]
            button.click()
            lit = t.page.eval_on_selector_all(
                ".passage.hl", "ps => ps.map(p => [p.dataset.pid, p.dataset.rank])"
            )
            assert sorted(lit) == sorted([p["id"], str(r + 1)] for r, p in enumerate(sentence["passages"]))
            assert button.get_attribute("aria-pressed") == "true"
            checked += 1
    assert checked >= 6
    # a passage: the sentences of every answer whose passages include it
    pid = rows[0]["grounding"]["sentences"][0]["passages"][0]["id"]
    supported = sorted(
        s["sentence"]
        for r in rows
        for s in r["grounding"]["sentences"]
        if pid in [p["id"] for p in s["passages"]]
    )
    t.page.click(f".passage[data-pid='{pid}']")
    assert sorted(t.page.locator("button.sentence.hl").all_inner_texts()) == supported
    t.page.keyboard.press("Escape")
    assert t.page.locator(".hl").count() == 0


def test_the_keyboard_alone_reaches_a_sentence_and_a_passage(tab, explorer_inputs):
    t = tab("question.html#id=1366001")
    t.page.focus("button.sentence")
    t.page.keyboard.press("Enter")
    assert t.page.locator(".passage.hl").count() > 0
    t.page.keyboard.press("Escape")
    t.page.focus(".passage")
    t.page.keyboard.press("Space")
    assert t.page.get_attribute(".passage", "aria-pressed") == "true"
    for _ in range(3):
        t.page.keyboard.press("Tab")  # focus moves on through the page
    assert t.page.evaluate("document.activeElement !== document.body")


def test_side_by_side_lists_the_largest_score_difference_first_with_both_answers(tab, explorer_inputs):
    rows = per_question_rows(explorer_inputs["report"])
    score = {
        (r["article_id"], r["system"]): 100 * r["scores"]["rougeL_f"] for r in rows if r["system"] != GOLD
    }
    articles = sorted({r["article_id"] for r in rows})
    expected = sorted(articles, key=lambda a: (-abs(score[(a, "lead-15")] - score[(a, "lead-60")]), a))
    t = tab("compare.html#a=lead-15&b=lead-60&m=R-L")
    links = t.page.eval_on_selector_all("#diffs-body tr th a", "as => as.map(a => a.getAttribute('href'))")
    assert links == [f"question.html#id={a}" for a in expected]
    deltas = [float(x) for x in t.page.locator("#diffs-body td.delta").all_inner_texts()]
    shown = pytest.approx([score[(a, "lead-15")] - score[(a, "lead-60")] for a in expected], abs=0.051)
    assert deltas == shown  # ROUGE × 100 shown to one decimal
    t.page.click("#diffs-body tr >> nth=0 >> button")
    t.page.wait_for_selector(".answers-row")  # drawn once the question's shard has loaded
    pair = t.page.locator(".answers-row")
    assert pair.count() == 1 and pair.locator("mark.only").count() > 0  # words only one answer has


def test_hostile_text_in_every_field_runs_nothing_on_any_page(browser, hostile_site):
    pages = [*PAGE_TYPES, "compare.html#m=R-L"]
    for name in pages:
        t = Tab(browser, hostile_site, name)
        page = t.page
        if name.startswith("question.html"):
            for details in page.locator("details.md").all():
                details.locator("summary").click()
            page.wait_for_selector(".md-body h1")
            page.click("button.sentence")
            page.click(".passage")
        if name.startswith("compare"):
            page.click("#diffs-body tr >> nth=0 >> button")
            page.wait_for_selector(".answers-row")
        page.wait_for_timeout(300)
        assert page.evaluate("window.__pwned") is None, name
        assert not t.dialogs, name
        assert PAYLOAD.strip()[:40] in page.inner_text("body") or name.startswith(("index", "leaderboard")), (
            name
        )
        assert (
            page.locator("main script, main img, main svg[onload], main a[href^='javascript']").count() == 0
        ), name
        hrefs = page.eval_on_selector_all("a[href]", "as => as.map(a => a.getAttribute('href'))")
        assert all(not h.lower().startswith("javascript") for h in hrefs), name
        assert [e for e in t.errors if "Content Security Policy" not in e] == [], name
        t.close()


def test_axe_core_finds_no_serious_issue_on_any_page_type_at_phone_and_laptop_widths(
    browser, explorer_site, axe_source
):
    for width in (390, 1366):
        for name in PAGE_TYPES:
            t = Tab(browser, explorer_site, name, width)
            if name.startswith("question.html"):
                t.page.click("button.sentence")  # the sentence detail open, passages highlighted
            t.page.evaluate(axe_source)
            result = t.page.evaluate("axe.run(document, {resultTypes: ['violations']})")
            serious = [
                (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
                for v in result["violations"]
                if v["impact"] in ("serious", "critical")
            ]
            assert serious == [], (name, width, serious)
            overflow = t.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, (name, width, overflow)  # readable without scrolling sideways
            t.close()
