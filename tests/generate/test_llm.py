"""The OpenAI-compatible client against a scripted local server: retries, Retry-After, garbage, cache."""

from __future__ import annotations

import itertools
import json
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wikihowqa.generate.llm import (
    ChatClient,
    ChatSettings,
    GenerationError,
    ResponseCache,
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
        self.times: list[float] = []  # when each request arrived (time.monotonic)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.times.append(time.monotonic())
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
    """A client whose pacing waits land in ``waits``; the SDK's retry waits are real (see the gaps)."""
    options = {"base_url": url, "api_key": "sk-test", "requests_per_minute": None, **settings}
    return ChatClient(ChatSettings(**options), cache=cache, sleep=waits.append)


def test_429_500_and_malformed_bodies_are_retried_honouring_retry_after():
    script = [
        (200, {"Content-Type": "application/json"}, b"{not json"),
        (500, {}, b"internal error"),
        (200, {"Content-Type": "application/json"}, b'{"choices": []}'),
        (429, {"Retry-After": "1"}, b'{"error": {"message": "slow down"}}'),
        ok("  Halve them and dry them in a low oven.  "),
    ]
    with ScriptedServer(script) as server:
        answer = client(server.url, []).complete(MESSAGES)
    assert answer == "Halve them and dry them in a low oven."
    assert len(server.requests) == 5
    gaps = [b - a for a, b in itertools.pairwise(server.times)]
    # exponential backoff (0.5 s doubling, jitter up to -25 %; up to 0.75 s more for a loaded machine's
    # latency) after the garbage and the 500 ...
    assert all(0.75 * 0.5 * 2**k <= gap < 0.5 * 2**k + 0.75 for k, gap in enumerate(gaps[:3])), gaps
    assert 1.0 <= gaps[3] < 2.5, gaps  # ... and the 429's Retry-After, not the 3-4 s the backoff is at
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


def test_without_a_key_no_authorization_header_is_sent(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ScriptedServer() as server:
        ChatClient(ChatSettings(base_url=server.url), sleep=lambda s: None).complete(MESSAGES)
        assert "Authorization" not in server.requests[0][1]


def test_a_retry_after_longer_than_two_minutes_is_not_waited_for():
    """The SDK does not retry then: the question fails now and the next run asks again."""
    with ScriptedServer([(429, {"Retry-After": "600"}, b"quota")]) as server:
        with pytest.raises(GenerationError, match=r"gave up after 1 attempts; last: HTTP 429: quota"):
            client(server.url, []).complete(MESSAGES)
        assert len(server.requests) == 1


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
                    "requests_per_minute": None,
                }
            }
        }
        report = answer_split(folder, "llm-question-only", split="train", settings=settings)
        assert list(report.failed) == [704295] and report.answered_now == 1
        assert [p.article_id for p in read_predictions(report.out)] == [930014]
        failing["broken"] = False
        again = answer_split(folder, "llm-question-only", split="train", settings=settings)
        assert again.answered_before == 1 and again.answered_now == 1 and not again.failed
    predictions = read_predictions(again.out)
    assert [p.article_id for p in predictions] == [704295, 930014]  # the split's order
    assert predictions[0].answer.startswith("answer to: How To Seal Concrete Floors")
    assert predictions[0].settings["backend"] == "openai" and predictions[0].passages == ()


# --------------------------------------------------------------------------- failing fast, failing once


