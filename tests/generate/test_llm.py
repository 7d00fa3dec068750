"""The OpenAI-compatible client against a scripted local server: retries, Retry-After, garbage, cache."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wikihowqa.generate.llm import (
    ChatClient,
    ChatSettings,
    GenerationError,
    ResponseCache,
    parse_retry_after,
)

MESSAGES = [{"role": "user", "content": "How to dry figs?"}]


def ok(text: str) -> tuple[int, dict, bytes]:
    body = {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


class ScriptedServer:
    """Answers POSTs from a script of (status, headers, body); ``default`` once the script runs out."""

    def __init__(self, script=(), default=None):
        self.script = list(script)
        self.default = default or (lambda body: ok("default answer"))
        self.requests: list[tuple[dict, dict]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append((body, dict(self.headers)))
                status, headers, payload = server.script.pop(0) if server.script else server.default(body)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def client(url, waits, cache=None, **settings):
    options = {"base_url": url, "api_key": "sk-test", "backoff": 0.5, "requests_per_minute": None, **settings}
    return ChatClient(ChatSettings(**options), cache=cache, sleep=waits.append)


def test_429_500_and_malformed_bodies_are_retried_honouring_retry_after():
    script = [
        (429, {"Retry-After": "7"}, b'{"error": {"message": "slow down"}}'),
        (500, {}, b"internal error"),
        (200, {"Content-Type": "application/json"}, b"{not json"),
        (200, {"Content-Type": "application/json"}, b'{"choices": []}'),
        ok("  Halve them and dry them in a low oven.  "),
    ]
    waits: list[float] = []
    with ScriptedServer(script) as server:
        answer = client(server.url, waits).complete(MESSAGES)
    assert answer == "Halve them and dry them in a low oven."
    assert len(server.requests) == 5
    assert waits[0] == 7.0  # Retry-After, not the backoff
    assert len(waits) == 4 and all(0 < w <= 0.5 * 2**i for i, w in enumerate(waits[1:], start=1))
    body, headers = server.requests[0]
    assert body["messages"] == MESSAGES and body["temperature"] == 0.0
    assert headers["Authorization"] == "Bearer sk-test"


def test_a_rerun_is_served_from_the_cache_without_any_request(tmp_path):
    waits: list[float] = []
    with ScriptedServer([ok("cached answer")]) as server:
        first = client(server.url, waits, cache=ResponseCache(tmp_path / "llm.sqlite")).complete(MESSAGES)
        again = client(server.url, waits, cache=ResponseCache(tmp_path / "llm.sqlite"))
        assert again.complete(MESSAGES) == first == "cached answer"
        assert len(server.requests) == 1 and again.requests_sent == 0
        other = [{"role": "user", "content": "How to seal floors?"}]
        assert again.complete(other) == "default answer" and len(server.requests) == 2


def test_failures_are_not_cached(tmp_path):
    waits: list[float] = []
    with ScriptedServer(default=lambda body: (503, {}, b"busy")) as server:
        with pytest.raises(GenerationError, match=r"gave up after 3 attempts; last: HTTP 503: busy"):
            client(server.url, waits, cache=ResponseCache(tmp_path / "c.sqlite"), max_retries=2).complete(
                MESSAGES
            )
        assert len(server.requests) == 3
    assert ResponseCache(tmp_path / "c.sqlite").get("anything") is None


def test_an_auth_error_fails_at_once_with_the_server_s_message():
    waits: list[float] = []
    with ScriptedServer([(401, {}, b'{"error": {"message": "Incorrect API key provided"}}')]) as server:
        with pytest.raises(GenerationError, match="HTTP 401: Incorrect API key provided"):
            client(server.url, waits).complete(MESSAGES)
        assert len(server.requests) == 1 and waits == []


def test_requests_are_paced_to_the_rate_limit():
    waits: list[float] = []
    with ScriptedServer() as server:
        c = ChatClient(
            ChatSettings(base_url=server.url, requests_per_minute=120),
            sleep=waits.append,
            clock=lambda: 100.0,
        )
        c.complete(MESSAGES)
        c.complete([{"role": "user", "content": "again"}])
    assert waits == [0.5]


def test_base_url_and_key_come_from_the_environment(monkeypatch):
    with ScriptedServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
        ChatClient(ChatSettings(), sleep=lambda s: None).complete(MESSAGES)
        assert server.requests[0][1]["Authorization"] == "Bearer sk-env"


def test_retry_after_accepts_seconds_and_http_dates():
    now = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 01 May 2024 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Wed, 01 May 2024 11:00:00 GMT", now=now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_the_answer_stage_keeps_answers_of_other_questions_when_one_keeps_failing(
    tmp_path, real_examples_dir
):
    from wikihowqa.answer import answer_split
    from wikihowqa.importer import import_release
    from wikihowqa.io import read_predictions

    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "ds"
    )
    failing = {"broken": True}

    def reply(body):
        question = body["messages"][-1]["content"]
        if failing["broken"] and "Seal Concrete" in question:
            return 500, {}, b"boom"
        return ok(f"answer to: {question.splitlines()[0]}")

    with ScriptedServer(default=reply) as server:
        settings = {
            "llm": {
                "openai": {
                    "base_url": server.url,
                    "max_retries": 1,
                    "backoff": 0.0,
                    "requests_per_minute": None,
                }
            }
        }
        report = answer_split(folder, "llm-qonly", split="train", settings=settings)
        assert list(report.failed) == [704295] and report.answered_now == 1
        assert [p.article_id for p in read_predictions(report.out)] == [930014]
        failing["broken"] = False
        again = answer_split(folder, "llm-qonly", split="train", settings=settings)
        assert again.answered_before == 1 and again.answered_now == 1 and not again.failed
    predictions = read_predictions(again.out)
    assert [p.article_id for p in predictions] == [704295, 930014]  # the split's order
    assert predictions[0].answer.startswith("answer to: How To Seal Concrete Floors")
    assert predictions[0].settings["backend"] == "openai" and predictions[0].passages == ()
