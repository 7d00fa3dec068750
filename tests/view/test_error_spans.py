"""The explorer's question page shows the assessors' error spans (a study's errors part) beside grounding's
flags: in the data (the sentences each span touches) and, in Chromium, on the page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.view.test_explorer_browser import Tab, browser  # noqa: F401  (browser: a fixture)
from wikihowqa.dataset.readers import read_predictions
from wikihowqa.dataset.writers import write_jsonl


def _study_with_error_spans(inputs: dict[str, Path], root: Path) -> tuple[Path, dict[tuple[int, str], dict]]:
    """A study whose errors parts show the site's lead-60 answers, judged by simulated assessors who mark
    (recall 1, right type) one reference span per answer: its first sentence, unsafe step, major."""
    from wikihowqa.core.sentences import sentences as sentences_of
    from wikihowqa.dataset.folder import DatasetFolder
    from wikihowqa.humaneval.rank import BM25Ranker
    from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
    from wikihowqa.humaneval.simulate_errors import ErrorSimulation
    from wikihowqa.humaneval.tasks import ERROR_PARTS, StudySettings, build_study, write_study

    folder = DatasetFolder(inputs["dataset"])
    examples = folder.examples()
    predictions = read_predictions(inputs["predictions"])
    study = build_study(
        [], examples, folder.documents_by_article(), predictions, BM25Ranker(),
        StudySettings(parts=ERROR_PARTS, error_questions=len(examples), error_controls=0), study_id="view",
    )  # fmt: skip
    reference = {}
    for p in predictions:
        first = sentences_of(p.answer)[0]
        start = p.answer.index(first)
        span = {"start": start, "end": start + len(first), "text": first, "type": "unsafe_step",
                "severity": "major"}  # fmt: skip
        reference[(p.system, p.article_id)] = {"answer": p.answer, "spans": [span]}
    judged = simulate_judgments(
        study,
        SimulationSettings(
            errors=ErrorSimulation(recall={"errors_a": 1.0, "errors_b": 1.0}, type_accuracy=1.0),
            reference=reference,
            inattentive=0.0,
        ),
    )
    write_study(study, root / "study")
    write_jsonl(root / "study" / "judgments.jsonl", judged)
    tasks = study.tasks_by_id()
    for ref in reference.values():  # how many judgments of this answer (several assessors, both parts)
        ref["judgments"] = sum(tasks[j["task_id"]]["answer"]["text"] == ref["answer"] for j in judged)
    return root / "study", reference


@pytest.fixture(scope="module")
def error_site(explorer_inputs, tmp_path_factory):
    from wikihowqa.view import build_site

    root = tmp_path_factory.mktemp("error-site")
    study, reference = _study_with_error_spans(explorer_inputs, root)
    meta = root / "meta"
    shutil.copytree(explorer_inputs["meta"], meta)
    result = json.loads((meta / "meta_evaluation.json").read_text())
    result["sources"] = {**result.get("sources", {}), "study": str(study)}
    (meta / "meta_evaluation.json").write_text(json.dumps(result))
    site = root / "site"
    build_site(explorer_inputs["dataset"], site, report=explorer_inputs["report"], study=meta)
    return site, reference


def _records(site: Path) -> dict[str, dict]:
    out = {}
    for path in (site / "data" / "q").glob("*.js"):
        text = path.read_text(encoding="utf-8")
        out.update(json.loads(json.loads(text[text.index(",") + 1 : text.rindex(")")])))
    return out


def test_the_question_data_holds_each_assessor_span_with_the_grounding_sentences_it_touches(error_site):
    site, reference = error_site
    records = _records(site)
    seen = 0
    for record in records.values():
        for a in record["answers"]:
            ref = reference.get((a["system"], record["id"]))
            if ref is None:
                assert "err" not in a  # lead-15 was not in the study
                continue
            span = ref["spans"][0]
            # one span per judgment (several assessors, both parts), each on the first grounded sentence
            assert len(a["err"]) == ref["judgments"] > 0
            assert {e[4] for e in a["err"]} == {"errors_a", "errors_b"}
            for text, type_, severity, _assessor, _part, simulated, touched in a["err"]:
                assert (text, type_, severity, simulated) == (span["text"], "unsafe_step", "major", 1)
                assert touched == [0] and a["s"][0][0] == span["text"]
            seen += 1
    assert seen == len(records)


@pytest.mark.browser
@pytest.mark.slow
def test_the_question_page_lists_the_spans_beside_grounding_s_flag(error_site, browser):  # noqa: F811
    site, reference = error_site
    records = _records(site)
    record = next(iter(records.values()))
    answer = next(a for a in record["answers"] if "err" in a)
    flag = "flagged unsupported" if not answer["s"][0][2] else "not flagged (supported)"
    t = Tab(browser, site, f"question.html#id={record['id']}")
    try:
        card = t.page.locator(f"section.answer[aria-label='Answer of {answer['system']}']")
        items = card.locator("li.error-span").all_inner_texts()
        assert len(items) == reference[(answer["system"], record["id"])]["judgments"]
        for item in items:
            assert (
                answer["err"][0][0] in item and "unsafe_step, major" in item and f"grounding: {flag}" in item
            )
        assert "simulated assessors, not real people" in card.locator(".error-spans .note").inner_text()
        marked = card.locator("button.sentence.marked")
        assert marked.count() == 1 and marked.inner_text() == answer["s"][0][0]
        assert not t.errors, t.errors
    finally:
        t.close()