def closed_port_url() -> str:
    """An address on 127.0.0.1 where nothing listens (connection refused)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_connection_refused_before_any_answer_fails_at_once_without_retrying():
    from wikihowqa.generate.llm import ServiceUnavailable

    waits: list[float] = []
    c = client(closed_port_url(), waits)  # the default budget: 7 attempts
    with pytest.raises(
        ServiceUnavailable, match=r"cannot connect to http://127\.0\.0\.1:\d+/v1 \(connection"
    ):
        c.complete(MESSAGES)
    assert c.requests_sent == 1 and waits == []


def test_a_server_that_goes_away_mid_run_stops_the_run_after_one_budget():
    from wikihowqa.generate.llm import ServiceUnavailable

    waits: list[float] = []
    with ScriptedServer() as server:
        c = client(server.url, waits, max_retries=2)
        assert c.complete(MESSAGES) == "default answer"
    # the same address, now closed: retried (it was answering a moment ago), then the run is stopped
    with pytest.raises(ServiceUnavailable, match=r"gave up after 3 attempts.*the server stopped answering"):
        c.complete_each([[{"role": "user", "content": "one"}], [{"role": "user", "content": "two"}]])
    assert c.requests_sent == 1 + 3  # one budget (3 attempts) for the first question, none for the second


@pytest.mark.parametrize("status", [401, 403, 404])
def test_a_wrong_key_address_or_model_stops_the_run(status):
    from wikihowqa.generate.llm import ServiceUnavailable

    with ScriptedServer([(status, {}, b'{"error": {"message": "nope"}}')]) as server:
        with pytest.raises(ServiceUnavailable, match=f"HTTP {status}: nope"):
            client(server.url, []).complete_each([MESSAGES, MESSAGES])
        assert len(server.requests) == 1


#: llama.cpp's answer when prompt and answer exceed the context (server/utils.hpp, format_error_response).
LLAMA_CPP_OVERFLOW = {
    "error": {
        "code": 400,
        "message": "request (2100 tokens) exceeds the available context size (2048 tokens), try increasing"
        " it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 2100,
        "n_ctx": 2048,
    }
}
OPENAI_OVERFLOW = {
    "error": {
        "message": "This model's maximum context length is 4096 tokens. However, your messages resulted in "
        "5000 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}


@pytest.mark.parametrize(("body", "n_ctx"), [(LLAMA_CPP_OVERFLOW, 2048), (OPENAI_OVERFLOW, 4096)])
def test_a_context_overflow_is_not_retried_and_advises_the_prompt_budget(body, n_ctx):
    from wikihowqa.generate.llm import LLMSettings, PromptTooLong

    with ScriptedServer([(400, {}, json.dumps(body).encode())]) as server:
        [failure, answer] = client(server.url, []).complete_each([MESSAGES, MESSAGES])
        assert len(server.requests) == 2  # the first once (no retry), the second answered
    assert isinstance(failure, PromptTooLong) and failure.n_ctx == n_ctx and answer == "default answer"
    advice = failure.advice(LLMSettings())
    assert "lower llm.prompt.max_context_tokens (now 1500) or llm.openai.max_tokens (now 256)" in advice
    assert f"--set llm.prompt.max_context_tokens={n_ctx - 256 - max(16, n_ctx // 50)}" in advice
    assert "rerun the command to retry" not in advice


def test_other_refusals_are_per_question_and_not_retried():
    from wikihowqa.generate.llm import RequestRefused

    with ScriptedServer([(422, {}, b'{"error": {"message": "temperature must be <= 2"}}')]) as server:
        [refused, answer] = client(server.url, []).complete_each([MESSAGES, MESSAGES])
        assert len(server.requests) == 2
    assert isinstance(refused, RequestRefused) and "HTTP 422: temperature must be <= 2" in str(refused)
    assert answer == "default answer"


def _folder(tmp_path, real_examples_dir):
    from wikihowqa.importer import import_release

    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "ds"
    )
    return folder


def test_a_failing_question_of_a_batch_is_asked_once_not_again_on_its_own(tmp_path, real_examples_dir):
    """A batch whose question failed was retried question by question, paying the budget twice."""
    from wikihowqa.answer import answer_split

    folder = _folder(tmp_path, real_examples_dir)

    def reply(body):
        question = body["messages"][-1]["content"]
        return (500, {}, b"boom") if "Seal Concrete" in question else ok("fine")

    with ScriptedServer(default=reply) as server:
        settings = {
            "llm": {
                "openai": {
                    "base_url": server.url,
                    "max_retries": 2,
                    "requests_per_minute": None,
                }
            }
        }
        report = answer_split(folder, "llm-question-only", split="all", settings=settings)
        asked = [body["messages"][-1]["content"].splitlines()[0] for body, _ in server.requests]
    assert list(report.failed) == [704295] and report.answered_now == 2
    assert report.advice == ("rerun the command to retry them",)
    assert sum("Seal Concrete" in q for q in asked) == 3  # its budget: 1 + 2 retries, once
    assert len(asked) == 3 + 2  # the other two questions, once each


# --------------------------------------------------------------------------- counting the prompt's tokens


@pytest.fixture(scope="module")
def smollm2_tokenizer():
    """SmolLM2-135M-Instruct's tokenizer, from the GGUF file a llama.cpp server would serve."""
    from transformers import AutoTokenizer

    from wikihowqa.generate.llm import smollm2_gguf

    folder, name = smollm2_gguf()
    path = f"{folder}/{name}"
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    return path, tokenizer


class LlamaCppLike:
    """Counts each prompt as llama.cpp does (the model's chat template, its tokenizer) and refuses one
    that does not fit ``n_ctx`` with llama.cpp's 400."""

    def __init__(self, tokenizer, n_ctx):
        self.tokenizer, self.n_ctx, self.counted = tokenizer, n_ctx, []

    def __call__(self, body):
        ids = self.tokenizer.apply_chat_template(body["messages"], add_generation_prompt=True, tokenize=True)
        n = len(ids["input_ids"] if hasattr(ids, "keys") else ids)
        self.counted.append(n)
        if n + body["max_tokens"] > self.n_ctx:
            error = {**LLAMA_CPP_OVERFLOW["error"], "n_prompt_tokens": n, "n_ctx": self.n_ctx}
            error["message"] = (
                f"request ({n} tokens) exceeds the available context size ({self.n_ctx} tokens)"
            )
            return 400, {}, json.dumps({"error": error}).encode()
        return ok(f"{n} tokens read")


