"""The answer command's shortcuts become the settings they stand for."""

from __future__ import annotations

from wikihowqa.answer.options import command_settings
from wikihowqa.schema.base import check
from wikihowqa.schema.settings import AnswerSettings


def test_encoder_backend_sets_the_dense_encoder_alone_and_inside_hybrid():
    settings = command_settings("dense+lead", {"retrieval": {"mode": "open"}}, encoder_backend="torch")
    assert settings["retrieval"]["mode"] == "open"
    assert settings["retrieval"]["dense"]["backend"] == "torch"
    assert settings["retrieval"]["hybrid"]["dense"]["backend"] == "torch"
    assert check(AnswerSettings, settings, "settings").retrieval.dense.backend == "torch"


def test_a_set_assignment_wins_over_the_encoder_backend_shortcut():
    settings = command_settings(
        "dense+lead", {}, ["retrieval.dense.backend=openvino"], encoder_backend="torch"
    )
    assert settings["retrieval"]["dense"]["backend"] == "openvino"
