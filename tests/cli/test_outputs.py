"""Spec: no command writes its output over, around or into what it reads (issue 32, item 1).

``view DS --out DS --overwrite`` used to replace the dataset with the site (exit 0). Every command that
writes an output is listed from the CLI parser; each of its inputs is given, and the output is set to
that input, to its parent folder and to a path inside it: one line naming both, exit 2, input untouched.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer.core
import typer.main

from wikihowqa.cli import app
from wikihowqa.cli._outputs import declared_writes

COMMANDS = typer.main.get_command(app).commands  # type: ignore[attr-defined]

#: Every command that writes an output, and the parameter that names it (from their --help texts).
WRITERS = {
    "build": "out_dir", "hydrate": "out_dir", "import": "out_dir", "stats": "out_dir",
    "answer": "out_file", "train": "out_dir", "evaluate": "out_dir", "deteriorate": "out_file",
    "tasks": "out_dir", "simulate-judgments": "out_file", "analyze": "out_dir",
    "export-judgments": "out_file", "study-predictions": "out_dir", "meta-evaluate": "out_dir",
    "export-lm-eval": "out_dir", "export-hub": "out_dir", "view": "out_dir", "demo": "out_dir",
}  # fmt: skip

#: Where a command writes by design, per its --help: these (command, input, relation) are its default.
BY_DESIGN = {
    ("hydrate", "dataset", "is"),  # --out default: DATASET itself
    ("hydrate", "dataset", "inside"),
    ("meta-evaluate", "report_dir", "is"),  # default: REPORT
    ("meta-evaluate", "report_dir", "inside"),
    ("analyze", "judgments", "parent"),  # default: the judgments file's folder
}


def test_every_command_with_an_output_parameter_declares_its_output_and_inputs():
    with_out = {
        name
        for name, command in COMMANDS.items()
        if any(p.name in ("out_dir", "out_file") or "--out" in getattr(p, "opts", ()) for p in command.params)
    }
    declared = {name: declared_writes(command.callback) for name, command in COMMANDS.items()}
    assert with_out <= set(WRITERS)
    assert {name: w.out for name, w in declared.items() if w is not None} == WRITERS


def _cases():
    for name in sorted(WRITERS):
        writes = declared_writes(COMMANDS[name].callback)
        inputs = list(writes.inputs) if writes else []
        if writes is not None and writes.extra is not None:
            inputs.append("<extra>")
        hidden = {
            p.name
            for p in COMMANDS[name].params
            if getattr(p, "hidden", False) or getattr(p, "rich_help_panel", None) == "Deprecated"
        }
        for source in inputs:
            if source in hidden:  # a deprecated spelling (it warns first): its new name is the case
                continue
            for relation in ("is", "parent", "inside"):
                if (name, source, relation) not in BY_DESIGN:
                    yield pytest.param(name, source, relation, id=f"{name}-{source}-{relation}")


def _argv(
    command: typer.core.TyperCommand, name: str, source: str, value: Path, out: Path, tmp: Path
) -> list[str]:
    """The command's arguments: ``value`` for ``source``, ``out`` for its output, placeholders else."""
    out_param = WRITERS[name]
    argv: list[str] = [name]
    for param in command.params:
        given = value if param.name == source else out if param.name == out_param else None
        if isinstance(param, typer.core.TyperArgument):
            argv.append(str(given if given is not None else tmp / "elsewhere" / f"other-{param.name}"))
        elif given is not None:
            argv += [max(param.opts, key=len), str(given)]
        elif param.required:
            argv += [max(param.opts, key=len), "x"]
    return argv


@pytest.mark.parametrize(("name", "source", "relation"), list(_cases()))
def test_an_output_that_is_holds_or_lies_inside_an_input_is_refused(
    cli, tmp_path, monkeypatch, name, source, relation
):
    home = tmp_path / "home"
    value = home / "input"
    value.mkdir(parents=True)
    (value / "qa.jsonl").write_text('{"kept": true}\n', encoding="utf-8")
    if source == "<extra>":  # the demo reads its embedded corpus: a copy stands in for it here
        import wikihowqa.demo.paths

        monkeypatch.setattr(wikihowqa.demo.paths, "corpus_path", lambda: value)
    out = {"is": value, "parent": home, "inside": value / "inner"}[relation]
    result = cli(*_argv(COMMANDS[name], name, source, value, out, tmp_path))
    assert result.exit_code == 2, result.output
    assert len(result.lines) == 1 and result.lines[0].startswith("error:"), result.stderr
    word = {"is": " is the input ", "parent": " holds the input ", "inside": " lies inside the input "}
    assert word[relation] in result.lines[0] and str(value) in result.lines[0]
    param = next(p for p in COMMANDS[name].params if p.name == WRITERS[name])
    label = "--out" if isinstance(param, typer.core.TyperOption) else WRITERS[name].upper()
    assert result.lines[0].startswith(f"error: {label} {out} ")  # the output as the user typed its name
    assert (value / "qa.jsonl").read_text(encoding="utf-8") == '{"kept": true}\n'
    assert sorted(p.name for p in home.iterdir()) == ["input"]


def test_view_over_its_own_dataset_keeps_the_dataset(cli, small_dataset, tmp_path):
    """The reported loss: `view DS --out DS --overwrite` and `--out` the dataset's parent."""
    before = sorted(p.name for p in small_dataset.iterdir())
    for target in (small_dataset, small_dataset.parent):
        result = cli("view", small_dataset, "--out", target, "--overwrite")
        assert result.exit_code == 2 and "DATASET" in result.lines[0], result.output
    assert sorted(p.name for p in small_dataset.iterdir()) == before


def test_the_default_place_inside_an_input_stays_allowed_when_spelled_out(cli, small_dataset):
    """--out DATASET/site is where view writes anyway: naming it is no overlap."""
    result = cli("view", small_dataset, "--out", small_dataset / "site")
    assert result.exit_code == 0, result.output
    assert (small_dataset / "site" / "index.html").is_file()
