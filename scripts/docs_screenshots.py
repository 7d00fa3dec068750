"""Screenshots of the results explorer for the docs, from a demo run's own site (not made by hand).

Opens the explorer `wikihowqa demo --out DEMO` wrote (DEMO/dataset/site) in Debian's Chromium through
Playwright at 1366×768: a question with an answer sentence chosen (its supporting passages highlighted),
and two systems side by side. The study app's screenshots come from scripts/app_screenshots.py.

PYTHONPATH=src python scripts/docs_screenshots.py DEMO [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from playwright.sync_api import sync_playwright

ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--no-first-run", "--hide-scrollbars"]  # fmt: skip


def first_test_question(dataset: Path) -> int:
    for line in (dataset / "qa.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("split") == "test":
            return int(row["article_id"])
    raise SystemExit(f"{dataset}: no test question")


def systems(report: Path) -> list[str]:
    board = json.loads((report / "evaluation.json").read_text(encoding="utf-8"))
    found = board.get("leaderboard") or []  # best first
    names = [s if isinstance(s, str) else s.get("system") for s in found]
    return [n for n in names if n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("demo", type=Path, help="folder `wikihowqa demo --out` wrote")
    parser.add_argument(
        "--out", type=Path, default=Path("docs/screenshots"), help="default: docs/screenshots"
    )
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="default: /usr/bin/chromium")
    args = parser.parse_args()
    dataset = args.demo / "dataset"
    site = dataset / "site"
    if not (site / "index.html").is_file():
        raise SystemExit(f"{site}: no explorer here (run `wikihowqa demo --out {args.demo}` first)")
    args.out.mkdir(parents=True, exist_ok=True)
    article = first_test_question(dataset)
    names = systems(dataset / "report")
    pair = f"#a={names[0]}&b={names[1]}" if len(names) >= 2 else ""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
        page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        page.goto((site / "question.html").as_uri() + f"#id={article}")
        page.wait_for_selector("body[data-ready='1']")
        page.click("button.sentence")
        page.screenshot(path=str(args.out / "explorer-question.png"))
        page.goto((site / "compare.html").as_uri() + pair)
        page.wait_for_selector("body[data-ready='1']")
        page.screenshot(path=str(args.out / "explorer-side-by-side.png"))
        browser.close()
    print(f"wrote {args.out / 'explorer-question.png'} and {args.out / 'explorer-side-by-side.png'}")


if __name__ == "__main__":
    main()
