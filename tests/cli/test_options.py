"""The options every command shares mean one thing each; renamed options keep their old name for a release."""

from __future__ import annotations

import json
import socket
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import typer

import wikihowqa.cli.answer as answer_cli
import wikihowqa.generate.seq2seq as seq2seq
from tests.components import RAY, require_module
from wikihowqa.cli import app
from wikihowqa.cli._options import ENCODER_DEFAULT, OVERWRITE_HELP, WORKERS_HELP, running_on
from wikihowqa.cli.parse import PARSE_WORKERS_HELP
from wikihowqa.embed import DEFAULT_MODEL
from wikihowqa.errors import WikihowqaError
from wikihowqa.executor import RAY_INSTALL, usable_cpus
from wikihowqa.generate.seq2seq import TrainResult
from wikihowqa.io import write_dataset_folder
from wikihowqa.records import Document, Example

COMMANDS = typer.main.get_command(app).commands  # type: ignore[attr-defined]


def _options(name: str) -> list[tuple[str, typer.core.TyperOption]]:
    """(command, option) for every command that has the option ``name``."""
    return [
        (command, param)
        for command, cmd in sorted(COMMANDS.items())
        for param in cmd.params
        if param.param_type_name == "option" and name in param.opts
    ]


def _dataset(root: Path) -> Path:
    examples = [Example(i, f"How to Do Thing {i}", f"Do thing {i}. Then rest.", (f"a{i}",)) for i in range(3)]
    docs = [Document(i, f"o{i}", f"a{i}", f"You should do thing {i} slowly.") for i in range(3)]
    return write_dataset_folder(root / "ds", examples, docs, {}).path


# --- renamed options: the old name works, and says what replaces it -----------------------------------


def _fake_training(monkeypatch) -> list:
    """``train`` without training: what reaches the trainer is recorded (training is tested in generate/)."""
    seen = []

    def fine_tune(dataset, config, **kwargs):
        seen.append(config)
        return TrainResult(Path(config.output_dir) / "final", None, 4, None, 2, 0)

    monkeypatch.setattr(seq2seq, "fine_tune", fine_tune)
    monkeypatch.setattr(answer_cli, "fine_tune", fine_tune, raising=False)  # imported by name there
    return seen


def test_train_output_dir_still_works_and_warns_that_out_replaces_it(cli, tmp_path, monkeypatch):
    seen = _fake_training(monkeypatch)
    config = tmp_path / "generator.yaml"
    config.write_text("generator:\n  model: some-model\n")
    old = cli("train", tmp_path, "--config", config, "--output-dir", tmp_path / "old")
    assert old.exit_code == 0, old.stderr
    assert Path(seen[-1].output_dir) == tmp_path / "old"
    assert old.lines == [
        "warning: --output-dir is deprecated and will be removed in the next release; use --out"
    ]
    new = cli("train", tmp_path, "--config", config, "--out", tmp_path / "new")
    assert new.exit_code == 0 and new.lines == [], new.stderr
    assert Path(seen[-1].output_dir) == tmp_path / "new"
    assert f"final model → {tmp_path / 'new' / 'final'}" in new.stdout.replace("\n", "")


def test_giving_a_renamed_option_by_both_names_is_one_error(cli, tmp_path, monkeypatch):
    _fake_training(monkeypatch)
    config = tmp_path / "generator.yaml"
    config.write_text("generator:\n  model: some-model\n")
    both = cli("train", tmp_path, "--config", config, "--out", tmp_path / "a", "--output-dir", tmp_path / "b")
    assert both.exit_code == 2
    assert both.lines[-1] == "error: --output-dir is the old name of --out: give only --out"


def test_deprecated_names_are_listed_in_help_with_their_replacement(cli):
    train = cli("train", "--help")
    assert train.exit_code == 0
    text = " ".join(train.stdout.replace("│", " ").split())
    assert "--output-dir" in text and "Deprecated (removed in the next release): use --out." in text


# --- --workers: batches at once; 0 and omitted are the one default rule ---------------------------------


class _Stop(WikihowqaError):
    """Raised by the recording executor: the test only needs what the command asked for."""


@pytest.mark.parametrize("command", ["parse", "stats", "evaluate"])
def test_workers_zero_and_omitted_both_ask_for_the_default_rule(command, cli, tmp_path, monkeypatch):
    """parse, stats and evaluate hand the same --workers value to the one executor rule."""
    import importlib

    module = importlib.import_module(f"wikihowqa.cli.{command}")
    asked = []

    @contextmanager
    def recording(kind, address, workers):
        asked.append(workers)
        raise _Stop("stopped")
        yield

    monkeypatch.setattr(module, "running_on", recording)
    dataset = _dataset(tmp_path)
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "index.jsonl").write_text("")
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"article_id": 0, "system": "s", "answer": "Do it."}) + "\n")
    extra = {"parse": ["--raw", raw], "stats": [], "evaluate": [predictions, "--split", "all"]}[command]
    for workers, expected in ((None, None), ("0", None), ("3", 3)):
        given = [] if workers is None else ["--workers", workers]
        result = cli(command, dataset, *extra, *given)
        assert result.lines[-1:] == ["error: stopped"], result.stderr
        assert asked[-1] == expected
    negative = cli(command, dataset, *extra, "--workers", "-1")
    assert negative.exit_code == 2 and "--workers" in negative.stderr and len(asked) == 3


