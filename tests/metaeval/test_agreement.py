"""Meta-evaluation recovers relations planted between metric scores and judgments, within its CIs."""

from __future__ import annotations

import json

import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.metaeval.agreement import MetaSettings
from wikihowqa.metaeval.stage import meta_evaluate_folders

from .planted import population, write_study


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    study, report = write_study(tmp_path_factory.mktemp("planted"))
    return meta_evaluate_folders(study, report, MetaSettings(resamples=1000, seed=0)), population()


def _inside(estimate, value):
    return estimate["low"] <= value <= estimate["high"]


def test_answer_level_correlations_with_usefulness_are_recovered(planted):
    result, truth = planted
    trial = result["answer_level"]["trial_b"]
    agree = trial["Grounding"]["usefulness"]  # the column carrying the planted "agree" metric
    assert _inside(agree["kendall"], truth["tau_agree_usefulness"]), (agree, truth)
    assert _inside(agree["spearman"], truth["rho_agree_usefulness"]), (agree, truth)
    random = trial["Judge: consistency"]["usefulness"]["kendall"]
    assert random["low"] < 0 < random["high"] and abs(random["value"]) < 0.15


def test_errors_found_and_the_original_above_its_deteriorated_version(planted):
    result, truth = planted
    fewer = result["answer_level"]["trial_b"]["Supported"]["fewer_errors_found"]["kendall"]
    assert _inside(fewer, truth["tau_edits_fewer_errors"]), (fewer, truth)
    pairs = result["pairs"]["Supported"]
    assert _inside(pairs["accuracy"], truth["pair_accuracy_edits"]), (pairs, truth)
    assert pairs["auc"]["value"] > 0.85
    assert pairs["accuracy"]["n"] == result["answers"]["trial_b"]["deteriorated"]  # one pair per answer
    chance = result["pairs"]["Judge: consistency"]["auc"]
    assert chance["low"] < 0.5 < chance["high"]


def test_ab_agreement_and_system_ranking_are_recovered(planted):
    result, truth = planted
    pref = result["preference"]
    agreement = pref["pair_agreement"]["Grounding"]
    assert _inside(agreement, truth["ab_agreement_agree"]), (agreement, truth)
    assert pref["kendall"]["Grounding"]["value"] == pytest.approx(1.0)
    assert pref["systems"]["sys-d"]["preference_score"] > pref["systems"]["sys-a"]["preference_score"]
    random = pref["pair_agreement"]["Judge: consistency"]
    assert random["low"] < 0.5 < random["high"]


def test_controls_bracket_the_metrics(planted):
    result, _ = planted
    labels = [m["label"] for m in result["metrics"]]
    assert labels[-4:] == [
        "control: −edits (key)",
        "control: random",
        "control: longer answer",
        "control: shorter answer",
    ]
    key = result["answer_level"]["trial_b"]["control: −edits (key)"]["fewer_errors_found"]["kendall"]
    rnd = result["answer_level"]["trial_b"]["control: random"]["fewer_errors_found"]["kendall"]
    assert key["low"] > 0.3  # knowing the edits predicts the errors found
    assert rnd["low"] < 0 < rnd["high"] and abs(rnd["value"]) < 0.05  # 200 draws average out
    assert result["pairs"]["control: −edits (key)"]["accuracy"]["value"] == 1.0


def test_report_files_and_terminal_table(planted, tmp_path):
    from rich.console import Console

    from wikihowqa.metaeval.report import agreement_table, write_report

    result, _ = planted
    files = write_report(result, tmp_path)
    assert [f.name for f in files] == ["meta_evaluation.json", "meta_evaluation.md", "meta_evaluation.png"]
    assert json.loads(files[0].read_text())["format"] == "wikihowqa-meta-evaluation"
    md = files[1].read_text()
    assert "## Answer level, trial B (with passages)" in md and "| Grounding |" in md
    assert files[2].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    console = Console(width=100, record=True)
    console.print(agreement_table(result, tmp_path))
    text = console.export_text()
    assert "Grounding" in text and "control: random" in text


