"""The judge asked K times per answer (--judge-samples): each sample cached apart, the scores their mean,
and the spread per system: the mean per-question standard deviation and the share of questions whose
samples disagree."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.evaluate.judge import JudgeConfig
from wikihowqa.evaluate.judge_spread import Spread, mean_of_samples, spread
from wikihowqa.evaluate.pipeline import EvaluationSettings, evaluate
from wikihowqa.evaluate.report import write_report

from . import judge_servers
from .judge_servers import ScriptedServer, answered


def test_spread_is_the_mean_per_question_deviation_and_the_share_that_disagrees():
    samples = [[3, 3, 3], [1, 3, None], [4, 5, 4], [None, 2, None]]  # the last has one parsed sample
    result = spread(samples)
    assert result.questions == 3
    assert result.mean_sd == pytest.approx((0.0 + math.sqrt(2) + math.sqrt(1 / 3)) / 3)
    assert result.disagree_share == pytest.approx(2 / 3)
    assert spread([[2], [None, None]]) == Spread(None, None, 0)
    assert mean_of_samples([1, None, 4]) == 2.5 and math.isnan(mean_of_samples([None, math.nan]))


def _sampled(body: dict, seen: Counter) -> tuple[int, dict, bytes]:
    """A judge whose consistency score rises with each draw of the same prompt: 1, 2, 3, ..."""
    prompt = body["messages"][-1]["content"]
    seen[prompt] += 1
    return answered(f"consistency: {seen[prompt]}\nusefulness: 4", body)


def _evaluate(tmp_path, url, samples, out):
    ds, predictions = judge_servers.dataset(tmp_path)
    judge = JudgeConfig(model="j", base_url=url, requests_per_minute=None, temperature=0.7, samples=samples)
    settings = EvaluationSettings(split="test", bertscore=None, grounding=None, judge=judge, resamples=200)
    evaluation = evaluate(ds, [predictions], settings, cache_dir=tmp_path / out)
    return evaluation, write_report(evaluation, tmp_path / out)


def test_k_samples_are_asked_and_cached_apart_and_their_spread_is_reported(tmp_path):
    seen: Counter = Counter()
    with ScriptedServer(default=lambda body: _sampled(body, seen)) as server:
        evaluation, report = _evaluate(tmp_path, server.url, 3, "report")
        assert len(server.requests) == 15 * 3  # 15 answers, three draws each
        assert {b["temperature"] for b, _ in server.requests} == {0.7}
        _evaluate(tmp_path, server.url, 3, "elsewhere")
        assert len(server.requests) == 45  # every draw came from the cache, none collapsed into one
        _evaluate(tmp_path, server.url, 4, "report")
        assert len(server.requests) == 45 + 15  # one more draw per answer: only the fourth is asked
    terse = next(r for r in evaluation.systems if r.system == "terse")
    assert terse.scores["judge_consistency"] == [2.0] * 5  # the mean of 1, 2, 3
    assert terse.scores["judge_parsed"] == [1.0] * 5
    assert report.judge.spread["terse"]["consistency"] == Spread(1.0, 1.0, 5)
    assert report.judge.spread["terse"]["usefulness"] == Spread(0.0, 0.0, 5)
    assert report.judge.tokens["terse"].calls == 15
    assert [d["consistency"] for d in terse.judge_details[0]["samples"]] == [1, 2, 3]
    saved = json.loads((tmp_path / "elsewhere" / "evaluation.json").read_text())["judge"]
    assert saved["samples"] == 3 and saved["spread"]["verbose"]["consistency"]["disagree_share"] == 1.0
    markdown = (tmp_path / "elsewhere" / "evaluation.md").read_text()
    assert "## Judge variance (3 samples per answer)" in markdown
    assert "## Judge variance (4 samples per answer)" in (tmp_path / "report" / "evaluation.md").read_text()


def test_more_than_one_sample_needs_a_judge_that_samples():
    with pytest.raises(SettingsError, match="local"):
        JudgeConfig(model="smollm2", backend="local", samples=2)
    with pytest.raises(SettingsError, match="at least once"):
        JudgeConfig(model="j", samples=0)


def test_more_than_one_sample_at_temperature_zero_is_refused_in_one_line():
    """K draws at temperature 0 are K copies of one request: a judge "perfectly stable" by construction."""
    with pytest.raises(SettingsError) as refused:
        JudgeConfig(model="j", samples=3, temperature=0.0)
    message = str(refused.value)
    assert "\n" not in message and "--judge-samples 3 at --judge-temperature 0" in message
    assert "--judge-temperature above 0" in message
    assert JudgeConfig(model="j", samples=3, temperature=0.7).samples == 3  # a sampling judge: allowed
    assert JudgeConfig(model="j", samples=1, temperature=0.0).samples == 1  # one greedy verdict: allowed