def _workers_conform(option) -> bool:
    return option.help == WORKERS_HELP and option.default is None


def _seed_conforms(option) -> bool:
    return (
        option.default == 0
        and option.type_descriptor.annotation is int
        and (option.help or "").startswith("Seed of ")
        and (option.help or "").endswith("; the same seed on the same input, the same output.")
    )


def _model_conforms(option) -> bool:
    return ": a Hugging Face name or a local folder (default: " in (option.help or "")


def _overwrite_conforms(option) -> bool:
    return option.is_flag and option.default is False and option.help == OVERWRITE_HELP


def _out_conforms(option) -> bool:
    return (option.help or "").startswith("Where to write ") and "(default: " in (option.help or "")


def test_what_the_commands_hand_over_is_the_one_worker_count_rule():
    """None (0 or omitted): one process per usable CPU; N: N processes."""
    with running_on("local", None, None) as default, running_on("local", None, 3) as three:
        assert (default.parallelism, three.parallelism) == (usable_cpus(), 3)


def test_every_workers_option_has_the_one_meaning():
    found = _options("--workers")
    assert {"parse", "stats", "evaluate", "split", "audit", "answer"} <= {c for c, _ in found}
    for command, option in found:
        if command == "parse":  # the same rule, but pages are never parsed in the command's own process
            assert option.help == PARSE_WORKERS_HELP and option.default is None
            assert "(1: all in this process)" in WORKERS_HELP and "1: one worker process" in option.help
            continue
        assert _workers_conform(option), command


def test_every_seed_is_an_integer_defaulting_to_0_that_makes_runs_repeatable():
    found = _options("--seed")
    assert {c for c, _ in found} >= {
        "deteriorate", "evaluate", "meta-evaluate", "replay-site", "simulate-judgments", "split", "tasks"
    }  # fmt: skip
    for command, option in found:
        assert _seed_conforms(option), command


def test_every_model_option_takes_a_name_or_a_folder_and_says_its_default():
    found = _options("--model")
    assert {c for c, _ in found} >= {"answer", "audit", "split", "stats", "tasks", "train"}
    for command, option in found:
        assert _model_conforms(option), command


def test_the_encoder_commands_default_to_the_one_default_model():
    """The help names embed.DEFAULT_MODEL without importing it at start-up: the two must agree."""
    assert ENCODER_DEFAULT.startswith(f"{DEFAULT_MODEL},")
    for command in ("split", "audit", "stats"):
        option = dict(_options("--model"))[command]
        assert option.default is None and ENCODER_DEFAULT in option.help


def test_every_overwrite_replaces_an_existing_output_and_refuses_without_it():
    found = _options("--overwrite")
    assert {c for c, _ in found} >= {
        "deteriorate", "export-hub", "export-judgments", "export-lm-eval", "hydrate", "import",
        "simulate-judgments", "tasks", "view",
    }  # fmt: skip
    for command, option in found:
        assert _overwrite_conforms(option), command


def test_every_out_option_says_where_its_output_goes_by_default():
    found = _options("--out")
    assert {c for c, _ in found} >= {
        "analyze", "answer", "demo", "deteriorate", "evaluate", "export-judgments", "hydrate",
        "meta-evaluate", "simulate-judgments", "stats", "train", "view",
    }  # fmt: skip
    for command, option in found:
        assert _out_conforms(option), command


def test_import_refuses_a_folder_with_files_and_replaces_it_with_overwrite(cli, tmp_path, real_examples_dir):
    target = tmp_path / "ds"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    qa = real_examples_dir / "qa.jsonl"
    refused = cli("import", target, "--qa", qa)
    assert refused.exit_code == 2 and len(refused.lines) == 1 and str(target) in refused.lines[0]
    assert (target / "notes.txt").read_text() == "mine"
    replaced = cli("import", target, "--qa", qa, "--overwrite")
    assert replaced.exit_code == 0, replaced.stderr
    assert not (target / "notes.txt").exists() and (target / "manifest.json").is_file()


# --- --device, --executor, --ray-address: checked before any work ---------------------------------------


def test_a_misspelt_device_stops_the_command_before_any_work(cli, tmp_path):
    for command in (["split", tmp_path], ["answer", tmp_path, "-s", "bm25+lead"]):
        result = cli(*command, "--device", "gpu")
        assert result.exit_code == 2 and len(result.lines) == 1, result.output
        assert "--device 'gpu'" in result.stderr


def test_executor_ray_without_ray_installed_says_how_to_install_it(cli, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    result = cli("stats", _dataset(tmp_path), "--executor", "ray")
    assert result.exit_code == 2 and result.lines == [f"error: {RAY_INSTALL}"]


def test_an_unreachable_ray_address_is_one_line_at_once(cli, tmp_path):
    require_module("ray", RAY, install="pip install 'wikihowqa[ray]'")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    result = cli("split", _dataset(tmp_path), "--executor", "ray", "--ray-address", f"127.0.0.1:{port}")
    assert result.exit_code == 2 and len(result.lines) == 1, result.output
    assert result.lines[0].startswith(f"error: cannot reach the Ray cluster at 127.0.0.1:{port}")
    assert time.monotonic() - started < 15
