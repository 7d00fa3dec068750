"""Crowd platforms: a worker arrives with an id, gets tasks, leaves with a completion code; never both
trials; the admin can add assessors and replace a link."""

from __future__ import annotations

import json
from collections import Counter

from wikihowqa.humaneval.app import ServerSettings, create_app
from wikihowqa.humaneval.tasks import read_study


def join(api, **params):
    return api.client.get("/join", params=params, follow_redirects=False)


def test_a_worker_who_comes_back_resumes_as_the_same_assessor(api):
    first = join(api, part="trial_a", PROLIFIC_PID="W1")
    assert first.status_code == 303 and first.headers["location"].startswith("/a/#")
    again = join(api, part="trial_a", workerId="W1")
    assert again.headers["location"] == first.headers["location"]
    token = first.headers["location"].split("#", 1)[1]
    me = api.client.get("/api/me", headers=api.auth(token)).json()
    assert (
        me["part"] == "trial_a"
        and me["assessor_id"].startswith("crowd-trial_a-")
        and "W1" not in me["assessor_id"]
    )


def test_a_worker_of_one_trial_cannot_join_the_other(api):
    assert join(api, part="trial_a", worker_id="W2").status_code == 303
    r = join(api, part="trial_b", worker_id="W2")
    assert r.status_code == 403 and "cannot take part in trial_b" in r.text
    assert join(api, part="relevance", worker_id="W2").status_code == 303  # other parts are fine


def test_join_refuses_missing_or_odd_worker_ids_and_unknown_parts_with_a_page(api):
    assert join(api, part="trial_a").status_code == 400
    r = join(api, part="trial_a", worker_id="<script>alert(1)</script>")
    assert (
        r.status_code == 400
        and "<script>" not in r.text
        and r.headers["content-type"].startswith("text/html")
    )
    assert join(api, part="nope", worker_id="W3").status_code == 404


def test_join_is_refused_unless_the_server_takes_crowd_workers(study_dir):
    from fastapi.testclient import TestClient

    with TestClient(create_app(study_dir, ServerSettings())) as client:
        r = client.get("/join", params={"worker_id": "W1", "part": "trial_a"}, follow_redirects=False)
        assert r.status_code == 403 and "--crowd" in r.text


def test_crowd_workers_fill_each_task_n_times_and_end_with_a_code(api, valid_body, study_dir):
    study = read_study(study_dir)
    truth = {k["task_id"]: k["attention_answer"] for k in study.key}
    n = study.manifest["parts"]["trial_b"]["assessors_per_item"]
    codes = {}
    for w in range(6):
        token = join(api, part="trial_b", worker_id=f"T{w}").headers["location"].split("#", 1)[1]
        while (nxt := api.next(token)).get("task"):
            task = nxt["task"]
            assert api.submit(token, valid_body(task, attention=truth[task["task_id"]])).status_code == 201
        if nxt["finished"]:
            codes[f"T{w}"] = nxt["completion_code"]
        else:
            assert nxt["completion_code"] is None and "No task" in nxt["message"]
    lines = api.client.get("/api/admin/judgments.jsonl", headers=api.admin).text.splitlines()
    crowd = [json.loads(x) for x in lines if json.loads(x)["assessor_id"].startswith("crowd-trial_b")]
    per_task = Counter(j["task_id"] for j in crowd)
    assert set(per_task.values()) == {n} and len(per_task) == study.manifest["parts"]["trial_b"]["tasks"]
    assert len(codes) == len({j["assessor_id"] for j in crowd}) and all(len(c) == 8 for c in codes.values())
    csv = api.client.get("/api/admin/links.csv", headers=api.admin).text
    assert all(f",{code},{w}," in csv for w, code in codes.items())  # to approve work on the platform


def test_the_admin_adds_an_assessor_and_replaces_a_link(api, valid_body):
    made = api.client.post("/api/admin/assessors", json={"part": "relevance"}, headers=api.admin)
    assert made.status_code == 201
    token = made.json()["link"].split("#", 1)[1]
    assert api.next(token)["task"]["part"] == "relevance"
    old = api.tokens()["trial_a-001"]
    new = (
        api.client.post("/api/admin/assessors/trial_a-001/token", headers=api.admin)
        .json()["link"]
        .split("#")[1]
    )
    assert api.client.get("/api/me", headers=api.auth(old)).status_code == 401
    assert api.client.get("/api/me", headers=api.auth(new)).json()["assessor_id"] == "trial_a-001"
    assert api.client.post("/api/admin/assessors", json={"part": "x"}, headers=api.admin).status_code == 404


