"""Meta-evaluation recovers relations planted between metric scores and judgments, within its CIs."""

from __future__ import annotations

import json

import pytest

from wikihowqa.errors import SettingsError
from wikihowqa.metaeval import meta_evaluate_folders
from wikihowqa.metaeval.agreement import MetaSettings

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
    assert labels[-2:] == ["control: −edits (key)", "control: random"]
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


@pytest.mark.parametrize(
    ("settings", "message"),
    [({"resamples": 99}, r"--resamples 99: use at least 100"), ({"confidence": 1.0}, r"--confidence 1.0")],
)
def test_settings_too_rough_for_an_interval_are_refused(settings, message):
    with pytest.raises(SettingsError, match=message):
        MetaSettings(**settings)
