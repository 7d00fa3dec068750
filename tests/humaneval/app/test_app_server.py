"""The HTTP API: assignment by plan, judgments stored once, clear 4xx answers, nothing leaks."""

from __future__ import annotations

import json

import pytest

from wikihowqa.humaneval.analysis import analyze, judgment_problem, screen
from wikihowqa.humaneval.tasks import read_study

KEY_ONLY_FIELDS = ("attention_answer", "gold_side", '"edits"', '"deteriorated"', '"system"')


def test_a_plan_assessor_gets_their_tasks_in_plan_order_and_the_same_task_until_it_is_judged(
    api, study_dir, valid_body
):
    plan = {a["assessor_id"]: a["task_ids"] for a in read_study(study_dir).assignments}
    token = api.tokens()["trial_b-001"]
    seen = []
    for _ in plan["trial_b-001"]:
        first = api.next(token)
        assert api.next(token)["task"]["task_id"] == first["task"]["task_id"]  # a reload shows the same task
        seen.append(first["task"]["task_id"])
        assert api.submit(token, valid_body(first["task"])).status_code == 201
    assert seen == plan["trial_b-001"]
    end = api.next(token)
    assert end["finished"] is True and "task" not in end
    assert len(end["completion_code"]) == 8


def test_a_retried_submit_is_stored_once_and_acknowledged_again(api, valid_body):
    token = api.tokens()["trial_a-001"]
    task = api.next(token)["task"]
    body = valid_body(task)
    first = api.submit(token, body)
    again = api.submit(token, body)
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["duplicate"] is True and again.json()["judgment_id"] == body["judgment_id"]
    lines = api.client.get("/api/admin/judgments.jsonl", headers=api.admin).text.splitlines()
    assert [json.loads(x)["judgment_id"] for x in lines] == [body["judgment_id"]]


def test_a_second_judgment_of_the_same_task_under_a_new_id_is_refused(api, valid_body):
    token = api.tokens()["trial_a-001"]
    task = api.next(token)["task"]
    assert api.submit(token, valid_body(task)).status_code == 201
    r = api.submit(token, valid_body(task))
    assert r.status_code == 409 and "already judged" in r.json()["error"]


