"""The error taxonomy: the default (Scarecrow adapted to grounded how-to answers), a settings file that
replaces it, and what a study records."""

from __future__ import annotations

import json

import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.humaneval.taxonomy import (
    DEFAULT_TAXONOMY,
    SEVERITIES,
    read_taxonomy,
    study_taxonomy,
)

SCARECROW_KEPT = {
    "grammar_usage",
    "off_prompt",
    "redundant",
    "self_contradiction",
    "incoherent",
    "technical_jargon",
    "bad_math",
    "encyclopedic",
    "commonsense",
}


def test_the_default_keeps_scarecrow_types_and_adds_grounded_and_how_to_ones():
    names = set(DEFAULT_TAXONOMY.names)
    assert names >= SCARECROW_KEPT
    assert {"contradicts_passages", "not_in_passages"} <= names
    assert {"unsafe_step", "step_order", "missing_step"} <= names
    assert SEVERITIES == ("minor", "major", "critical")


def test_every_type_has_a_one_line_definition_and_an_example():
    for t in DEFAULT_TAXONOMY.types:
        assert t.definition and "\n" not in t.definition and len(t.definition) <= 200, t.name
        assert t.example and "\n" not in t.example and len(t.example) <= 200, t.name
        assert t.label


def test_contradiction_and_redundancy_ask_for_an_antecedent_where_it_can_lie():
    get = DEFAULT_TAXONOMY.get
    assert get("redundant").antecedent == get("self_contradiction").antecedent == "required"
    assert get("redundant").antecedent_sources(passages=True) == ("answer",)
    assert get("contradicts_passages").antecedent_sources(passages=True) == ("passage",)
    assert get("grammar_usage").antecedent == "none"


def test_passage_grounded_types_are_offered_only_with_passages():
    without = {t.name for t in DEFAULT_TAXONOMY.offered(passages=False)}
    with_ = {t.name for t in DEFAULT_TAXONOMY.offered(passages=True)}
    assert "contradicts_passages" not in without and "not_in_passages" not in without
    assert {"contradicts_passages", "not_in_passages"} <= with_
    assert "unverifiable" in without and "unverifiable" not in with_


def test_planted_edit_types_map_to_offered_types_and_uncovered_types_are_listed():
    assert DEFAULT_TAXONOMY.names_for_edit("order", passages=False) == ("step_order",)
    assert "contradicts_passages" in DEFAULT_TAXONOMY.names_for_edit("negation", passages=True)
    assert "contradicts_passages" not in DEFAULT_TAXONOMY.names_for_edit("negation", passages=False)
    for edit in ("negation", "number", "unit", "antonym", "swap", "order", "unsupported"):
        for passages in (False, True):
            assert DEFAULT_TAXONOMY.names_for_edit(edit, passages), (edit, passages)
    assert set(DEFAULT_TAXONOMY.uncovered()) == {t.name for t in DEFAULT_TAXONOMY.types if not t.planted}
    assert "unsafe_step" in DEFAULT_TAXONOMY.uncovered()


def test_a_settings_file_replaces_the_default_and_the_study_records_it(tmp_path):
    path = tmp_path / "taxonomy.yaml"
    path.write_text(
        "name: tiny\n"
        "types:\n"
        "  - {name: wrong, label: Wrong, definition: It is wrong., example: The sky is green.}\n"
        "  - {name: repeat, label: Repeat, definition: Said twice., example: A. A., antecedent: required,\n"
        "     antecedent_in: [answer]}\n",
        encoding="utf-8",
    )
    tiny = read_taxonomy(path)
    assert tiny.names == ("wrong", "repeat") and tiny.get("repeat").antecedent == "required"
    recorded = json.loads(json.dumps(tiny.to_dict()))
    assert [s["name"] for s in recorded["severities"]] == list(SEVERITIES)
    assert study_taxonomy({"error_taxonomy": recorded}) == tiny
    assert study_taxonomy({}) == DEFAULT_TAXONOMY
    assert read_taxonomy(None) is DEFAULT_TAXONOMY


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: x\ntypes: []\n", "types"),
        ("name: x\ntypes:\n  - {name: Bad Name, label: L, definition: d, example: e}\n", "types.0.name"),
        ("name: x\ntypes:\n  - {name: a, label: L, definition: d, example: e, planted: [typo]}\n", "typo"),
        (
            "name: x\ntypes:\n  - {name: a, label: L, definition: d, example: e}\n"
            "  - {name: a, label: M, definition: d, example: e}\n",
            "named twice",
        ),
        ("name: x\ntypes:\n  - {name: a, label: L, definition: d, example: e, colour: red}\n", "colour"),
        (
            "name: x\ntypes:\n  - {name: a, label: L, definition: d, example: e, shown: with_passages}\n",
            "without passages",
        ),
    ],
)
def test_a_bad_taxonomy_file_is_one_error_naming_the_file_and_the_setting(tmp_path, text, message):
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SettingsError, match=message) as info:
        read_taxonomy(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
