"""A real study folder for the web-app tests: the three real release instances, with their wikiHow
categories (so tasks have attentiveness checks), a simple system's answers (so there are A/B tasks), and
script-injection payloads planted in a document and a passage (untrusted web text)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from wikihowqa.core.records import Prediction
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.demo.paths import real_examples_path
from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
from wikihowqa.humaneval.rank import make_ranker
from wikihowqa.humaneval.tasks import PARTS, StudySettings, build_study, write_study
from wikihowqa.release.importer import import_release

CATEGORIES = {
    1366001: "Food and Entertaining",
    704295: "Home and Garden",
    930014: "Family Life",
}
#: What a hostile page could contain; if any of it ran, it would set window.__pwned or open a dialog.
PAYLOAD = (
    '<script>window.__pwned = "script"; alert(1)</script> '
    "<img src=x onerror=\"window.__pwned = 'onerror'; alert(2)\"> "
    "<a href=\"javascript:window.__pwned='link'\">click me</a> "
)
#: A character outside the Basic Multilingual Plane: one code point in Python, two UTF-16 units in JS.
EMOJI = "🙂 "


def _plant_payloads(folder: Path) -> None:
    """Put the payload and an emoji at the start of the relevance document and of every trial B passage,
    shifting the passages' marked spans so they still point at the same words."""
    path = folder / "tasks.jsonl"
    tasks = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    prefix = EMOJI + PAYLOAD
    for task in tasks:
        if task["type"] == "relevance":
            task["document"]["text"] = prefix + task["document"]["text"]
            task["document"]["title"] = PAYLOAD + (task["document"]["title"] or "")
        lists = []
        if task["type"] in ("answer", "errors") and task["passages"] is not None:
            lists = [task["passages"]]
        if task["type"] == "preference":
            lists = [task["passages"]["A"], task["passages"]["B"]]
        for entries in lists:
            for entry in entries:
                for group in entry["groups"]:
                    group["title"] = PAYLOAD + (group["title"] or "")
                    for p in group["passages"]:
                        p["text"] = prefix + p["text"]
                        p["highlight"] = {
                            "start": p["highlight"]["start"] + len(prefix),
                            "end": p["highlight"]["end"] + len(prefix),
                        }
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tasks), encoding="utf-8")


def build_test_study(root: Path, *, payloads: bool = True, parts: tuple[str, ...] = PARTS) -> Path:
    src = real_examples_path()
    rows = [json.loads(line) for line in (src / "qa.jsonl").read_text(encoding="utf-8").splitlines() if line]
    for row in rows:
        row["category"] = CATEGORIES[row["article_id"]]
    qa = root / "qa.jsonl"
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    dataset, _ = import_release([qa], [src / "documents.jsonl"], root / "dataset")
    folder = DatasetFolder(dataset.path)
    examples = folder.examples()
    documents = folder.documents_by_article()
    predictions = [
        Prediction(e.article_id, "lead", " ".join(documents[e.article_id][0].parsed_text.split()[:60]) + ".")
        for e in examples
    ]
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=3))
    study = build_study(
        answers,
        examples,
        documents,
        predictions,
        make_ranker("bm25"),
        StudySettings(assessors_per_item=2, items_per_assessor=3, seed=1, parts=parts),
        study_id="test-study",
    )
    target = write_study(
        study, root / "study", extra_files={"deteriorated.jsonl": [a.to_dict() for a in answers]}
    )
    if payloads:
        _plant_payloads(target)
    return target


@pytest.fixture(scope="session")
def study_template(tmp_path_factory) -> Path:
    return build_test_study(tmp_path_factory.mktemp("webapp-study"))


@pytest.fixture()
def study_dir(study_template, tmp_path) -> Path:
    """A fresh copy per test: each test starts without a server database."""
    return Path(shutil.copytree(study_template, tmp_path / "study"))


ADMIN = "test-admin-token-0123456789"


def make_body(task: dict, *, attention: str | None = None, judgment_id: str | None = None) -> dict:
    """A well-formed submission for a task (first option of every scale, one span, one event)."""
    import uuid

    check = task.get("attention_check")
    body: dict = {
        "judgment_id": judgment_id or f"j-{uuid.uuid4().hex}",
        "task_id": task["task_id"],
        "attention": attention if attention is not None else (check["options"][0] if check else None),
        "duration_ms": 1234,
        "events": [],
    }
    if task["type"] == "relevance":
        body.update(relevance=2, highlights=[{"start": 0, "end": 5}])
    elif task["type"] == "answer":
        body.update(familiarity=3, usefulness=4, spans=[{"start": 0, "end": 2, "label": "misleading"}])
        if task["passages"]:
            entry = next(e for e in task["passages"] if e["groups"])
            pid = entry["groups"][0]["passages"][0]["passage_id"]
            body["events"] = [
                {"t_ms": 10, "kind": "sentence_open", "sentence": entry["sentence"], "side": None},
                {
                    "t_ms": 20,
                    "kind": "passage_view",
                    "sentence": entry["sentence"],
                    "side": None,
                    "passage_id": pid,
                },
            ]
    else:
        body.update(choice="B", events=[{"t_ms": 5, "kind": "sentence_open", "sentence": 0, "side": "A"}])
    return body


class Api:
    """A TestClient with the admin token and a way to act as any assessor."""

    def __init__(self, client) -> None:
        self.client = client
        self.admin = {"Authorization": f"Bearer {ADMIN}"}

    def tokens(self) -> dict[str, str]:
        rows = self.client.get("/api/admin/assessors", headers=self.admin).json()["assessors"]
        return {r["assessor_id"]: r["link"].split("#", 1)[1] for r in rows}

    def auth(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    def next(self, token: str) -> dict:
        r = self.client.get("/api/next", headers=self.auth(token))
        assert r.status_code == 200, r.text
        return r.json()

    def submit(self, token: str, body: dict):
        return self.client.post("/api/judgments", json=body, headers=self.auth(token))


@pytest.fixture()
def api(study_dir):
    from fastapi.testclient import TestClient

    from wikihowqa.humaneval.app import ServerSettings, create_app

    app = create_app(study_dir, ServerSettings(admin_token=ADMIN, crowd=True, items_per_assessor=2))
    with TestClient(app) as client:
        yield Api(client)


@pytest.fixture()
def valid_body():
    return make_body
