"""The pairwise judge: both orders asked, an order-dependent verdict a tie that counts as position-
inconsistent; against a stub judge that always prefers the first answer shown and one that prefers the
longer answer."""

from __future__ import annotations

import json

import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.evaluate.judge import JudgeConfig
from wikihowqa.evaluate.pairwise import (
    FIRST,
    SECOND,
    TIE,
    UNPARSED,
    PairVerdict,
    PairwiseResult,
    combine,
    parse_choice,
    summarise,
)
from wikihowqa.evaluate.pipeline import EvaluationSettings, evaluate
from wikihowqa.evaluate.report import write_report

from . import judge_servers
from .judge_servers import ScriptedServer


@pytest.mark.parametrize(
    ("reply", "choice"),
    [
        ("better: A", FIRST),
        ("  Better : b \n", SECOND),
        ("better: tie", TIE),
        ("better: A.", FIRST),
        ("```\nbetter: B\n```", SECOND),
        ("A", UNPARSED),
        ("better: A\nbecause it is longer", UNPARSED),
        ("I think answer A is better.", UNPARSED),
        ("better: C", UNPARSED),
        ("", UNPARSED),
    ],
)
def test_a_reply_is_read_only_in_the_asked_format(reply, choice):
    assert parse_choice(reply) == choice


def test_the_two_orders_make_one_outcome_and_a_disagreement_is_a_tie():
    # order 0 shows A first, order 1 shows B first
    assert combine(FIRST, SECOND) == ("win", True)  # A preferred in both orders
    assert combine(SECOND, FIRST) == ("loss", True)
    assert combine(TIE, TIE) == ("tie", True)
    assert combine(FIRST, FIRST) == ("tie", False)  # always the first shown: position, not quality
    assert combine(SECOND, SECOND) == ("tie", False)
    assert combine(FIRST, TIE) == ("tie", False)
    assert combine(UNPARSED, FIRST) == (None, None)


def test_the_summary_gives_rates_with_intervals_over_the_pairs_with_a_verdict():
    verdicts = [
        PairVerdict(FIRST, SECOND, "win", True),
        PairVerdict(FIRST, SECOND, "win", True),
        PairVerdict(FIRST, FIRST, "tie", False),
        PairVerdict(SECOND, FIRST, "loss", True),
        PairVerdict(UNPARSED, FIRST, None, None, "a reply not in the asked format"),
    ]
    from wikihowqa.evaluate.judge_cost import Tokens

    s = summarise(PairwiseResult("x", "y", verdicts, Tokens()), confidence=0.95, resamples=200, seed=0)
    assert (s.questions, s.judged, s.unparsed, s.not_sent) == (5, 4, 1, 0)
    assert s.rates["win"].mean == pytest.approx(0.5) and s.rates["loss"].mean == pytest.approx(0.25)
    assert s.rates["inconsistent"].mean == pytest.approx(0.25)
    for interval in s.rates.values():
        assert 0.0 <= interval.low <= interval.mean <= interval.high <= 1.0
    assert s.rates["win"].low < 0.5 < s.rates["win"].high  # four pairs: a wide interval


def _run(tmp_path, server, pair=("terse", "verbose"), out="report"):
    ds, predictions = judge_servers.dataset(tmp_path)
    judge = JudgeConfig(model="j", base_url=server.url, requests_per_minute=None)
    settings = EvaluationSettings(
        split="test", bertscore=None, grounding=None, judge=judge, judge_pairwise=pair, resamples=200
    )
    evaluation = evaluate(ds, [predictions], settings, cache_dir=tmp_path / out)
    return evaluation, write_report(evaluation, tmp_path / out)


def test_a_judge_that_always_prefers_the_first_answer_makes_every_pair_an_inconsistent_tie(tmp_path):
    with ScriptedServer(default=judge_servers.first_shown) as server:
        evaluation, report = _run(tmp_path, server)
        pairwise_sent = [b for b, _ in server.requests if "Answer A:" in b["messages"][-1]["content"]]
    assert len(pairwise_sent) == 10  # five questions, two orders each
    (summary,) = report.judge.pairwise
    assert (summary.a, summary.b, summary.judged) == ("terse", "verbose", 5)
    assert summary.rates["tie"].mean == 1.0 and summary.rates["inconsistent"].mean == 1.0
    assert summary.rates["win"].mean == 0.0 and summary.rates["loss"].mean == 0.0
    # each question was asked once with each answer first
    firsts = {b["messages"][-1]["content"].split("Answer A:\n")[1].split("\n")[0] for b in pairwise_sent}
    assert {"Clean figs.", "Clean the figs every week with a damp cloth, then keep them dry."} <= firsts
    saved = json.loads((tmp_path / "report" / "evaluation.json").read_text())["judge"]["pairwise"][0]
    assert saved["tie"]["rate"] == 1.0 and saved["inconsistent"]["rate"] == 1.0
    markdown = (tmp_path / "report" / "evaluation.md").read_text()
    assert "## Pairwise judge: terse vs verbose" in markdown and "100.0% [100.0, 100.0]" in markdown
    assert evaluation.pairwise[0].verdicts[0].replies == ("better: A", "better: A")


def test_a_judge_that_prefers_the_longer_answer_lets_the_longer_system_win_every_pair(tmp_path):
    with ScriptedServer(default=judge_servers.longer) as server:
        _, report = _run(tmp_path, server, pair=("terse", "verbose"))
    (summary,) = report.judge.pairwise
    assert summary.rates["loss"].mean == 1.0  # verbose (B) wins every pair
    assert summary.rates["win"].mean == 0.0 and summary.rates["tie"].mean == 0.0
    assert summary.rates["inconsistent"].mean == 0.0  # consistency 100 %
    assert summary.tokens.calls == 10 and summary.tokens.estimated == 0


def test_the_pairwise_verdicts_are_cached_with_the_dataset_so_another_report_asks_nothing(tmp_path):
    with ScriptedServer(default=judge_servers.longer) as server:
        _, first = _run(tmp_path, server)
        asked = len(server.requests)
        _, again = _run(tmp_path, server, out="another-report")
        assert len(server.requests) == asked
    assert again.judge.pairwise[0].rates["loss"].mean == 1.0 and again.judge.requests_sent == 0
    assert again.judge.pairwise[0].tokens == first.judge.pairwise[0].tokens


def test_pairwise_systems_must_be_two_known_ones_and_need_a_judge(tmp_path):
    ds, predictions = judge_servers.dataset(tmp_path)
    judge = JudgeConfig(model="j", base_url="http://127.0.0.1:9/v1", requests_per_minute=None)

    def settings(pair, judge=judge):
        base = {"split": "test", "bertscore": None, "grounding": None}
        return EvaluationSettings(**base, judge=judge, judge_pairwise=pair)

    with pytest.raises(SettingsError, match=r"no system 'nobody' to compare \(systems: 'terse'"):
        evaluate(ds, [predictions], settings(("terse", "nobody")))
    with pytest.raises(SettingsError, match="needs a judge"):
        evaluate(ds, [predictions], settings(("terse", "verbose"), judge=None))
    with pytest.raises(SettingsError, match="two different systems"):
        evaluate(ds, [predictions], settings(("terse", "terse")))
