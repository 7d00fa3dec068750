"""The error-span page in a real browser (Chromium driven by Playwright, as the other page tests): typed
spans marked with the mouse and with the keyboard, antecedents in the answer and in a passage; the stored
judgment is exactly what was marked, nothing of the answer key reaches the page, and a server killed
with SIGKILL and restarted still has every submitted span."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.humaneval.app.conftest import build_test_study
from tests.humaneval.app.test_app_pages import CHAR_CENTRE, Session, browser, utf16, words  # noqa: F401
from tests.humaneval.app.test_app_restart import ADMIN, Server
from wikihowqa.humaneval.tasks import ERROR_PARTS, read_study

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def errors_study(tmp_path_factory) -> Path:
    return build_test_study(tmp_path_factory.mktemp("errors-study"), parts=ERROR_PARTS)


def _links(server: Server) -> dict[str, str]:
    r = httpx.get(f"{server.base}/api/admin/assessors", headers={"Authorization": f"Bearer {ADMIN}"})
    return {a["assessor_id"]: a["link"].split("#", 1)[1] for a in r.json()["assessors"]}


def _judgments(server: Server) -> list[dict]:
    r = httpx.get(f"{server.base}/api/admin/judgments.jsonl", headers={"Authorization": f"Bearer {ADMIN}"})
    return [json.loads(x) for x in r.text.splitlines()]


def _select_type(s: Session, name: str) -> None:
    s.page.wait_for_selector(".error-form:not([hidden])")
    s.page.select_option("#error-type", name)


def test_typed_spans_marked_by_mouse_and_keyboard_are_stored_as_marked_and_survive_a_sigkill(
    browser,  # noqa: F811 - the page tests' Chromium fixture
    errors_study,
):
    study = read_study(errors_study)
    server = Server(errors_study)
    try:
        tokens = _links(server)
        live = {"base": server.base, "tokens": tokens, "study": study}
        s = Session(browser, live, "errors_b-001")
        task = s.task()
        assert task["type"] == "errors" and task["passages"] is not None
        # Crowd-safe: the page's task is the public task; no key field, no planted-edit hints.
        page_task = json.dumps(
            httpx.get(
                f"{server.base}/api/next", headers={"Authorization": f"Bearer {tokens['errors_b-001']}"}
            ).json()
        )
        me = httpx.get(f"{server.base}/api/me", headers={"Authorization": f"Bearer {tokens['errors_b-001']}"})
        for secret in ('"edits"', '"source"', '"system"', '"deteriorated"', "attention_answer", '"planted"'):
            assert secret not in page_task and secret not in me.text
        if task["attention_check"]:
            s.answer_check(task)
        text = task["answer"]["text"]
        view = ".task-errors .col-left .text"
        assert s.page.evaluate(f"document.querySelector('{view}').textContent") == text

        # 1. Mouse: an error span, type self_contradiction, major, a note, antecedent dragged in the answer.
        err1, ante1 = words(text, 6, 3), words(text, 0, 2)
        s.drag(view, text, err1[0] + 1, err1[1])
        _select_type(s, "self_contradiction")
        s.page.click("label.option:has(#severity-major)")
        s.page.fill("#error-note", "says the opposite of the start")
        s.page.click("#pick-antecedent")
        s.drag(view, text, ante1[0], ante1[1])
        s.page.click("#add-error")

        # 2. A click on a sentence opens its passages (logged).
        entry = next(e for e in task["passages"] if e["groups"])
        passage = entry["groups"][0]["passages"][0]
        at = s.page.evaluate(CHAR_CENTRE, [view, utf16(text, entry["start"]), True])
        s.page.mouse.click(at["x"], at["y"])
        pview = f".passages .text[data-pid='{passage['passage_id']}']"
        s.page.wait_for_selector(pview)

        # 3. Keyboard: → to word 12, Shift+→ twice, E; severity key 3; antecedent picked in a passage by keys.
        s.page.focus(view)
        for _ in range(13):
            s.page.keyboard.press("ArrowRight")
        s.page.keyboard.press("Shift+ArrowRight")
        s.page.keyboard.press("Shift+ArrowRight")
        s.page.keyboard.press("e")
        s.page.wait_for_selector(".error-form:not([hidden])")
        assert s.page.evaluate("document.activeElement.id") == "error-type"
        s.page.select_option("#error-type", "contradicts_passages")  # (a native <select>: keys are the OS's)
        s.page.focus("#pick-antecedent")
        s.page.keyboard.press("3")
        s.page.keyboard.press("Enter")  # "Select antecedent"
        s.page.focus(pview)
        ptext = passage["text"]
        k = next(i for i, (a, _) in enumerate(_words(ptext)) if a >= passage["highlight"]["start"])
        for _ in range(k + 1):
            s.page.keyboard.press("ArrowRight")
        s.page.keyboard.press("Shift+ArrowRight")
        s.page.keyboard.press("a")
        assert s.page.evaluate("document.activeElement.id") == "add-error"
        s.page.keyboard.press("Enter")
        err2, ante2 = words(text, 12, 3), (_words(ptext)[k][0], _words(ptext)[k + 1][1])
        assert s.page.locator(".error-list li.span-error").count() == 2
        s.submit()
        s.page.locator("#progress", has_text="Task 2 of").wait_for()
        assert not s.errors and not s.dialogs
        s.close()

        expected = [
            {
                "start": err1[0],
                "end": err1[1],
                "text": text[slice(*err1)],
                "type": "self_contradiction",
                "severity": "major",
                "note": "says the opposite of the start",
                "antecedent": {
                    "source": "answer",
                    "start": ante1[0],
                    "end": ante1[1],
                    "text": text[slice(*ante1)],
                },
            },
            {
                "start": err2[0],
                "end": err2[1],
                "text": text[slice(*err2)],
                "type": "contradicts_passages",
                "severity": "critical",
                "note": None,
                "antecedent": {
                    "source": "passage",
                    "passage_id": passage["passage_id"],
                    "start": ante2[0],
                    "end": ante2[1],
                    "text": ptext[slice(*ante2)],
                },
            },
        ]
        (mine,) = [j for j in _judgments(server) if j["assessor_id"] == "errors_b-001"]
        assert mine["format_version"] == 2 and mine["task_id"] == task["task_id"]
        assert mine["error_spans"] == expected
        kinds = [e["kind"] for e in mine["events"]]
        assert kinds.count("span_add") == 2 and "sentence_open" in kinds
        assert [
            (e["start"], e["end"], e["error_type"]) for e in mine["events"] if e["kind"] == "span_add"
        ] == [(err1[0], err1[1], "self_contradiction"), (err2[0], err2[1], "contradicts_passages")]

        server.kill()  # a crash right after the acknowledgement
        server = Server(errors_study)
        (again,) = [j for j in _judgments(server) if j["assessor_id"] == "errors_b-001"]
        assert again == mine
    finally:
        server.stop()


def _words(text: str) -> list[tuple[int, int]]:
    from wikihowqa.humaneval.text import word_spans

    return word_spans(text)


def test_without_passages_a_missing_antecedent_is_refused_on_the_page_and_removals_are_logged(
    browser,  # noqa: F811 - the page tests' Chromium fixture
    errors_study,
):
    server = Server(errors_study)
    try:
        live = {"base": server.base, "tokens": _links(server), "study": read_study(errors_study)}
        s = Session(browser, live, "errors_a-001")
        task = s.task()
        assert task["passages"] is None
        assert "contradicts_passages" not in {t["name"] for t in task["error_types"]}
        if task["attention_check"]:
            s.answer_check(task)
        text = task["answer"]["text"]
        view = ".task-errors .col-left .text"
        assert not s.page.is_visible(".passages")
        # Keyboard: words 3-4 as a redundancy, first without its antecedent (refused), then with one.
        s.page.focus(view)
        for _ in range(4):
            s.page.keyboard.press("ArrowRight")
        s.page.keyboard.press("Shift+ArrowRight")
        s.page.keyboard.press("e")
        s.page.select_option("#error-type", "redundant")
        s.page.focus("#add-error")
        s.page.keyboard.press("2")
        s.page.keyboard.press("Enter")
        assert "antecedent" in s.page.inner_text(".draft-problem")
        assert s.page.locator(".error-list li.span-error").count() == 0
        s.page.click("#pick-antecedent")
        s.page.focus(view)
        s.page.keyboard.press("Home")
        s.page.keyboard.press("Shift+ArrowRight")
        s.page.keyboard.press("a")
        s.page.keyboard.press("Enter")
        # Mouse: a second error, then removed again.
        extra = words(text, 8, 2)
        s.drag(view, text, extra[0], extra[1])
        _select_type(s, "grammar_usage")
        s.page.click("label.option:has(#severity-minor)")
        s.page.click("#add-error")
        assert s.page.locator(".error-list li.span-error").count() == 2
        s.page.click(".error-list li.span-error:nth-child(2) button.remove")
        assert s.page.locator(".error-list li.span-error").count() == 1
        s.submit()
        s.page.locator("#progress", has_text="Task 2 of").wait_for()
        assert not s.errors and not s.dialogs
        s.close()
        err, ante = words(text, 3, 2), words(text, 0, 2)
        (mine,) = [j for j in _judgments(server) if j["assessor_id"] == "errors_a-001"]
        antecedent = {"source": "answer", "start": ante[0], "end": ante[1], "text": text[slice(*ante)]}
        assert mine["error_spans"] == [
            {"start": err[0], "end": err[1], "text": text[slice(*err)], "type": "redundant",
             "severity": "major", "note": None, "antecedent": antecedent},
        ]  # fmt: skip
        log = [(e["kind"], e["start"], e["end"], e["error_type"]) for e in mine["events"]]
        assert log == [
            ("span_add", err[0], err[1], "redundant"),
            ("span_add", extra[0], extra[1], "grammar_usage"),
            ("span_remove", extra[0], extra[1], "grammar_usage"),
        ]
    finally:
        server.stop()