def test_a_completion_url_carries_the_code(study_dir, valid_body):
    from fastapi.testclient import TestClient

    settings = ServerSettings(
        admin_token="a" * 20,
        crowd=True,
        items_per_assessor=1,
        completion_url="https://example.org/done?cc={code}",
    )
    with TestClient(create_app(study_dir, settings)) as client:
        token = client.get("/join", params={"worker_id": "Z", "part": "preference"}, follow_redirects=False)
        token = token.headers["location"].split("#")[1]
        headers = {"Authorization": f"Bearer {token}"}
        task = client.get("/api/next", headers=headers).json()["task"]
        assert client.post("/api/judgments", json=valid_body(task), headers=headers).status_code == 201
        end = client.get("/api/next", headers=headers).json()
        assert (
            end["finished"]
            and end["completion_url"] == f"https://example.org/done?cc={end['completion_code']}"
        )


# --------------------------------------------------------------------------- one article per worker


def _articles(study_dir):
    return {t["task_id"]: t["article_id"] for t in read_study(study_dir).tasks}


def _work(api, valid_body, token, truth):
    """Judge every task the server deals; the task ids received."""
    got = []
    while task := api.next(token).get("task"):
        got.append(task["task_id"])
        assert api.submit(token, valid_body(task, attention=truth[task["task_id"]])).status_code == 201
    return got


def test_a_worker_who_saw_an_articles_gold_in_relevance_never_gets_its_trial_or_ab_task(
    api, valid_body, study_dir
):
    """The issue's attack: join relevance (gold answers), then trial_a and the A/B part, and diff. In the
    test study all three articles have a task in every part; the worker judges two relevance tasks, so
    trial A may only deal the third article, and the A/B part nothing at all."""
    articles = _articles(study_dir)
    truth = {k["task_id"]: k["attention_answer"] for k in read_study(study_dir).key}
    token = join(api, part="relevance", worker_id="W1").headers["location"].split("#", 1)[1]
    relevance = _work(api, valid_body, token, truth)
    assert len(relevance) == 2  # --items-per-assessor 2
    seen = {articles[t] for t in relevance}
    token = join(api, part="trial_a", worker_id="W1").headers["location"].split("#", 1)[1]
    trial = _work(api, valid_body, token, truth)
    assert len(trial) == 1 and articles[trial[0]] not in seen
    seen.add(articles[trial[0]])
    token = join(api, part="preference", worker_id="W1").headers["location"].split("#", 1)[1]
    end = api.next(token)
    assert "task" not in end and end["finished"] is False and "No task" in end["message"]
    assert seen == set(articles.values())


def test_a_worker_who_saw_a_deteriorated_or_ab_answer_never_gets_the_articles_gold_later(
    api, valid_body, study_dir
):
    """The reverse order: an A/B task (gold beside a model answer) and a trial task first, relevance
    after; and a task on screen but not judged counts as seen."""
    articles = _articles(study_dir)
    truth = {k["task_id"]: k["attention_answer"] for k in read_study(study_dir).key}
    token = join(api, part="preference", worker_id="W2").headers["location"].split("#", 1)[1]
    ab = api.next(token)["task"]["task_id"]  # shown, left unjudged
    token = join(api, part="trial_b", worker_id="W2").headers["location"].split("#", 1)[1]
    trial = _work(api, valid_body, token, truth)
    token = join(api, part="relevance", worker_id="W2").headers["location"].split("#", 1)[1]
    relevance = _work(api, valid_body, token, truth)
    received = [ab, *trial, *relevance]
    assert len(trial) == 2 and len(relevance) == 0
    assert len({articles[t] for t in received}) == len(received) == 3


def test_the_rule_holds_across_a_restart(study_dir, valid_body):
    """Assignment state is rebuilt from the database: what a worker was shown before a restart (two
    relevance tasks judged, the third left on screen: all three articles) still counts for every part
    they join after it."""
    from fastapi.testclient import TestClient

    settings = ServerSettings(admin_token="c" * 20, crowd=True, items_per_assessor=3)
    truth = {k["task_id"]: k["attention_answer"] for k in read_study(study_dir).key}
    with TestClient(create_app(study_dir, settings)) as client:
        r = client.get("/join", params={"worker_id": "W3", "part": "relevance"}, follow_redirects=False)
        headers = {"Authorization": f"Bearer {r.headers['location'].split('#')[1]}"}
        for _ in range(2):
            task = client.get("/api/next", headers=headers).json()["task"]
            body = valid_body(task, attention=truth[task["task_id"]])
            assert client.post("/api/judgments", json=body, headers=headers).status_code == 201
        assert client.get("/api/next", headers=headers).json()["task"]  # the third, left on screen
    with TestClient(create_app(study_dir, settings)) as client:
        for part in ("trial_a", "preference"):  # (trial_b: refused, the worker is in trial_a)
            r = client.get("/join", params={"worker_id": "W3", "part": part}, follow_redirects=False)
            headers = {"Authorization": f"Bearer {r.headers['location'].split('#')[1]}"}
            assert "task" not in client.get("/api/next", headers=headers).json(), part
