"""The generated reference pages against what they describe: every command and option the parser accepts
(as each command's own ``--help`` prints it), every key of the settings schema and every field of every
stage's settings dataclass, and a predictions JSON Schema that accepts what ``answer`` writes and refuses
what the reader refuses."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from wikihowqa.cli import _reference
from wikihowqa.core.records import Prediction, UsedPassage
from wikihowqa.dataset.readers import read_predictions
from wikihowqa.dataset.writers import write_predictions
from wikihowqa.schema.settings import AnswerSettings

jsonschema = pytest.importorskip("jsonschema")


@pytest.fixture(scope="module")
def cli_page() -> str:
    return _reference.cli_reference()


def _section(page: str, heading: str) -> str:
    start = page.index(heading)
    end = page.find("\n## ", start + len(heading))
    return page[start : end if end > 0 else None]


def _help_options(cli, command: str) -> set[str]:
    """The option names ``wikihowqa COMMAND --help`` prints (what a user reads in a terminal)."""
    run = cli(command, "--help", env={"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"})
    assert run.exit_code == 0, run.output
    # an option's own line in the Options box starts with its name (prose may mention other commands')
    found = re.findall(
        r"^│\s+(?:\*\s+)?(?:-\w,?\s+)?(--[a-z][a-z0-9-]*)(?:\s+(--no-[a-z0-9-]+))?", run.stdout, re.M
    )
    return {name for pair in found for name in pair if name}  # --grounding and its --no-grounding


def test_every_command_and_every_option_of_its_help_is_in_the_cli_reference(cli, cli_page):
    names = _reference.commands()
    assert len(names) >= 20 and {"build", "hydrate", "evaluate", "serve", "view", "demo"} <= set(names)
    assert {"--out", "--split", "--no-grounding"} <= _help_options(cli, "evaluate")  # the help is read
    for name in names:
        section = _section(cli_page, f"## `wikihowqa {name}`")
        for option in _help_options(cli, name) - {"--help"}:
            assert f"`{option}`" in section, (name, option)


def test_every_parameter_of_the_parser_has_a_row_with_its_help_and_default(cli_page):
    for name, command in _reference.commands().items():
        section = _section(cli_page, f"## `wikihowqa {name}`")
        for param in command.params:
            spelled = _reference.param_names(param)[0]
            row = next((r for r in section.splitlines() if r.startswith(f"| `{spelled}`")), None)
            assert row is not None, (name, spelled)
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
            assert len(cells) == 3 and cells[2], (name, spelled, row)  # a default (or "required") shown
            if param.help:
                assert cells[1] not in ("", "—"), (name, spelled)


def test_the_build_command_documents_its_wiki_option(cli_page):
    # the example: without --api-url no other wiki can be built
    assert "`--api-url`" in _section(cli_page, "## `wikihowqa build`")


def _schema_keys(schema: dict, node: dict, prefix: str = "") -> set[str]:
    """Dotted keys of a JSON Schema's objects, following ``$ref`` into nested sections."""
    keys: set[str] = set()
    for name, spec in node.get("properties", {}).items():
        refs = [spec.get("$ref")] + [s.get("$ref") for s in spec.get("anyOf", [])]
        ref = next((r for r in refs if r), None)
        if ref:
            keys |= _schema_keys(schema, schema["$defs"][ref.rsplit("/", 1)[-1]], f"{prefix}{name}.")
        else:
            keys.add(f"{prefix}{name}")
    return keys


def test_every_key_of_the_settings_schema_is_in_the_settings_reference():
    page = _reference.settings_reference()
    schema = AnswerSettings.model_json_schema()
    keys = _schema_keys(schema, schema)
    assert {"llm.openai.model", "generator.train.epochs", "retrieval.dense.precision"} <= keys
    for key in keys:
        assert f"| `{key}` |" in page, key


def test_every_example_settings_file_is_shown_and_valid_against_the_schema():
    from wikihowqa.schema.files import read_settings

    page = _reference.settings_reference()
    files = _reference.example_settings_files()
    assert [f.name for f in files] and "train.yaml" in [f.name for f in files]
    for path in files:
        read_settings(path, AnswerSettings)  # raises SettingsError naming a wrong key
        assert path.read_text(encoding="utf-8").strip().splitlines()[-1] in page, path


def test_every_stage_settings_dataclass_and_its_fields_are_in_the_settings_reference():
    page = _reference.settings_reference()
    names = {cls.__name__: cls for cls in _reference.settings_classes()}
    # the ones the issue names, wherever the package moves them
    assert {"BuildSettings", "EvaluationSettings", "StudySettings", "ParseSettings", "SplitSettings"} <= set(
        names
    )
    for name, cls in names.items():
        section = page[page.index(f"### `{name}`") :]
        section = section[: section.find("\n### ", 5) if "\n### " in section[5:] else None]
        for f in dataclasses.fields(cls):
            assert f"| `{f.name}` |" in section, (name, f.name)


def test_the_predictions_json_schema_accepts_what_answer_writes_and_refuses_what_the_reader_refuses(tmp_path):
    schema = _reference.prediction_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    path = tmp_path / "p.jsonl"
    write_predictions(
        path,
        [
            Prediction(7, "mine", "Fill the jar.", (UsedPassage("http://a/b", 0, 1, "Fill it.", 0.5),)),
            Prediction(8, "mine", "Empty it."),
        ],
    )
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(read_predictions(path)) == 2
    for row in rows:
        jsonschema.validate(row, schema)
    for bad in ({**rows[0], "article_id": "7"}, {k: v for k, v in rows[0].items() if k != "answer"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_the_file_formats_page_lists_every_field_of_every_row_model():
    from wikihowqa.schema import rows

    page = _reference.formats_reference()
    for typed in (rows.ExampleRow, rows.DocumentRow, rows.PredictionRow, rows.UsedPassageRow):
        for field in typed.__annotations__:
            assert f"| `{field}` |" in page, (typed.__name__, field)
