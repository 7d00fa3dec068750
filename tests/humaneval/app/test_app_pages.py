"""The pages in a real browser (Chromium driven by Playwright): an assessor completes each task type with
real mouse drags, key presses and clicks, and the stored judgment is exactly what was done; hostile
passage text runs nothing; one assessor cannot read another's judgment."""

from __future__ import annotations

import itertools
import json
import os
import shutil
from pathlib import Path

import httpx
import pytest

from tests.components import CHROMIUM as CHROMIUM_BROWSER
from tests.components import require, require_module
from wikihowqa.humaneval.tasks import read_study
from wikihowqa.humaneval.text import word_spans

pytestmark = pytest.mark.browser

CHROMIUM = Path(os.environ.get("WIKIHOWQA_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ADMIN = "browser-admin-token-0123456789"

#: Test-side geometry, independent of the app's own offset code: walk the DOM text nodes of `root`
#: (whose text must equal the task text) to the UTF-16 index and return the centre of that character.
CHAR_CENTRE = """([selector, u, scroll]) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let pos = 0, node;
  while ((node = walker.nextNode())) {
    if (u < pos + node.data.length) break;
    pos += node.data.length;
  }
  const range = document.createRange();
  range.setStart(node, u - pos);
  range.setEnd(node, u - pos + 1);
  if (scroll) {  // bring the character to the middle of its scrolling column
    const column = root.closest(".col");
    const box = column.getBoundingClientRect();
    column.scrollTop += range.getClientRects()[0].top - box.top - column.clientHeight / 2;
  }
  const r = range.getClientRects()[0];
  return {x: r.left + r.width / 2, y: r.top + r.height / 2};
}"""


def utf16(text: str, cp: int) -> int:
    """A code-point offset as a UTF-16 index (what the DOM counts)."""
    return len(text[:cp].encode("utf-16-le")) // 2


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        require(
            CHROMIUM_BROWSER, f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
        )
    sync_api = require_module("playwright.sync_api", CHROMIUM_BROWSER, install="pip install playwright")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def live(study_template, tmp_path_factory):
    from wikihowqa.humaneval.app import ServerSettings
    from wikihowqa.humaneval.app.run import running

    folder = Path(shutil.copytree(study_template, tmp_path_factory.mktemp("live") / "study"))
    with running(folder, ServerSettings(admin_token=ADMIN)) as (base, app):
        tokens = {r["assessor_id"]: r["token"] for r in app.state.service.assessor_rows()}
        yield {"base": base, "tokens": tokens, "study": read_study(folder)}


class Session:
    """One assessor in their own browser context; records dialogs, console output and page errors."""

    def __init__(self, browser, live, assessor_id: str) -> None:
        self.live = live
        self.token = live["tokens"][assessor_id]
        self.context = browser.new_context(viewport={"width": 1366, "height": 768})
        self.page = self.context.new_page()
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.goto(f"{live['base']}/a/#{self.token}")

    def task(self) -> dict:
        self.page.wait_for_selector("form.task")
        r = httpx.get(f"{self.live['base']}/api/next", headers={"Authorization": f"Bearer {self.token}"})
        return r.json()["task"]

    def answer_check(self, task: dict) -> str:
        truth = next(k for k in self.live["study"].key if k["task_id"] == task["task_id"])["attention_answer"]
        assert not self.page.is_visible(".task-body")  # the check comes first, the task stays hidden
        self.page.click(f"fieldset.attention label.option:has-text('{truth}')")
        assert self.page.is_visible(".task-body")
        return truth

    def drag(self, selector: str, text: str, start: int, end: int) -> None:
        """Press the mouse inside the first character of [start, end) and release inside the last one."""
        self.page.evaluate(CHAR_CENTRE, [selector, utf16(text, start), True])
        a = self.page.evaluate(CHAR_CENTRE, [selector, utf16(text, start), False])
        b = self.page.evaluate(CHAR_CENTRE, [selector, utf16(text, end - 1), False])
        self.page.mouse.move(a["x"], a["y"])
        self.page.mouse.down()
        self.page.mouse.move(b["x"], b["y"], steps=6)
        self.page.mouse.up()

    def rate(self, name: str, value: int) -> None:
        self.page.click(f"fieldset[data-name='{name}'] input[value='{value}']")

    def submit(self) -> None:
        assert self.page.is_enabled("button.submit")
        self.page.click("button.submit")

    def close(self) -> None:
        self.context.close()


def stored(live, task_id: str, assessor_id: str) -> dict:
    r = httpx.get(f"{live['base']}/api/admin/judgments.jsonl", headers={"Authorization": f"Bearer {ADMIN}"})
    rows = [json.loads(x) for x in r.text.splitlines()]
    mine = [j for j in rows if j["task_id"] == task_id and j["assessor_id"] == assessor_id]
    assert len(mine) == 1, mine
    return mine[0]


def wait_stored(live, session: Session, task_id: str, assessor_id: str) -> dict:
    """After a submit the page moves on to the next task; then the judgment must be stored, once."""
    session.page.locator("#progress", has_text="Task 2 of").wait_for()  # (the CSP forbids wait_for_function)
    return stored(live, task_id, assessor_id)


def words(text: str, first: int, count: int) -> tuple[int, int]:
    """Code-point span of `count` words starting at word number `first` (Python's own word splitter)."""
    spans = word_spans(text)
    return spans[first][0], spans[first + count - 1][1]


def first_word_after(text: str, offset: int) -> int:
    return next(k for k, (s, _) in enumerate(word_spans(text)) if s >= offset)


# --------------------------------------------------------------------------- the three task types


def test_relevance_highlights_dragged_with_the_mouse_are_stored_as_whole_words(browser, live):
    s = Session(browser, live, "relevance-001")
    try:
        task = s.task()
        attention = s.answer_check(task)
        doc = task["document"]["text"]
        view = ".doc-col .text"
        assert s.page.evaluate(f"document.querySelector('{view}').textContent") == doc
        # Past the planted payload and the emoji: offsets must be counted in code points, not UTF-16.
        k = first_word_after(doc, doc.index("click me</a>") + len("click me</a>"))
        one = words(doc, k, 3)
        two = words(doc, k + 8, 2)
        s.drag(view, doc, one[0] + 1, one[1] - 1)  # from inside the first word to inside the last
        s.drag(view, doc, two[0], two[1])
        assert s.page.locator(f"{view} .hl").count() == 2
        s.rate("relevance", 3)
        s.submit()
        j = wait_stored(live, s, task["task_id"], "relevance-001")
        assert j["attention"] == attention and j["relevance"] == 3
        assert j["highlights"] == [{"start": one[0], "end": one[1]}, {"start": two[0], "end": two[1]}]
        assert j["events"] == [] and j["duration_ms"] > 0
        assert not s.dialogs and not s.errors
    finally:
        s.close()


def test_trial_a_spans_are_marked_with_the_mouse_and_with_the_keyboard(browser, live):
    s = Session(browser, live, "trial_a-001")
    try:
        task = s.task()
        s.answer_check(task)
        text = task["answer"]["text"]
        view = ".task-answer .text"
        misleading = words(text, 4, 3)
        s.drag(view, text, misleading[0] + 1, misleading[1])
        s.page.wait_for_selector("#popup:not([hidden])")
        s.page.click("#popup .pop-m")
        # Keyboard: focus the text, → moves a word cursor (word 0 first, then 1, …), Shift+→ extends.
        s.page.focus(view)
        for _ in range(11):
            s.page.keyboard.press("ArrowRight")
        s.page.keyboard.press("Shift+ArrowRight")
        s.page.keyboard.press("Shift+ArrowRight")
        s.page.keyboard.press("u")
        useful = words(text, 10, 3)
        assert s.page.locator(f"{view} .hl-misleading").count() >= 1
        s.rate("familiarity", 2)
        s.rate("usefulness", 4)
        s.submit()
        j = wait_stored(live, s, task["task_id"], "trial_a-001")
        assert (j["familiarity"], j["usefulness"]) == (2, 4)
        assert j["spans"] == [
            {
                "start": misleading[0],
                "end": misleading[1],
                "label": "misleading",
                "text": text[slice(*misleading)],
            },
            {"start": useful[0], "end": useful[1], "label": "useful", "text": text[slice(*useful)]},
        ]
        assert j["events"] == []
        assert not s.errors
    finally:
        s.close()


def test_trial_b_a_clicked_sentence_shows_its_passages_marked_and_the_clicks_are_logged(browser, live):
    s = Session(browser, live, "trial_b-001")
    try:
        task = s.task()
        s.answer_check(task)
        text = task["answer"]["text"]
        entry = next(e for e in task["passages"] if e["groups"] and e["sentence"] > 0)
        n = entry["sentence"]
        s.page.click(f".task-answer .text span.s[data-s='{n}']")
        s.page.wait_for_selector(".passages .passage")
        shown = s.page.eval_on_selector_all(".passages .passage", "ps => ps.map(p => p.dataset.pid)")
        expected = [p["passage_id"] for g in entry["groups"] for p in g["passages"]]
        assert shown == expected  # grouped by document, in page order, as in the task file
        marks = s.page.eval_on_selector_all(".passages mark", "ms => ms.map(m => m.textContent)")
        first = entry["groups"][0]["passages"][0]
        assert marks[0] == first["text"][first["highlight"]["start"] : first["highlight"]["end"]]
        s.page.wait_for_timeout(300)  # let the visibility observer report what is on screen
        span = words(text, 1, 2)
        s.drag(".task-answer .text", text, span[0], span[1])
        s.page.click("#popup .pop-m")
        s.rate("familiarity", 5)
        s.rate("usefulness", 1)
        s.submit()
        j = wait_stored(live, s, task["task_id"], "trial_b-001")
        opens = [e for e in j["events"] if e["kind"] == "sentence_open"]
        views = [e for e in j["events"] if e["kind"] == "passage_view"]
        assert [e["sentence"] for e in opens] == [n] and opens[0]["side"] is None
        assert views and {e["passage_id"] for e in views} <= set(expected)
        assert all(e["sentence"] == n and e["t_ms"] >= opens[0]["t_ms"] for e in views)
        assert j["spans"] == [
            {"start": span[0], "end": span[1], "label": "misleading", "text": text[slice(*span)]}
        ]
        assert j["duration_ms"] >= opens[-1]["t_ms"]
    finally:
        s.close()


def test_preference_shows_both_answers_side_by_side_and_stores_the_choice(browser, live):
    s = Session(browser, live, "preference-001")
    try:
        task = s.task()
        s.answer_check(task)
        a = s.page.locator(".answer-A").bounding_box()
        b = s.page.locator(".answer-B").bounding_box()
        assert a["x"] + a["width"] <= b["x"] and abs(a["y"] - b["y"]) < 2  # side by side
        assert b["x"] + b["width"] <= 1366 and b["height"] < 768
        s.page.click(".answer-B .text span.s[data-s='0']")
        s.page.wait_for_selector(".passages header")
        assert s.page.text_content(".passages header h2").endswith("of answer B")
        s.page.click("fieldset[data-name='choice'] input[value='B']")
        s.submit()
        j = wait_stored(live, s, task["task_id"], "preference-001")
        assert j["choice"] == "B"
        assert [
            (e["kind"], e["sentence"], e["side"]) for e in j["events"] if e["kind"] == "sentence_open"
        ] == [("sentence_open", 0, "B")]
    finally:
        s.close()


# --------------------------------------------------------------------------- security and robustness


def test_script_and_event_handler_payloads_in_passages_run_nothing(browser, live):
    s = Session(browser, live, "trial_b-002")
    try:
        task = s.task()
        s.answer_check(task)
        for entry in task["passages"]:
            s.page.click(f".task-answer .text span.s[data-s='{entry['sentence']}']")
        s.page.wait_for_selector(".passages .passage")
        s.page.wait_for_timeout(300)
        assert s.page.evaluate("window.__pwned") is None
        assert s.dialogs == []
        hostile = s.page.evaluate(
            "document.querySelectorAll('main script, main img, main a, main iframe, main [onerror]').length"
        )
        assert hostile == 0
        assert "<script>window.__pwned" in s.page.inner_text(".passages")  # shown as text
    finally:
        s.close()
    r = Session(browser, live, "relevance-002")
    try:
        r.task()
        r.page.click("fieldset.attention label.option >> nth=0")
        r.page.wait_for_timeout(200)
        assert r.page.evaluate("window.__pwned") is None and r.dialogs == []
        assert r.page.evaluate("document.querySelectorAll('main script, main img, main a').length") == 0
    finally:
        r.close()


def test_another_assessors_token_cannot_read_a_judgment(browser, live):
    j = stored(
        live,
        next(t for t in live["study"].assignments if t["assessor_id"] == "trial_a-001")["task_ids"][0],
        "trial_a-001",
    )
    s = Session(browser, live, "trial_a-002")
    try:
        s.page.wait_for_selector("form.task")
        status = s.page.evaluate(
            """async ([id, token]) => (await fetch('/api/judgments/' + id,
                 {headers: {Authorization: 'Bearer ' + token}})).status""",
            [j["judgment_id"], s.token],
        )
        assert status == 404
        admin = s.page.evaluate(
            """async (token) => (await fetch('/api/admin/judgments.jsonl',
                 {headers: {Authorization: 'Bearer ' + token}})).status""",
            s.token,
        )
        assert admin == 403
    finally:
        s.close()


def test_a_submit_whose_answer_is_lost_is_retried_and_stored_once(browser, live):
    s = Session(browser, live, "preference-002")
    lost = []

    def lose_first_answer(route):
        response = route.fetch()  # the server receives and stores it …
        if not lost:
            lost.append(response.status)
            route.abort("connectionreset")  # … but the browser never hears back
        else:
            route.fulfill(response=response)

    try:
        s.page.route("**/api/judgments", lose_first_answer)
        task = s.task()
        s.answer_check(task)
        s.page.click("fieldset[data-name='choice'] input[value='tie']")
        s.submit()
        j = wait_stored(live, s, task["task_id"], "preference-002")  # exactly one row (asserted inside)
        assert lost == [201] and j["choice"] == "tie"
    finally:
        s.close()


# --------------------------------------------------------------------------- layout


#: Every visible option box of the page: its rectangle, and how far its content reaches past it.
OPTION_BOXES = """() => [...document.querySelectorAll('fieldset .options')].filter((g) => g.offsetParent)
  .map((group) => [...group.querySelectorAll('label.option')].map((label) => {
    const box = label.getBoundingClientRect();
    let right = box.right, bottom = box.bottom;
    for (const child of label.querySelectorAll('*')) {
      for (const r of child.getClientRects()) {
        right = Math.max(right, r.right);
        bottom = Math.max(bottom, r.bottom);
      }
    }
    return {text: label.textContent, left: box.left, top: box.top, right: box.right, bottom: box.bottom,
            overflowRight: right - box.right, overflowBottom: bottom - box.bottom,
            scroll: label.scrollWidth - label.clientWidth};
  }))"""

LONG_OPTIONS = [
    "Computers and Electronics, Hobbies and Crafts, and Everything Else People Do at Home on Weekends",
    "Pneumonoultramicroscopicsilicovolcanoconiosis-and-Supercalifragilisticexpialidocious",
    "Food and Entertaining",
    "Philosophy and Religion, Relationships, Youth, and Work World",
]


def _overlap(a: dict, b: dict) -> float:
    width = min(a["right"], b["right"]) - max(a["left"], b["left"])
    height = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return min(width, height)


@pytest.fixture(scope="module")
def long_options(study_template, tmp_path_factory):
    """The test study with long attention-check options (a long phrase, a long unbroken word)."""
    from wikihowqa.humaneval.app import ServerSettings
    from wikihowqa.humaneval.app.run import running

    folder = Path(shutil.copytree(study_template, tmp_path_factory.mktemp("long") / "study"))
    for name in ("tasks.jsonl", "key.jsonl"):
        rows = [json.loads(line) for line in (folder / name).read_text().splitlines() if line]
        for row in rows:
            if name == "tasks.jsonl" and row.get("attention_check"):
                row["attention_check"]["options"] = LONG_OPTIONS
            if name == "key.jsonl" and row.get("attention_answer"):
                row["attention_answer"] = "Food and Entertaining"
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    with running(folder, ServerSettings(admin_token=ADMIN)) as (base, app):
        tokens = {r["assessor_id"]: r["token"] for r in app.state.service.assessor_rows()}
        yield {"base": base, "tokens": tokens, "study": read_study(folder)}


@pytest.mark.parametrize("width", [1366, 1024, 700, 390])
@pytest.mark.parametrize("assessor", ["relevance-001", "trial_b-001", "preference-001"])
def test_long_attention_check_options_wrap_and_never_overlap(browser, long_options, width, assessor):
    """Measured in the page: no two option boxes of a group intersect, and no option's text reaches
    outside its own box (it wraps, also a word longer than the box), at laptop to phone widths; the
    same for every scale once the task is shown."""
    s = Session(browser, long_options, assessor)
    try:
        s.page.set_viewport_size({"width": width, "height": 800})
        s.task()
        for stage in ("check", "task"):
            groups = s.page.evaluate(OPTION_BOXES)
            assert groups, "no options on the page"
            if stage == "check":
                assert [b["text"] for b in groups[0]] == LONG_OPTIONS
            for boxes in groups:
                for b in boxes:
                    assert b["overflowRight"] <= 0.5 and b["overflowBottom"] <= 0.5, (stage, width, b)
                    assert b["scroll"] <= 0, (stage, width, b)
                for a, b in itertools.combinations(boxes, 2):
                    assert _overlap(a, b) <= 0, (stage, width, a["text"], b["text"])
            if stage == "check":
                s.page.click("fieldset.attention label.option:has-text('Food and Entertaining')")
                assert s.page.is_visible(".task-body")
        assert not s.errors
    finally:
        s.close()
