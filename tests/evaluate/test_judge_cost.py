"""What judging cost: the tokens of every judge call (the server's ``usage``, or an estimate where it gives
none) summed per system in the report, with a price from --judge-price."""

from __future__ import annotations

import json
import math

import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.evaluate.judge import JudgeConfig
from wikihowqa.evaluate.judge_cost import Tokens, parse_price
from wikihowqa.evaluate.pipeline import GOLD_SYSTEM, EvaluationSettings, evaluate
from wikihowqa.evaluate.report import write_report
from wikihowqa.generate.llm import estimated_chat_counter

from . import judge_servers
from .judge_servers import ScriptedServer, answered, usage_of


def test_a_price_is_two_non_negative_numbers_per_million_tokens():
    assert parse_price("0.15,0.6") == (0.15, 0.6)
    assert parse_price(" 3 , 15 ") == (3.0, 15.0)
    assert Tokens(2_000_000, 500_000, 3, 0).price((3.0, 15.0)) == pytest.approx(6.0 + 7.5)
    assert Tokens(10, 10).price(None) is None
    for bad in ("0.15", "a,b", "1,2,3", "1,-2", "nan,1"):
        with pytest.raises(SettingsError, match="--judge-price"):
            parse_price(bad)


def _evaluate(tmp_path, url, out, **judge):
    ds, predictions = judge_servers.dataset(tmp_path)
    config = JudgeConfig(model="j", base_url=url, requests_per_minute=None, price=(1.0, 2.0), **judge)
    settings = EvaluationSettings(split="test", bertscore=None, grounding=None, judge=config, resamples=200)
    evaluation = evaluate(ds, [predictions], settings, cache_dir=tmp_path / out)
    return write_report(evaluation, tmp_path / out)


def _graded(body: dict) -> str:
    return body["messages"][-1]["content"].split("Answer to grade:\n")[1].split("\n\nRate the answer")[0]


def test_token_sums_per_system_equal_the_usage_the_server_reported(tmp_path):
    with ScriptedServer(default=lambda body: answered(judge_servers.POINTWISE, body)) as server:
        report = _evaluate(tmp_path, server.url, "report")
        bodies = [b for b, _ in server.requests]
    assert len(bodies) == 15  # five questions × (two systems + the gold answers)
    system_of = {}
    for t in judge_servers.TOPICS:
        system_of[f"Clean {t}."] = "terse"
        system_of[f"Clean the {t} every week with a damp cloth, then keep them dry."] = "verbose"
        system_of[f"Clean the {t} weekly."] = GOLD_SYSTEM
    expected: dict[str, Tokens] = {}
    for body in bodies:
        system = system_of[_graded(body)]
        prompt, completion = usage_of(body)
        expected[system] = expected.get(system, Tokens()) + Tokens(prompt, completion, 1, 0)
    assert report.judge.tokens == expected
    assert {t.calls for t in expected.values()} == {5}
    total = report.judge.total
    assert total.prompt == sum(usage_of(b)[0] for b in bodies) and total.completion == 3 * 15
    saved = json.loads((tmp_path / "report" / "evaluation.json").read_text())["judge"]
    assert saved["total"]["price_usd"] == pytest.approx((total.prompt * 1.0 + total.completion * 2.0) / 1e6)
    assert saved["tokens"]["terse"]["prompt_tokens"] == expected["terse"].prompt
    markdown = (tmp_path / "report" / "evaluation.md").read_text()
    assert "## What judging cost" in markdown and f"| **total** | 15 | 0 | {total.prompt} | 45 |" in markdown


def test_a_second_report_folder_asks_the_server_nothing_and_reports_the_same_tokens(tmp_path):
    """The judge's responses live with the dataset (DATASET/cache/judge-responses.sqlite), not in one
    report folder: a report written elsewhere reuses them, usage included."""
    with ScriptedServer(default=lambda body: answered(judge_servers.POINTWISE, body)) as server:
        first = _evaluate(tmp_path, server.url, "report")
        asked = len(server.requests)
        second = _evaluate(tmp_path, server.url, "elsewhere")
        assert len(server.requests) == asked == 15  # the second run sent 0 requests
    assert second.judge.requests_sent == 0 and first.judge.requests_sent == 15
    assert second.judge.tokens == first.judge.tokens
    assert (tmp_path / "ds" / "cache" / "judge-responses.sqlite").is_file()
    assert not (tmp_path / "report" / "judge-responses.sqlite").exists()


def test_without_usage_from_the_server_the_tokens_are_estimated_and_say_so(tmp_path):
    with ScriptedServer(default=lambda body: answered(judge_servers.POINTWISE, body, usage=False)) as server:
        report = _evaluate(tmp_path, server.url, "report")
        bodies = [b for b, _ in server.requests]
    total = report.judge.total
    assert total.calls == total.estimated == 15
    assert total.prompt == sum(estimated_chat_counter(0.0)(b["messages"]) for b in bodies)
    assert total.completion == 15 * math.ceil(len(judge_servers.POINTWISE) / 4)


