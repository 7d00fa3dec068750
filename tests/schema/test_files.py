"""Settings files: YAML, TOML and JSON read alike; mistakes name the file; --set overrides nest."""

from __future__ import annotations

import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.schema.files import merge, parse_assignments, read_settings


def test_yaml_toml_and_json_give_the_same_settings(tmp_path):
    (tmp_path / "a.yaml").write_text("model: m\ngenerate:\n  num_beams: 2\n")
    (tmp_path / "a.toml").write_text('model = "m"\n[generate]\nnum_beams = 2\n')
    (tmp_path / "a.json").write_text('{"model": "m", "generate": {"num_beams": 2}}')
    expected = {"model": "m", "generate": {"num_beams": 2}}
    assert read_settings(tmp_path / "a.yaml") == read_settings(tmp_path / "a.toml") == expected
    assert read_settings(tmp_path / "a.json") == expected
    assert read_settings(None) == {}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bad.yaml", "model: [unclosed", "bad.yaml: not a valid settings file"),
        ("bad.toml", "model = ", "bad.toml: not a valid settings file"),
        ("list.yaml", "- a\n- b\n", "must hold a mapping"),
        ("x.ini", "a=1", "unsupported settings file type"),
    ],
)
def test_broken_settings_files_are_named(tmp_path, name, text, message):
    (tmp_path / name).write_text(text)
    with pytest.raises(SettingsError, match=message):
        read_settings(tmp_path / name)
    with pytest.raises(SettingsError, match="no such settings file"):
        read_settings(tmp_path / "missing.yaml")


def test_assignments_nest_parse_scalars_and_merge_over_a_file():
    overrides = parse_assignments(["generate.num_beams=1", "model=runs/x", "llm.local.max_new_tokens=16"])
    assert overrides == {
        "generate": {"num_beams": 1},
        "model": "runs/x",
        "llm": {"local": {"max_new_tokens": 16}},
    }
    base = {"generate": {"num_beams": 4, "batch_size": 8}, "model": "facebook/bart-large"}
    assert merge(base, overrides)["generate"] == {"num_beams": 1, "batch_size": 8}
    with pytest.raises(SettingsError, match="expected KEY=VALUE"):
        parse_assignments(["num_beams"])
