"""Every settings section refuses a misspelt key with one line naming it, from a file and from --set."""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
import types
import typing
from typing import Any

import pytest
import yaml
from pydantic import BaseModel

from wikihowqa.core.errors import SettingsError
from wikihowqa.schema.base import _models_in
from wikihowqa.schema.files import parse_assignments, read_generator_settings, read_settings
from wikihowqa.schema.settings import (
    AnswerSettings,
    BM25Options,
    DenseOptions,
    GeneratorConfig,
    HybridOptions,
    LLMSettings,
)

TYPO = "retreiver"


def sections(model: type[BaseModel] = AnswerSettings, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every section path, found from the models themselves (a new section is tested without a new line)."""
    found = [path]
    for name, field in model.model_fields.items():
        for inner in _models_in(field.annotation)[:1]:
            found += sections(inner, (*path, name))
    return found


SECTIONS = sections()


def nested(path: tuple[str, ...], leaf: dict[str, Any]) -> dict[str, Any]:
    for part in reversed(path):
        leaf = {part: leaf}
    return leaf


def as_toml(path: tuple[str, ...]) -> str:
    header = f"[{'.'.join(path)}]\n" if path else ""
    return f'# settings\n{header}{TYPO} = "bm25"\n'


def expected_keys(path: tuple[str, ...]) -> str:
    model: type[BaseModel] = AnswerSettings
    for part in path:
        model = _models_in(model.model_fields[part].annotation)[0]
    return ", ".join(sorted(model.model_fields))


def test_every_section_is_covered():
    assert len(SECTIONS) >= 18  # top level, 6 sections, their 11 subsections (retrievers, train, prompt...)
    assert ("retrieval", "hybrid", "dense") in SECTIONS and ("llm", "prompt", "passages") in SECTIONS


@pytest.mark.parametrize("suffix", [".yaml", ".toml", ".json"])
@pytest.mark.parametrize("path", SECTIONS, ids=lambda p: ".".join(p) or "top")
def test_a_misspelt_key_in_a_settings_file_is_one_line_naming_it(tmp_path, path, suffix):
    settings = nested(path, {TYPO: "bm25"})
    text = {
        ".yaml": lambda: yaml.safe_dump(settings),
        ".toml": lambda: as_toml(path),
        ".json": lambda: json.dumps(settings, indent=2),
    }[suffix]()
    file = tmp_path / f"settings{suffix}"
    file.write_text(text)
    line = next(n for n, t in enumerate(text.splitlines(), start=1) if TYPO in t)
    key = ".".join((*path, TYPO))
    with pytest.raises(SettingsError) as caught:
        read_settings(file, AnswerSettings)
    message = str(caught.value)
    assert "\n" not in message
    assert message == f"{file}:{line}: {key}: unknown setting (expected one of {expected_keys(path)})"


@pytest.mark.parametrize("path", SECTIONS, ids=lambda p: ".".join(p) or "top")
def test_a_misspelt_key_in_set_is_one_line_naming_it(path):
    key = ".".join((*path, TYPO))
    with pytest.raises(SettingsError) as caught:
        parse_assignments(["llm.backend=local", f"{key}=bm25"], AnswerSettings)
    assert str(caught.value) == (
        f"--set '{key}=bm25': {key}: unknown setting (expected one of {expected_keys(path)})"
    )


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("retrieval.mode=opne", "retrieval.mode: input should be 'supporting' or 'open' (got 'opne')"),
        (
            "extractive.max_words=lots",
            "extractive.max_words: must be a positive integer or 'auto' (got 'lots')",
        ),
        ("generator.generate.num_beams=0", "generator.generate.num_beams: input should be greater than 0"),
        (
            "generator.retriever={name: bm25, k3: 1}",
            "generator.retriever.k3: unknown setting (expected one of b,",
        ),
        (
            "generator.retriever={name: tfidf}",
            "generator.retriever.name: expected one of bm25, dense, hybrid",
        ),
        ("llm.backend=remote", "llm.backend: input should be 'openai' or 'local' (got 'remote')"),
        ("retrieval=3", "retrieval: must be a mapping of settings, not 3"),
    ],
)
def test_wrong_values_are_one_line_naming_the_key(assignment, message):
    with pytest.raises(SettingsError) as caught:
        parse_assignments([assignment], AnswerSettings)
    assert str(caught.value).startswith(f"--set {assignment!r}: {message}")
    assert "\n" not in str(caught.value)


def _plain_types(annotation: Any) -> set[Any]:
    """The plain types a field's annotation admits (``Annotated`` and unions unwrapped; a list is a list)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _plain_types(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return {t for arg in typing.get_args(annotation) for t in _plain_types(arg)}
    return {origin or annotation}


def number_settings() -> list[tuple[str, ...]]:
    """Every setting of every section that holds a number and is no switch (found from the models)."""
    found = []
    for path in SECTIONS:
        model: type[BaseModel] = AnswerSettings
        for part in path:
            model = _models_in(model.model_fields[part].annotation)[0]
        for name, field in model.model_fields.items():
            admitted = _plain_types(field.annotation)
            if admitted & {int, float} and bool not in admitted:
                found.append((*path, name))
    return found


NUMBERS = number_settings()


def test_the_number_settings_are_found():
    assert len(NUMBERS) >= 40 and ("extractive", "top_passages") in NUMBERS
    assert ("generator", "train", "bf16") not in NUMBERS  # "auto" or a switch


@pytest.mark.parametrize("switch", ["true", "false"])
@pytest.mark.parametrize("path", NUMBERS, ids=".".join)
def test_a_yaml_true_or_false_is_never_read_as_a_number(tmp_path, path, switch):
    """YAML reads ``true`` as a bool, which Python counts as the integer 1: every number setting refuses
    it with one line naming the key and its line, instead of running with 1 (or 0)."""
    file = tmp_path / "settings.yaml"
    text = "".join(f"{'  ' * depth}{part}:\n" for depth, part in enumerate(path[:-1]))
    text += f"{'  ' * (len(path) - 1)}{path[-1]}: {switch}\n"
    file.write_text(text)
    with pytest.raises(SettingsError) as caught:
        read_settings(file, AnswerSettings)
    assert str(caught.value).startswith(f"{file}:{len(path)}: {'.'.join(path)}: ")
    assert str(caught.value).endswith(f"(got {switch.title()})")
    with pytest.raises(SettingsError, match="got " + switch.title()):
        parse_assignments([f"{'.'.join(path)}={switch}"], AnswerSettings)


def test_extractive_top_passages_true_is_refused_as_no_integer(tmp_path):
    file = tmp_path / "settings.yaml"
    file.write_text("extractive:\n  top_passages: true\n")
    with pytest.raises(SettingsError) as caught:
        read_settings(file, AnswerSettings)
    assert str(caught.value) == (
        f"{file}:2: extractive.top_passages: input should be a valid integer (got True)"
    )


@pytest.mark.parametrize(
    ("assignment", "value"),
    [
        ("extractive.top_passages=3", 3),
        ("extractive.damping=1", 1),
        ("generator.train.learning_rate=3.0e-5", 3e-5),
        ("llm.openai.temperature=0", 0),
    ],
)
def test_integers_and_numbers_still_pass(assignment, value):
    settings = AnswerSettings.model_validate(parse_assignments([assignment], AnswerSettings))
    section, *rest = assignment.split("=")[0].split(".")
    found: Any = getattr(settings, section)
    for part in rest:
        found = getattr(found, part)
    assert found == value


@pytest.mark.parametrize("assignment", ["extractive.top_passages='3'", "extractive.top_passages=2.5"])
def test_integers_are_strict(assignment):
    with pytest.raises(SettingsError, match=r"extractive\.top_passages: input should be a valid integer"):
        parse_assignments([assignment], AnswerSettings)


def test_good_settings_pass_and_keep_their_values(tmp_path):
    file = tmp_path / "s.yaml"
    file.write_text(
        "retrieval:\n  retriever: dense\n  dense: {batch_size: 8}\nextractive:\n  max_words: auto\n"
    )
    assert read_settings(file, AnswerSettings)["retrieval"] == {
        "retriever": "dense",
        "dense": {"batch_size": 8},
    }
    assert parse_assignments(["generator.train.max_steps=3"], AnswerSettings) == {
        "generator": {"train": {"max_steps": 3}}
    }


def test_a_generator_file_may_be_the_section_alone_or_a_whole_settings_file(tmp_path):
    (tmp_path / "g.yaml").write_text("model: m\ntrain:\n  epochs: 1\n")
    (tmp_path / "a.yaml").write_text("generator:\n  model: m\n  train:\n    epochs: 1\n")
    assert read_generator_settings(tmp_path / "g.yaml") == read_generator_settings(tmp_path / "a.yaml")
    (tmp_path / "bad.yaml").write_text("model: m\ntrain:\n  epoch: 1\n")
    with pytest.raises(SettingsError, match=r"bad\.yaml:3: train\.epoch: unknown setting"):
        read_generator_settings(tmp_path / "bad.yaml")
    (tmp_path / "bad2.yaml").write_text("generator:\n  model: m\n  modle: n\n")
    with pytest.raises(SettingsError, match=r"bad2\.yaml:3: generator\.modle: unknown setting"):
        read_generator_settings(tmp_path / "bad2.yaml")


def test_the_prompt_passages_override_the_prompt_layout_not_the_generators():
    fmt = LLMSettings.from_settings({"prompt": {"passages": {"passage_sep": " | "}}}).prompt.passages
    assert (fmt.passage_sep, fmt.document_sep, fmt.document_prefix) == (" | ", "\n\n", "Document {n}:\n")


def test_settings_objects_are_frozen_and_round_trip():
    config = GeneratorConfig.from_settings({"model": "m", "train": {"epochs": 1}})
    with pytest.raises(ValueError, match="frozen"):
        config.model = "x"  # type: ignore[misc]
    assert GeneratorConfig.from_settings(config.to_dict()) == config


@pytest.mark.parametrize(
    ("model", "constructor"),
    [
        (BM25Options, "wikihowqa.retrieve.bm25:BM25Retriever.__init__"),
        (DenseOptions, "wikihowqa.retrieve.dense:DenseRetriever.from_settings"),
        (HybridOptions, "wikihowqa.retrieve.hybrid:HybridRetriever.from_settings"),
    ],
)
def test_retriever_options_mirror_their_constructors(model, constructor):
    """The section's defaults are the retrievers' own (the retrievers get only the keys a user gave)."""
    import importlib

    module, _, name = constructor.partition(":")
    target: Any = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    parameters = {
        n: p.default
        for n, p in inspect.signature(target).parameters.items()
        if n not in ("self", "cls", "executor")
    }
    defaults = {n: f.default for n, f in model.model_fields.items()}
    assert defaults == parameters


def run_cli(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "wikihowqa", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_the_answer_command_refuses_a_misspelt_key_in_one_line(tmp_path):
    file = tmp_path / "settings.yaml"
    file.write_text("retrieval:\n  mode: open\n  retreiver: bm25\n")
    result = run_cli("answer", tmp_path, "--system", "bm25+lead", "--config", file)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert re.search(r"settings\.yaml:3: retrieval\.retreiver: unknown setting \(expected one of", lines[0])
    result = run_cli("answer", tmp_path, "--system", "bm25+lead", "--set", "extractive.top_pasages=3")
    assert result.returncode == 2
    assert "--set 'extractive.top_pasages=3': extractive.top_pasages: unknown setting" in result.stderr


def test_the_answer_sections_defaults_are_the_functions_own():
    """The systems read these sections typed, so their defaults are the ones that run: the same as the
    extractive functions' and the lower bounds' own (``wikihowqa evaluate --lower-bounds`` uses those)."""
    from wikihowqa.generate import extractive, lower_bounds
    from wikihowqa.schema.settings import ExtractiveSettings, LowerBoundsSettings, OracleSettings

    def default(fn, name):
        return inspect.signature(fn).parameters[name].default

    e = ExtractiveSettings()
    assert e.top_passages == default(extractive.centrality, "top_passages")
    assert e.damping == default(extractive.centrality, "damping")
    assert e.lexrank_threshold == default(extractive.centrality, "threshold")
    assert e.per_passage == default(extractive.lead, "per_passage")
    assert OracleSettings().max_sentences == default(extractive.oracle, "max_sentences")
    assert LowerBoundsSettings().max_words == lower_bounds.DEFAULT_MAX_WORDS
    assert LowerBoundsSettings().seed == default(lower_bounds.random_train_answer, "seed")