def test_a_client_without_usage_is_counted_with_its_tokenizer_or_else_estimated():
    from wikihowqa.evaluate.judge_cost import ask

    messages = [{"role": "user", "content": "x" * 40}]

    class Local:  # a local model: no server, but its own tokenizer
        def complete_many(self, conversations):
            return ["consistency: 5\nusefulness: 5"] * len(conversations)

        def count_chat_tokens(self, m):
            return 7

        def count_tokens(self, text):
            return 2

    class Bare:
        def complete_many(self, conversations):
            return ["abcdefghi"] * len(conversations)

    (local,) = ask(Local(), [messages])
    assert local.tokens == Tokens(7, 2, 1, 1) and local.sent
    (bare,) = ask(Bare(), [messages])
    assert bare.tokens == Tokens(estimated_chat_counter(0.0)(messages), 3, 1, 1)  # 9 characters: 3 tokens


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": 10**30, "completion_tokens": 3},  # a count no model's context holds
        {"prompt_tokens": 12, "completion_tokens": 10_000_001},
        {"prompt_tokens": True, "completion_tokens": 3},  # JSON true is no count (bool is an int in Python)
        {"prompt_tokens": 12, "completion_tokens": False},
        {"prompt_tokens": 12.0, "completion_tokens": 3},
        {"prompt_tokens": "12", "completion_tokens": 3},
        {"prompt_tokens": -1, "completion_tokens": 3},
        {"prompt_tokens": 12},
    ],
)
def test_a_usage_that_is_no_believable_token_count_is_not_reported_but_estimated(usage):
    from wikihowqa.evaluate.judge_cost import ask

    messages = [{"role": "user", "content": "x" * 40}]
    reply = "consistency: 5\nusefulness: 5"

    class Server:  # the API client's interface: (text, the whole response, from the cache?)
        def respond(self, m, *, sample=0):
            return reply, {"choices": [], "usage": usage}, False

    (got,) = ask(Server(), [messages])
    estimated = Tokens(estimated_chat_counter(0.0)(messages), math.ceil(len(reply) / 4), 1, 1)
    assert got.tokens == estimated


def test_a_believable_usage_is_reported_as_the_server_gave_it():
    from wikihowqa.evaluate.judge_cost import MAX_USAGE_TOKENS, ask

    class Server:
        def respond(self, m, *, sample=0):
            return "r", {"usage": {"prompt_tokens": MAX_USAGE_TOKENS, "completion_tokens": 0}}, True

    (got,) = ask(Server(), [[{"role": "user", "content": "q"}]])
    assert got.tokens == Tokens(10_000_000, 0, 1, 0) and not got.sent


def test_replies_of_10_mb_are_counted_as_sent_and_named_in_the_report(tmp_path):
    """A server that ignores max_tokens and sends 10 MB per reply (after three 500s, which the client
    retries): every request sent is counted, each call is in the cost table, and the replies too large to
    read are named by system and article, in the report and on the terminal."""
    from wikihowqa.evaluate.judge_report import judge_lines
    from wikihowqa.generate.endpoint import reply_limit

    flood = judge_servers.answered("consistency: 5\n" * 655_360, {"messages": []}, usage=False)  # 10 MiB
    assert len(flood[2]) > 10 * 2**20
    ds, predictions = judge_servers.dataset(tmp_path)
    with ScriptedServer([(500, {}, b"busy")] * 3, default=lambda body: flood) as server:
        config = JudgeConfig(model="j", base_url=server.url, requests_per_minute=None, price=(1.0, 2.0))
        settings = EvaluationSettings(
            split="test",
            bertscore=None,
            grounding=None,
            judge=config,
            judge_pairwise=("verbose", "terse"),
            resamples=200,
        )
        evaluation = evaluate(ds, [predictions], settings, cache_dir=tmp_path / "report")
        report = write_report(evaluation, tmp_path / "report")
        bodies = [b for b, _ in server.requests]
    assert len(bodies) == 15 + 10 + 3  # 15 pointwise calls, 10 pairwise (both orders), 3 retried 500s
    summary = report.judge
    assert summary.requests_sent == 28
    total = summary.total
    assert (total.calls, total.estimated, total.oversized) == (25, 25, 25)
    # each call's prompt estimated as sent (~4 characters a token), its reply at least the bytes read
    prompts = [b["messages"] for b in bodies if b["messages"]]
    distinct = {json.dumps(m) for m in prompts}
    assert len(distinct) == 25
    assert total.prompt == sum(estimated_chat_counter(0.0)(json.loads(m)) for m in distinct)
    assert total.completion == 25 * math.ceil(reply_limit(32) / 4)
    articles = [100, 101, 102, 103, 104]
    assert summary.too_large == {"terse": articles, "verbose": articles, GOLD_SYSTEM: articles}
    saved = json.loads((tmp_path / "report" / "evaluation.json").read_text())["judge"]
    assert saved["requests_sent"] == 28 and saved["total"]["calls"] == 25
    assert saved["total"]["replies_too_large"] == 25 and saved["replies_too_large"]["terse"] == articles
    markdown = (tmp_path / "report" / "evaluation.md").read_text()
    assert "HTTP requests sent in this run: 28, retries included" in markdown
    assert "Replies too large to read (article ids): terse: 100, 101, 102, 103, 104;" in markdown
    lines = judge_lines(summary)
    assert lines[-2].startswith("judge: 25 calls (28 sent now)")
    assert lines[-1].startswith("judge: 25 replies too large to read, scored nothing (terse: 100, 101")
