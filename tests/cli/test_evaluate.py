"""``wikihowqa evaluate`` as a user runs it: wrong judge settings are one line, before any work; the judge's
options (the pairwise judge, samples, temperature and price) reach the report."""

from __future__ import annotations

import json
import time

from tests.evaluate import judge_servers
from tests.evaluate.judge_servers import ScriptedServer
from tests.evaluate.test_judge import three_questions


def test_evaluate_refuses_a_judge_address_that_is_no_url_in_one_line_at_once(cli, tmp_path):
    ds, preds = three_questions(tmp_path)
    started = time.monotonic()
    r = cli("evaluate", ds, preds, "--judge", "j", "--judge-base-url", "not a url", "--no-bertscore")
    assert time.monotonic() - started < 5  # was: 7 attempts over some 20 seconds of the SDK's backoff
    assert r.exit_code == 2 and len(r.lines) == 1 and "--judge-base-url: 'not a url'" in r.stderr


def test_the_judge_options_reach_the_report_and_the_terminal(cli, tmp_path):
    ds, predictions = judge_servers.dataset(tmp_path)
    out = tmp_path / "report"
    with ScriptedServer(default=judge_servers.longer) as server:
        run = cli(
            "evaluate", ds, predictions, "--no-bertscore", "--no-grounding", "--resamples", 200,
            "--out", out, "--judge", "j", "--judge-base-url", server.url, "--judge-rpm", 0,
            "--judge-pairwise", "verbose", "terse", "--judge-samples", 2, "--judge-temperature", 0.5,
            "--judge-price", "1,2",
        )  # fmt: skip
        bodies = [b for b, _ in server.requests]
    assert run.exit_code == 0, run.output
    assert len(bodies) == 15 * 2 + 5 * 2 and {b["temperature"] for b in bodies} == {0.5}
    judge = json.loads((out / "evaluation.json").read_text())["judge"]
    assert judge["samples"] == 2 and judge["price_per_million_tokens"] == [1.0, 2.0]
    assert judge["pairwise"][0]["a"] == "verbose" and judge["pairwise"][0]["win"]["rate"] == 1.0
    assert judge["total"]["calls"] == 40 and judge["total"]["price_usd"] > 0
    assert "pairwise judge, 5 of 5 pairs: verbose wins 100.0%" in run.stdout
    assert "judge: 40 calls (40 sent now)" in run.stdout


def test_judge_option_mistakes_are_one_line_each(cli, tmp_path):
    ds, predictions = judge_servers.dataset(tmp_path)
    base = ("evaluate", ds, predictions, "--no-bertscore", "--no-grounding")
    run = cli(*base, "--judge-pairwise", "terse", "verbose")
    assert run.exit_code == 2 and run.lines == ["error: --judge-pairwise needs a judge: add --judge MODEL"]
    run = cli(*base, "--judge", "j", "--judge-price", "cheap")
    assert run.exit_code == 2 and len(run.lines) == 1 and "--judge-price 'cheap'" in run.lines[0]
    run = cli(*base, "--judge", "j", "--judge-pairwise", "terse", "nobody")
    assert run.exit_code == 2 and len(run.lines) == 1 and "no system 'nobody'" in run.lines[0]
    run = cli(*base, "--judge", "j", "--judge-samples", 3)  # at the default temperature 0: K copies of one
    assert run.exit_code == 2 and len(run.lines) == 1
    assert run.lines[0].startswith("error: --judge-samples 3 at --judge-temperature 0")