def test_the_human_ceiling_is_each_assessor_against_the_others(planted):
    result, truth = planted
    ceiling = result["ceiling"]
    tau = ceiling["answer_level"]["trial_b"]["usefulness"]["kendall"]
    assert _inside(tau, truth["tau_ceiling_usefulness"]), (tau, truth)
    assert tau["n"] == 3 * result["answers"]["trial_b"]["answers"]  # every judgment held out once
    assert _inside(ceiling["pair_agreement"], truth["ab_ceiling"]), (ceiling, truth)


def test_answers_of_one_length_tie_the_length_rules_and_no_metric_is_above_an_undefined_floor(planted):
    result, _ = planted
    # the planted answers all have the same word count: both rules tie everywhere, tau is undefined
    rule = result["answer_level"]["trial_b"]["control: longer answer"]["usefulness"]["kendall"]
    assert rule["value"] is None
    assert result["pairs"]["control: longer answer"]["accuracy"]["value"] == 0.5
    floor = result["floor"]["pairs"]["accuracy"]
    assert floor["value"] == 0.5 and floor["above"]["Supported"] is True


@pytest.fixture(scope="module")
def length_biased(tmp_path_factory):
    study, report = write_study(tmp_path_factory.mktemp("length"), length_bias=1.0)
    return meta_evaluate_folders(study, report, MetaSettings(resamples=300, seed=0))


def test_a_planted_length_preference_makes_the_longer_answer_rule_score_high(length_biased):
    trial = length_biased["answer_level"]["trial_b"]
    longer = trial["control: longer answer"]["usefulness"]["kendall"]
    shorter = trial["control: shorter answer"]["usefulness"]["kendall"]
    random = trial["control: random"]["usefulness"]["kendall"]
    assert longer["low"] > 0.2 and longer["low"] > random["high"]
    assert shorter["value"] == pytest.approx(-longer["value"])
    assert length_biased["floor"]["answer_level"]["trial_b"]["usefulness"]["kendall"]["rule"] == (
        "control: longer answer"
    )
    assert length_biased["preference"]["pair_agreement"]["control: longer answer"]["value"] > 0.6


def test_a_metric_planted_to_agree_is_marked_above_the_length_rule_and_a_random_one_is_not(length_biased):
    floor = length_biased["floor"]["answer_level"]["trial_b"]["usefulness"]["kendall"]
    assert floor["above"]["Grounding"] is True
    assert floor["above"]["Judge: consistency"] is False  # the column carrying a random metric


def test_the_report_shows_the_floor_the_ceiling_and_the_shorter_rule_only_where_it_is_better(
    length_biased, planted, tmp_path
):
    from rich.console import Console

    from wikihowqa.metaeval.report import agreement_table, render_markdown

    md = render_markdown(length_biased)
    assert "| control: longer answer |" in md and "| human ceiling (leave one assessor out) |" in md
    # longer answers carry more planted edits to find: for errors found the shorter rule is the better one
    assert "| control: shorter answer |" in md.split("## Answer level")[1].split("## Original")[0]
    assert "control: shorter answer" not in md.split("## A/B preferences")[1]  # there longer is better
    grounding = next(line for line in md.splitlines() if line.startswith("| Grounding |"))
    assert "▲" in grounding
    console = Console(width=140, record=True)
    console.print(agreement_table(length_biased, tmp_path))
    text = console.export_text()
    assert "control: longer answer" in text and "human ceiling" in text and "control: shorter" in text
    console = Console(width=140, record=True)
    console.print(agreement_table(planted[0], tmp_path))
    assert "control: shorter" not in console.export_text()  # equal lengths: never the better rule


@pytest.mark.parametrize(
    ("settings", "message"),
    [({"resamples": 99}, r"--resamples 99: use at least 100"), ({"confidence": 1.0}, r"--confidence 1.0")],
)
def test_settings_too_rough_for_an_interval_are_refused(settings, message):
    with pytest.raises(SettingsError, match=message):
        MetaSettings(**settings)