@pytest.mark.slow
def test_with_the_model_s_tokenizer_the_prompt_is_counted_as_the_server_counts_it(
    tmp_path, real_examples_dir, smollm2_tokenizer
):
    from wikihowqa.answer import answer_split
    from wikihowqa.io import read_predictions

    path, tokenizer = smollm2_tokenizer
    folder = _folder(tmp_path, real_examples_dir)
    budget, answer = 400, 64
    server_side = LlamaCppLike(tokenizer, n_ctx=budget + answer)  # exactly enough room
    with ScriptedServer(default=server_side) as server:
        settings = {
            "llm": {
                "openai": {
                    "base_url": server.url,
                    "tokenizer": path,
                    "max_tokens": answer,
                    "requests_per_minute": None,
                },
                "prompt": {"max_context_tokens": budget},
            }
        }
        report = answer_split(folder, "llm-passages", split="all", settings=settings)
    assert not report.failed and report.answered_now == 3
    predictions = read_predictions(report.out)
    assert sorted(p.settings["prompt_tokens"] for p in predictions) == sorted(server_side.counted)
    assert all(n <= budget for n in server_side.counted) and max(server_side.counted) > budget - 60
    assert predictions[0].settings["prompt_tokens_counted_with"] == f"tokenizer {path}"


@pytest.mark.slow
def test_without_a_tokenizer_the_estimate_s_margin_keeps_the_prompt_in_budget(
    tmp_path, real_examples_dir, smollm2_tokenizer
):
    """Checked against SmolLM2's own count of the whole chat prompt, on the real instances' passages."""
    from wikihowqa.generate.llm import LLMAnswerer, LLMSettings, passages_messages, passages_prompt
    from wikihowqa.records import passages_of
    from wikihowqa.retrieve import Ranked

    _, tokenizer = smollm2_tokenizer
    folder = _folder(tmp_path, real_examples_dir)
    documents = folder.documents_by_article()
    settings = LLMSettings.from_settings(
        {"openai": {"tokenizer": "estimate"}, "prompt": {"max_context_tokens": 500}}
    )
    answerer = LLMAnswerer(settings, client=object())
    assert answerer.counted_with.startswith("estimate: 4 characters a token + 15%")
    server_side = LlamaCppLike(tokenizer, n_ctx=10**9)
    for example in folder.examples():
        ranking = [Ranked(p, 0.0, i) for i, p in enumerate(passages_of(documents[example.article_id]), 1)]
        built = passages_prompt(example.question, ranking, settings.prompt, answerer.count_tokens)
        server_side({"messages": passages_messages(built.text, settings.prompt), "max_tokens": 0})
        assert built.kept and built.n_tokens <= 500
    assert all(n <= 500 for n in server_side.counted), server_side.counted


def test_the_old_backoff_settings_are_accepted_with_a_warning_that_they_are_ignored():
    from wikihowqa.generate.llm import LLMSettings

    settings = LLMSettings.from_settings({"openai": {"backoff": 0.0, "base_url": "http://127.0.0.1:9/v1"}})
    with pytest.warns(FutureWarning, match=r"llm\.openai\.backoff: ignored, the openai SDK's retry schedule"):
        ChatClient(settings.openai).close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ChatClient(LLMSettings.from_settings({"openai": {"max_retries": 1}}).openai).close()


# --------------------------------------------------------------------------- what a reply may cost


def test_a_reply_beyond_what_max_tokens_can_need_is_not_read_on_retried_or_cached(tmp_path):
    from wikihowqa.generate.endpoint import reply_limit
    from wikihowqa.generate.llm import ReplyTooLarge

    waits: list[float] = []
    flood = ok("x" * 2_000_000)
    with ScriptedServer([flood]) as server:
        cache = ResponseCache(tmp_path / "llm.sqlite")
        [failure, answer] = client(server.url, waits, cache=cache, max_tokens=64).complete_each(
            [MESSAGES, [{"role": "user", "content": "other"}]]
        )
        assert len(server.requests) == 2 and waits == []  # the flood asked once, the next one answered
    assert isinstance(failure, ReplyTooLarge) and answer == "default answer"
    assert f"the reply exceeds {reply_limit(64)} bytes, more than max_tokens=64 can need" in str(failure)
    assert failure.start.startswith('{"id": "x", "choices"') and len(failure.start) <= 200
    assert (tmp_path / "llm.sqlite").stat().st_size < 100_000


@pytest.mark.parametrize("url", ["not a url", "ftp://example.org/v1", "127.0.0.1:8080/v1"])
def test_an_address_that_is_no_http_url_fails_before_any_request_naming_where_it_came_from(url, monkeypatch):
    from wikihowqa.errors import SettingsError

    with pytest.raises(SettingsError, match=r"^llm\.openai\.base_url: '.*' is not"):
        ChatClient(ChatSettings(base_url=url))
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    with pytest.raises(SettingsError, match=r"^\$OPENAI_BASE_URL; llm\.openai\.base_url overrides it: '"):
        ChatClient(ChatSettings())