def _body_for(api, valid_body, assessor="trial_b-001"):
    token = api.tokens()[assessor]
    task = api.next(token)["task"]
    return token, task, valid_body(task)


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        (lambda b, t: b.update(usefulness=6), 422, "usefulness must be an integer from 1 to 5"),
        (lambda b, t: b.update(familiarity=True), 422, "familiarity must be an integer"),
        (lambda b, t: b.pop("usefulness"), 422, "usefulness is missing"),
        (
            lambda b, t: b.update(
                spans=[{"start": 3, "end": len(t["answer"]["text"]) + 1, "label": "useful"}]
            ),
            422,
            "outside the text",
        ),
        (lambda b, t: b.update(spans=[{"start": 4, "end": 4, "label": "useful"}]), 422, "or empty"),
        (
            lambda b, t: b.update(
                spans=[
                    {"start": 0, "end": 9, "label": "useful"},
                    {"start": 5, "end": 12, "label": "misleading"},
                ]
            ),
            422,
            "overlap",
        ),
        (
            lambda b, t: b.update(spans=[{"start": 0, "end": 3, "label": "wrong"}]),
            422,
            "label must be one of",
        ),
        (lambda b, t: b.update(attention="Not a category"), 422, "attention must be one of"),
        (lambda b, t: b.update(judgment_id="x"), 422, "judgment_id"),
        (lambda b, t: b.update(task_id="trial_b:999"), 404, "unknown task"),
        (
            lambda b, t: b.update(events=[{"t_ms": 1, "kind": "scroll", "sentence": 0, "side": None}]),
            422,
            "kind",
        ),
        (
            lambda b, t: b.update(
                events=[
                    {"t_ms": 1, "kind": "passage_view", "sentence": 0, "side": None, "passage_id": "nope"}
                ]
            ),
            422,
            "is not a passage of sentence 0",
        ),
        (
            lambda b, t: b.update(
                events=[{"t_ms": 1, "kind": "sentence_open", "sentence": 999, "side": None}]
            ),
            422,
            "events[0].sentence",
        ),
    ],
)
def test_a_bad_submission_gets_a_4xx_that_names_the_problem(api, valid_body, change, status, words):
    token, task, body = _body_for(api, valid_body)
    change(body, task)
    r = api.submit(token, body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert api.client.get("/api/admin/progress", headers=api.admin).json()["judgments"] == 0


def test_a_task_not_assigned_to_the_assessor_is_refused(api, valid_body, study_dir):
    token, _, _ = _body_for(api, valid_body, "trial_b-001")
    other = next(t for t in read_study(study_dir).tasks if t["part"] == "trial_a")
    r = api.submit(token, valid_body(other))
    assert r.status_code == 403 and "not assigned to you" in r.json()["error"]


def test_malformed_json_and_oversized_bodies_get_400_and_413(api, valid_body):
    token, _, body = _body_for(api, valid_body)
    r = api.client.post("/api/judgments", content=b"{not json", headers=api.auth(token))
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    r = api.client.post("/api/judgments", content=b"[" * 100_000 + b"]" * 100_000, headers=api.auth(token))
    assert r.status_code == 400 and "nested too deeply" in r.json()["error"]
    huge = dict(body, padding="x" * (600 * 1024))
    r = api.submit(token, huge)
    assert r.status_code == 413 and "too large" in r.json()["error"]

    def chunks():  # no Content-Length: the limit applies while reading
        for _ in range(700):
            yield b"x" * 1024

    r = api.client.post("/api/judgments", content=chunks(), headers=api.auth(token))
    assert r.status_code == 413


def test_the_answer_key_never_reaches_an_assessor(api, valid_body, study_dir):
    study = read_study(study_dir)
    key_values = {json.dumps(k["edits"]) for k in study.key if k.get("edits")}
    for assessor_id, token in api.tokens().items():
        while True:
            r = api.client.get("/api/next", headers=api.auth(token))
            text = r.text
            for field in KEY_ONLY_FIELDS:
                assert field not in text, (assessor_id, field)
            assert not any(v in text for v in key_values)
            task = r.json().get("task")
            if not task:
                break
            assert api.submit(token, valid_body(task)).status_code == 201
        assert "gold_side" not in api.client.get("/api/judgments", headers=api.auth(token)).text


def test_an_assessor_cannot_read_another_assessors_judgment_or_the_admin_api(api, valid_body):
    tokens = api.tokens()
    mine, theirs = tokens["trial_a-001"], tokens["trial_a-002"]
    task = api.next(mine)["task"]
    body = valid_body(task)
    assert api.submit(mine, body).status_code == 201
    assert api.client.get(f"/api/judgments/{body['judgment_id']}", headers=api.auth(mine)).status_code == 200
    r = api.client.get(f"/api/judgments/{body['judgment_id']}", headers=api.auth(theirs))
    assert r.status_code == 404 and body["judgment_id"] not in r.text
    assert api.client.get("/api/judgments", headers=api.auth(theirs)).json() == {"judgments": []}
    for path in (
        "/api/admin/progress",
        "/api/admin/assessors",
        "/api/admin/judgments.jsonl",
        "/api/admin/links.csv",
    ):
        assert api.client.get(path, headers=api.auth(mine)).status_code == 403
        assert api.client.get(path).status_code == 401
    assert (
        api.client.get("/api/me", headers=api.auth(mine[:-1] + ("A" if mine[-1] != "A" else "B"))).status_code
        == 401
    )
    assert api.client.get("/api/me").status_code == 401


def test_every_answer_carries_a_strict_content_security_policy(api):
    for path in ("/", "/a/", "/admin/", "/static/assessor.js", "/api/me", "/nope"):
        r = api.client.get(path)
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe-inline" not in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"


def test_pages_have_no_inline_script_and_static_files_never_reach_the_study_folder(api):
    for page in ("/a/", "/admin/"):
        html = api.client.get(page).text
        assert "<script>" not in html and "onload=" not in html and "javascript:" not in html
    for path in (
        "/static/../key.jsonl",
        "/static/%2e%2e/key.jsonl",
        "/static/..%2fkey.jsonl",
        "/static/../../../study/key.jsonl",
        "/key.jsonl",
        "/server.sqlite",
    ):
        r = api.client.get(path)
        assert r.status_code == 404, path
        assert "attention_answer" not in r.text


def test_judgments_from_the_server_are_exactly_what_the_analysis_accepts(
    api, valid_body, study_dir, tmp_path
):
    study = read_study(study_dir)
    truth = {k["task_id"]: k["attention_answer"] for k in study.key}
    for token in api.tokens().values():
        while task := api.next(token).get("task"):
            assert api.submit(token, valid_body(task, attention=truth[task["task_id"]])).status_code == 201
    lines = api.client.get("/api/admin/judgments.jsonl", headers=api.admin).text.splitlines()
    judgments = [json.loads(x) for x in lines]
    assert len(judgments) == sum(len(a["task_ids"]) for a in study.assignments)
    tasks = study.tasks_by_id()
    assert all(judgment_problem(j, tasks[j["task_id"]]) is None for j in judgments)
    accepted, rejected = screen(judgments, study)
    assert rejected == [] and len(accepted) == len(judgments)
    result = analyze(study, judgments)
    assert result["judgments"]["accepted"] == len(judgments)
    assert result["passages"]["trial_b"]["opened_any"]["share"] == 1.0


def test_the_progress_counts_inattentive_judgments_apart(api, valid_body, study_dir):
    study = read_study(study_dir)
    truth = {k["task_id"]: k["attention_answer"] for k in study.key}
    token = api.tokens()["relevance-001"]
    task = api.next(token)["task"]
    wrong = next(o for o in task["attention_check"]["options"] if o != truth[task["task_id"]])
    assert api.submit(token, valid_body(task, attention=wrong)).status_code == 201
    part = api.client.get("/api/admin/progress", headers=api.admin).json()["parts"]["relevance"]
    assert (part["judgments"], part["inattentive"], part["counted"]) == (1, 1, 0)


# --------------------------------------------------------------------------- issue 17: hostile input


SECURITY = ("content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options")


def test_links_are_built_from_the_configured_address_never_from_the_host_header(study_dir):
    """A client chooses its Host header; links built from it would send assessors (with their tokens)
    to any site. Without --base-url the links carry the address the server was started on."""
    from fastapi.testclient import TestClient

    from wikihowqa.humaneval.app import ServerSettings, create_app

    for base, expected in (
        (None, "http://127.0.0.1:8000"),  # create_app alone: serve's default address
        ("https://study.example.org/", "https://study.example.org"),
    ):
        settings = ServerSettings(admin_token="h" * 20, crowd=True, base_url=base)
        with TestClient(create_app(study_dir, settings)) as client:
            headers = {"Authorization": f"Bearer {'h' * 20}", "Host": "evil.example"}
            rows = client.get("/api/admin/assessors", headers=headers).json()["assessors"]
            made = client.post("/api/admin/assessors", json={"part": "relevance"}, headers=headers).json()
            renewed = client.post(f"/api/admin/assessors/{rows[0]['assessor_id']}/token", headers=headers)
            csv = client.get("/api/admin/links.csv", headers=headers).text
            joins = client.get("/api/admin/progress", headers=headers).json()["join_urls"]
            links = [r["link"] for r in rows] + [made["link"], renewed.json()["link"], *joins.values()]
            assert all(link.startswith(f"{expected}/") for link in links), links
            assert "evil.example" not in csv and f"{expected}/a/#" in csv


@pytest.mark.parametrize(
    "bad", ["study.example.org", "https://x.org/#frag", "https://x.org/?q=1", "ftp://x.org"]
)
def test_a_base_url_that_is_not_a_plain_http_address_is_one_clear_error(bad):
    from wikihowqa.core.errors import SettingsError
    from wikihowqa.humaneval.app import ServerSettings

    with pytest.raises(SettingsError, match="give the public address"):
        ServerSettings(base_url=bad)


def test_running_links_point_at_the_address_it_listens_on(study_dir):
    import httpx

    from wikihowqa.humaneval.app import ServerSettings
    from wikihowqa.humaneval.app.run import running

    with running(study_dir, ServerSettings(admin_token="r" * 20)) as (base, _):
        rows = httpx.get(
            f"{base}/api/admin/assessors",
            headers={"Authorization": f"Bearer {'r' * 20}", "Host": "evil.example"},
        ).json()["assessors"]
    assert base.startswith("http://127.0.0.1:") and all(r["link"].startswith(f"{base}/a/#") for r in rows)


def test_a_second_submission_under_a_stored_id_with_other_answers_is_refused_with_409(api, valid_body):
    """A retry (same id, same answers) is acknowledged as the duplicate it is; the same id with other
    answers is not a retry: it answers 409 and the first submission stays as it was."""
    token = api.tokens()["trial_a-001"]
    task = api.next(token)["task"]
    body = valid_body(task)
    assert api.submit(token, body).status_code == 201
    retry = dict(body, duration_ms=body["duration_ms"])  # a retry sends the very same body
    assert api.submit(token, retry).status_code == 200
    changed = dict(body, usefulness=1, spans=[])
    r = api.submit(token, changed)
    assert r.status_code == 409, r.text
    assert body["judgment_id"] in r.json()["error"] and "different answers" in r.json()["error"]
    lines = api.client.get("/api/admin/judgments.jsonl", headers=api.admin).text.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["usefulness"] == body["usefulness"]


def test_the_stored_duration_is_the_servers_and_the_pages_is_kept_apart(api, valid_body, study_dir):
    """A page claiming 7 days for a task it was shown a moment ago: duration_ms is the server's clock
    (first shown → stored), the claim is client_duration_ms, and the analysis flags the pair."""
    week = 7 * 24 * 3600 * 1000
    token = api.tokens()["trial_a-001"]
    task = api.next(token)["task"]
    body = dict(valid_body(task), duration_ms=week)
    assert api.submit(token, body).status_code == 201
    (line,) = api.client.get("/api/admin/judgments.jsonl", headers=api.admin).text.splitlines()
    stored = json.loads(line)
    assert stored["client_duration_ms"] == week
    assert 0 <= stored["duration_ms"] < 60_000
    started = stored["started_at"].replace("Z", "+00:00")
    submitted = stored["submitted_at"].replace("Z", "+00:00")
    from datetime import datetime

    measured = (datetime.fromisoformat(submitted) - datetime.fromisoformat(started)).total_seconds() * 1000
    assert abs(stored["duration_ms"] - measured) <= 2  # the server's own clock, to the millisecond
    result = analyze(read_study(study_dir), [stored])
    assert [f["judgment_id"] for f in result["clock_check"]["flagged"]] == [body["judgment_id"]]


@pytest.mark.parametrize("side", [[1], {"x": 1}, ["A"]])
def test_an_event_whose_side_is_a_list_or_object_gets_422_with_the_security_headers(api, valid_body, side):
    token, _, body = _body_for(api, valid_body)
    body["events"] = [{"t_ms": 1, "kind": "sentence_open", "sentence": 0, "side": side}]
    r = api.submit(token, body)
    assert r.status_code == 422, r.text
    assert "events[0].side must be null" in r.json()["error"]
    assert all(h in r.headers for h in SECURITY)


def test_an_integer_of_more_than_4300_digits_gets_400_with_the_security_headers(api, valid_body):
    token, _, body = _body_for(api, valid_body)
    raw = json.dumps(body).replace('"duration_ms": 1234', '"duration_ms": ' + "9" * 5000).encode()
    for path in ("/api/judgments", "/api/admin/assessors"):
        headers = api.auth(token) if path == "/api/judgments" else api.admin
        r = api.client.post(path, content=raw, headers=headers)
        assert r.status_code == 400, r.text
        assert "not valid JSON" in r.json()["error"] and len(r.json()["error"]) < 200
        assert all(h in r.headers for h in SECURITY)


def test_an_unexpected_error_is_a_json_500_with_the_security_headers(study_dir, monkeypatch):
    from fastapi.testclient import TestClient

    from wikihowqa.humaneval.app import ServerSettings, StudyService, create_app

    def broken(self, a):
        raise RuntimeError("a bug")

    monkeypatch.setattr(StudyService, "me", broken)
    app = create_app(study_dir, ServerSettings(admin_token="e" * 20))
    with TestClient(app, raise_server_exceptions=False) as client:
        token = app.state.service.assessors["trial_a-001"].token
        r = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 500 and r.json() == {
        "error": "internal error: the server could not handle this request"
    }
    assert "a bug" not in r.text and all(h in r.headers for h in SECURITY)
