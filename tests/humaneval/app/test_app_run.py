"""The study server's start-up (humaneval/app/run.py): binding, the admin link, restarts, the demo's serve."""

from __future__ import annotations

import json
import socket

import pytest

from wikihowqa.errors import DatasetError, SettingsError
from wikihowqa.humaneval.app import StudyService
from wikihowqa.humaneval.app.run import bind


def test_a_port_in_use_is_one_clear_error():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        with pytest.raises(SettingsError, match="cannot listen"):
            bind("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()


def test_task_files_changed_after_judgments_are_refused_but_a_plain_restart_resumes(study_dir, valid_body):
    service = StudyService(study_dir)
    token = service.assessors["trial_a-001"].token
    a = service.assessors["trial_a-001"]
    task = json.loads(service.next_task(a))["task"]
    service.submit(a, valid_body(task))
    service.close()
    again = StudyService(study_dir)  # same files: same tokens, same progress
    assert again.authenticate(token).assessor_id == "trial_a-001"
    assert json.loads(again.next_task(again.assessors["trial_a-001"]))["done"] == 1
    again.close()
    tasks = study_dir / "tasks.jsonl"
    tasks.write_text(tasks.read_text().replace("How To", "How to"))
    with pytest.raises(DatasetError, match="task files changed after 1 judgment"):
        StudyService(study_dir)


def test_demo_serve_serves_the_demo_study_on_loopback_and_opens_its_admin_page(study_dir, monkeypatch):
    """``wikihowqa demo --serve`` hands its context to ``demo_serve``: the study under ``<demo>/study`` is
    served on 127.0.0.1 and the browser is pointed at the admin page (run here with port 0 and the server
    and browser intercepted, so the test can stop it)."""
    import threading
    import time
    import webbrowser
    from types import SimpleNamespace

    import httpx
    import uvicorn

    from wikihowqa.humaneval.app import demo_serve, run

    servers, sockets, opened = [], [], []

    class Recorded(uvicorn.Server):
        def __init__(self, config):
            super().__init__(config)
            servers.append(self)

    real_bind = run.bind
    monkeypatch.setattr(uvicorn, "Server", Recorded)
    monkeypatch.setattr(run, "bind", lambda host, port: sockets.append(real_bind(host, port)) or sockets[-1])
    monkeypatch.setattr(webbrowser, "open", opened.append)
    ctx = SimpleNamespace(out=study_dir.parent, study=study_dir)  # what run_demo returns: the study it built
    thread = threading.Thread(target=demo_serve, args=(ctx,), kwargs={"port": 0}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not (servers and servers[0].started and opened):
        assert thread.is_alive() and time.monotonic() < deadline, "the demo's server did not start"
        time.sleep(0.05)
    try:
        host, port = sockets[0].getsockname()[:2]
        assert host == "127.0.0.1"
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
        admin_url = opened[0]
        assert admin_url.startswith(f"http://127.0.0.1:{port}/admin/#")
        token = admin_url.split("#", 1)[1]
        progress = httpx.get(
            f"http://127.0.0.1:{port}/api/admin/progress",
            headers={"Authorization": f"Bearer {token}"},
            timeout=5,
        ).json()
        assert progress["study_id"] == "test-study" and progress["folder"] == str(study_dir)
    finally:
        servers[0].should_exit = True
        thread.join(timeout=10)
    assert not thread.is_alive()


def _serve_once(study_dir, monkeypatch, **kwargs):
    """Run ``serve`` up to the point where uvicorn would take over, and return what it said."""
    import uvicorn

    from wikihowqa.humaneval.app import ServerSettings, run

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    said: list[str] = []
    settings = ServerSettings(**kwargs.pop("settings", {}))
    run.serve(study_dir, port=0, settings=settings, say=said.append, **kwargs)
    return said


def test_the_admin_token_goes_to_an_owner_only_file_when_stdout_is_not_a_terminal(study_dir, monkeypatch):
    """Logs keep what a server prints: off a terminal no token is printed, neither the admin's nor an
    assessor's; the admin link is in STUDY/admin-link.txt, mode 0600, and the path is printed."""
    import stat

    said = _serve_once(study_dir, monkeypatch, tty=False, settings={"admin_token": "t" * 24})
    text = "\n".join(said)
    tokens = [r.token for r in StudyService(study_dir).assessors.values()]
    assert "t" * 24 not in text and not any(t in text for t in tokens)
    path = study_dir / "admin-link.txt"
    assert str(path) in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    link = path.read_text().strip()
    assert link.startswith("http://127.0.0.1:") and link.endswith("/admin/#" + "t" * 24)


def test_an_existing_readable_link_file_is_made_owner_only(study_dir, monkeypatch):
    import stat

    path = study_dir / "admin-link.txt"
    path.write_text("old")
    path.chmod(0o644)
    _serve_once(study_dir, monkeypatch, tty=False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and "/admin/#" in path.read_text()


def test_on_a_terminal_the_admin_link_is_shown_once(study_dir, monkeypatch):
    said = _serve_once(study_dir, monkeypatch, tty=True, settings={"admin_token": "u" * 24})
    assert sum("u" * 24 in line for line in said) == 1
    assert not (study_dir / "admin-link.txt").exists()
