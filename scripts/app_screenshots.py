"""Screenshots of every study page at 1366×768 (a laptop screen), into docs/screenshots/.

Builds a study from the three real release instances (with their wikiHow categories, so the
attentiveness check shows, and a simple system's answers for the A/B task), serves it, and drives
Debian's Chromium through Playwright the way an assessor would: real mouse drags and clicks.

PYTHONPATH=src python scripts/app_screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from wikihowqa.importer import import_release
from wikihowqa.io import DatasetFolder
from wikihowqa.records import Prediction

from wikihowqa.demo import real_examples_path
from wikihowqa.humaneval.app import ServerSettings
from wikihowqa.humaneval.app.run import running
from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
from wikihowqa.humaneval.rank import make_ranker
from wikihowqa.humaneval.tasks import StudySettings, build_study, write_study
from wikihowqa.humaneval.text import word_spans

CATEGORIES = {1366001: "Food and Entertaining", 704295: "Home and Garden", 930014: "Family Life"}
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]  # fmt: skip
ADMIN = "screenshots-admin-token-0123456789"
CENTRE = """([selector, u]) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let pos = 0, node;
  while ((node = walker.nextNode())) { if (u < pos + node.data.length) break; pos += node.data.length; }
  const range = document.createRange();
  range.setStart(node, u - pos); range.setEnd(node, u - pos + 1);
  const r = range.getClientRects()[0];
  return {x: r.left + r.width / 2, y: r.top + r.height / 2};
}"""


def make_study(root: Path) -> Path:
    src = real_examples_path()
    rows = [json.loads(x) for x in (src / "qa.jsonl").read_text(encoding="utf-8").splitlines() if x]
    for row in rows:
        row["category"] = CATEGORIES[row["article_id"]]
    qa = root / "qa.jsonl"
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    dataset, _ = import_release([qa], [src / "documents.jsonl"], root / "dataset")
    folder = DatasetFolder(dataset.path)
    examples, documents = folder.examples(), folder.documents_by_article()
    predictions = [
        Prediction(e.article_id, "lead", " ".join(documents[e.article_id][0].parsed_text.split()[:60]) + ".")
        for e in examples
    ]
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=3))
    study = build_study(
        answers, examples, documents, predictions, make_ranker("bm25"), StudySettings(seed=1), study_id="demo"
    )
    return write_study(study, root / "study")


def drag(page, selector: str, text: str, start: int, end: int) -> None:
    def u(cp: int) -> int:
        return len(text[:cp].encode("utf-16-le")) // 2

    a = page.evaluate(CENTRE, [selector, u(start)])
    b = page.evaluate(CENTRE, [selector, u(end - 1)])
    page.mouse.move(a["x"], a["y"])
    page.mouse.down()
    page.mouse.move(b["x"], b["y"], steps=8)
    page.mouse.up()


def words(text: str, first: int, count: int) -> tuple[int, int]:
    spans = word_spans(text)
    return spans[first][0], spans[first + count - 1][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"), help="folder for the PNG files")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        study = make_study(Path(tmp))
        key = {
            k["task_id"]: k for k in (json.loads(x) for x in (study / "key.jsonl").read_text().splitlines())
        }
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        with running(
            study, ServerSettings(admin_token=ADMIN, completion_url="https://example.org/done?cc={code}")
        ) as (
            base,
            app,
        ):
            tokens = {r["assessor_id"]: r["token"] for r in app.state.service.assessor_rows()}

            def open_as(assessor: str):
                page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
                page.goto(f"{base}/a/#{tokens[assessor]}")
                page.wait_for_selector("form.task")
                task = json.loads(app.state.service.next_task(app.state.service.assessors[assessor]))["task"]
                return page, task

            def check(page, task) -> None:
                truth = key[task["task_id"]]["attention_answer"]
                page.click(f"fieldset.attention label.option:has-text('{truth}')")

            def shot(page, name: str) -> None:
                page.mouse.move(1360, 760)
                page.screenshot(path=str(args.out / f"{name}.png"))
                print(args.out / f"{name}.png")

            page, task = open_as("relevance-001")
            shot(page, "1-attention-check")
            check(page, task)
            doc = task["document"]["text"]
            drag(page, ".doc-col .text", doc, *words(doc, 10, 6))
            drag(page, ".doc-col .text", doc, *words(doc, 40, 9))
            page.click("fieldset[data-name='relevance'] input[value='3']")
            shot(page, "2-relevance")

            page, task = open_as("trial_a-001")
            check(page, task)
            text = task["answer"]["text"]
            edit = key[task["task_id"]]["edits"][0]
            drag(page, ".task-answer .text", text, *words(text, 1, 6))
            page.click("#popup .pop-u")
            lo = next(k for k, (s, e) in enumerate(word_spans(text)) if e > edit["start"])
            drag(page, ".task-answer .text", text, *words(text, lo, 2))
            shot(page, "3-trial-a-marking")
            page.click("#popup .pop-m")

            page, task = open_as("trial_b-001")
            check(page, task)
            text = task["answer"]["text"]
            n = next(e["sentence"] for e in task["passages"] if e["groups"] and e["sentence"] > 0)
            page.click(f".task-answer .text span.s[data-s='{n}']")
            page.wait_for_selector(".passages .passage")
            drag(page, ".task-answer .text", text, *words(text, 3, 3))
            page.click("#popup .pop-m")
            page.click("fieldset[data-name='familiarity'] input[value='2']")
            shot(page, "4-trial-b-passages")

            page, task = open_as("preference-001")
            check(page, task)
            page.click(".answer-B .text span.s[data-s='1']")
            page.wait_for_selector(".passages .passage")
            page.click("fieldset[data-name='choice'] input[value='A']")
            shot(page, "5-preference")

            service = app.state.service
            a = service.assessors["preference-002"]
            while (nxt := json.loads(service.next_task(a))).get("task"):
                t = nxt["task"]
                body = {"judgment_id": f"j-shot-{t['task_id']}", "task_id": t["task_id"], "choice": "tie"}
                body["attention"] = key[t["task_id"]]["attention_answer"]
                service.submit(a, body)
            page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
            page.goto(f"{base}/a/#{tokens['preference-002']}")
            page.wait_for_selector(".notice .code")
            shot(page, "6-done")

            page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
            page.goto(f"{base}/admin/#{ADMIN}")
            page.wait_for_selector("#assessors tbody tr")
            shot(page, "7-admin")
        browser.close()


if __name__ == "__main__":
    main()
