"""The docs site's reference pages, generated from the code so they cannot drift from it.

``cli_reference`` walks the click command typer builds (every command, argument and option, with its help
and default), ``settings_reference`` every settings class (the pydantic sections of ``answer``/``train``
settings files, and the dataclass settings of the other stages, found by walking the package), and
``formats_reference`` the row models of the dataset files, with the JSON Schema of a predictions row
(``prediction_schema``). ``scripts/docs_hooks.py`` writes them into the site at build time;
``tests/docs`` checks them against the parser and the schema.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

#: Modules the settings walk never imports: servers and entry points (importing them starts nothing, but
#: they hold no settings and pull in heavy optional dependencies).
SKIP_MODULES = ("wikihowqa.__main__", "wikihowqa.humaneval.app", "wikihowqa.cli")
#: Classes whose name ends so are settings (``BuildSettings``, ``GroundingConfig``).
SETTINGS_SUFFIXES = ("Settings", "Config", "Options")


def _cell(text: object) -> str:
    """Text for one Markdown table cell: one line, pipes and angle brackets escaped."""
    parts = " ".join(str(text).split()).split("`")
    # outside code spans, "<system>" would be read as an HTML tag and "|" end the cell; inside them (which
    # Python-Markdown's tables respect) both are shown as typed
    outside = (p.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;") for p in parts[::2])
    parts[::2] = list(outside)
    return "`".join(parts)


def _code(text: object) -> str:
    body = " ".join(str(text).split())
    return f"`` {body} ``" if "`" in body else f"`{body}`"


# --------------------------------------------------------------------------- the command line
# typer builds its commands on its own copy of click (``typer.core``): parameters are read by attribute.


def root_command() -> Any:
    """The command group behind ``wikihowqa``, as typer builds it for the entry point."""
    import typer.main

    from wikihowqa.cli import app

    return typer.main.get_command(app)


def commands() -> dict[str, Any]:
    """Every command by name, in the order ``wikihowqa --help`` lists them."""
    group = root_command()
    ctx = group.make_context("wikihowqa", [], resilient_parsing=True)
    return {name: group.get_command(ctx, name) for name in group.list_commands(ctx)}


def is_argument(param: Any) -> bool:
    from typer.core import TyperArgument

    return isinstance(param, TyperArgument)


def param_names(param: Any) -> list[str]:
    """``--out``, ``-o``, ``--no-grounding``: every spelling a user may type (an argument: its NAME)."""
    if is_argument(param):
        return [(param.metavar or param.name).upper()]
    return [*param.opts, *param.secondary_opts]


def _default(param: Any) -> str:
    if param.required:
        return "required"
    default = param.default
    if callable(default):
        return "computed"
    if getattr(param, "is_flag", False) and not param.secondary_opts:
        return "on" if default else "off"
    if param.secondary_opts:
        return _code(param.opts[0] if default else param.secondary_opts[0])
    if default is None or default == ():
        return "—"
    if isinstance(default, list | tuple):
        return _code(" ".join(map(str, default)))
    return _code(getattr(default, "value", default))


def _usage(name: str, command: Any) -> str:
    pieces = ["[OPTIONS]"]
    for param in command.params:
        if not is_argument(param):
            continue
        word = param_names(param)[0] + ("..." if param.nargs == -1 else "")
        pieces.append(word if param.required else f"[{word}]")
    return " ".join(pieces)


def _help(text: str | None) -> str:
    """A command's help as Markdown paragraphs (click's ``\\b`` markers dropped)."""
    paragraphs = [p.replace("\b", "").strip() for p in (text or "").split("\n\n")]
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p)


def cli_reference() -> str:
    """The command-line reference page: every command, argument and option, with its help and default."""
    from wikihowqa import __version__

    group = root_command()
    lines = [
        "# Command-line reference",
        "",
        f"Generated from the commands' own definitions (wikihowqa {__version__}); `wikihowqa COMMAND --help` "
        "prints the same. Options that several commands take mean the same everywhere: `--out` is where "
        "the result goes, `--workers` the batches at once, `--seed` the seed of every random choice, "
        "`--model` a Hugging Face name or a local folder, `--overwrite` replaces a finished output (without "
        "it an existing output is refused) and `--fresh` restarts a resumable job. A renamed option keeps "
        "its old name for one release, marked *deprecated* below.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    found = commands()
    for name, command in found.items():
        lines.append(f"| [`{name}`](#{name}) | {_cell(command.get_short_help_str(limit=120))} |")
    lines += ["", "## Options of `wikihowqa` itself", "", _params_table(group.params), ""]
    for name, command in found.items():
        lines += [f"## `wikihowqa {name}` {{#{name}}}", "", _help(command.help), ""]
        lines += ["```text", f"wikihowqa {name} {_usage(name, command)}", "```", ""]
        lines += [_params_table(command.params), ""]
    return "\n".join(lines)


def _params_table(params: list[Any]) -> str:
    rows = ["| argument or option | what it means | default |", "|---|---|---|"]
    for param in params:
        names = ", ".join(_code(n) for n in param_names(param))
        help_text = getattr(param, "help", None) or ""
        if param.hidden:
            help_text = f"*Deprecated.* {help_text}"
        if not is_argument(param) and not getattr(param, "is_flag", False):
            names += f" {_code(param.metavar or param.name.upper())}"
        rows.append(f"| {names} | {_cell(help_text) or '—'} | {_default(param)} |")
    return "\n".join(rows)


# --------------------------------------------------------------------------- settings


def _comments(cls: type) -> dict[str, str]:
    """Each field's comment in the class's source: a ``#:`` block above it or a ``#`` after it."""
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    notes: dict[str, str] = {}
    above: list[str] = []
    for line in source.splitlines()[1:]:
        stripped = line.strip()
        if stripped.startswith("#:"):
            above.append(stripped[2:].strip())
            continue
        match = re.match(r"(\w+)\s*:[^=]*?(?:=.*?)?(?:#\s*(.*))?$", stripped)
        if match and not stripped.startswith(("def ", "class ", "@", "return")):
            text = " ".join([*above, match.group(2) or ""]).strip()
            if text:
                notes.setdefault(match.group(1), text)
        above = []
    return notes


def _type_name(annotation: Any) -> str:
    text = annotation.__name__ if inspect.isclass(annotation) else str(annotation)
    text = re.sub(r"Annotated\[([^,\]]+)[^\]]*\]", r"\1", text)
    text = re.sub(r"\b(?:typing|pathlib|collections\.abc|wikihowqa(?:\.\w+)*)\.", "", text)
    return _code(text.replace("NoneType", "None"))


def _default_of(value: Any) -> str:
    if value is dataclasses.MISSING:
        return "required"
    if isinstance(value, BaseModel):
        return "see below"
    if dataclasses.is_dataclass(value):
        return type(value).__name__
    return _code(repr(value))


def section_keys(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, Any, type[BaseModel]]]:
    """Every key of a pydantic settings model, dotted (``llm.openai.model``), with its field info and
    the model that declares it; a nested section's keys follow it."""
    for name, info in model.model_fields.items():
        key = f"{prefix}{name}"
        nested = [m for m in _models_in(info.annotation) if issubclass(m, BaseModel)]
        if nested:  # a section (or an optional one: ``retrieval.bm25``)
            yield from section_keys(nested[0], key + ".")
        else:
            yield key, info, model


def _models_in(annotation: Any) -> list[type]:
    if inspect.isclass(annotation):
        return [annotation]
    return [m for arg in getattr(annotation, "__args__", ()) for m in _models_in(arg)]


def example_settings_files() -> list[Path]:
    """The settings files shipped as examples (``wikihowqa/schema/examples``), wherever the schema lives."""
    from wikihowqa.schema import settings

    folder = Path(settings.__file__).parent / "examples"
    return sorted(p for p in folder.glob("*") if p.suffix in {".yaml", ".yml", ".toml", ".json"})


def settings_classes() -> list[type]:
    """The dataclass settings of every stage: classes named ``*Settings``/``*Config``/``*Options`` that are
    dataclasses, defined in a module of the package (found by importing each module)."""
    import wikihowqa

    found: dict[str, type] = {}
    for module_info in pkgutil.walk_packages(wikihowqa.__path__, "wikihowqa."):
        name = module_info.name
        if name.startswith(SKIP_MODULES) or name.endswith(".__main__"):  # a __main__ runs when imported
            continue
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional extra (ray, nncf) not installed: its settings are elsewhere
            continue
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and obj.__module__ == name
                and obj.__name__.endswith(SETTINGS_SUFFIXES)
                and dataclasses.is_dataclass(obj)
            ):
                found[f"{name}.{obj.__name__}"] = obj
    return [found[k] for k in sorted(found)]


def settings_reference() -> str:
    """The settings reference page: every key of a settings file, then every stage's dataclass settings."""
    from wikihowqa.schema.settings import AnswerSettings

    lines = [
        "# Settings reference",
        "",
        "Generated from the settings classes themselves. A settings file (`--config FILE`: YAML, TOML or "
        "JSON) and `--set key=value` take the keys of the first table; a key a section does not know is "
        "refused in one line naming it. The other stages' settings are set by their command's options (see "
        "the [command-line reference](cli.md)) and recorded in each output's `manifest.json`.",
        "",
        "## `answer` and `train` settings files",
        "",
        "The sections of `wikihowqa answer --config` and `wikihowqa train --config` "
        "(`wikihowqa.schema.settings.AnswerSettings`).",
        "",
        "| key | type | default | what it means |",
        "|---|---|---|---|",
    ]
    for key, info, owner in section_keys(AnswerSettings):
        field = key.rsplit(".", 1)[-1]
        default = info.get_default(call_default_factory=True)
        lines.append(
            f"| `{key}` | {_type_name(info.annotation)} | {_cell(_default_of(default))} | "
            f"{_cell(_comments(owner).get(field, ''))} |"
        )
    lines += ["", "### Example settings files", ""]
    for path in example_settings_files():
        lines += [
            f"`{path.name}` ships with the package "
            f"(`wikihowqa/{path.relative_to(path.parents[2]).as_posix()}`):",
            "",
            f"```{path.suffix.lstrip('.')}",
            path.read_text(encoding="utf-8").rstrip(),
            "```",
            "",
        ]
    lines += ["", "## Every stage's settings", ""]
    for cls in settings_classes():
        doc = _help((inspect.getdoc(cls) or "").split("\n\n")[0])
        doc = "" if doc.startswith(f"{cls.__name__}(") else doc  # the dataclass's generated signature
        lines += [f"### `{cls.__name__}`", "", f"`{cls.__module__}.{cls.__name__}`. {doc}", ""]
        lines += ["| key | type | default | what it means |", "|---|---|---|---|"]
        notes = _comments(cls)
        for f in dataclasses.fields(cls):
            default: Any = f.default
            if f.default_factory is not dataclasses.MISSING:
                default = f.default_factory()
            lines.append(
                f"| `{f.name}` | {_type_name(f.type)} | {_cell(_default_of(default))} | "
                f"{_cell(notes.get(f.name, ''))} |"
            )
        lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------- file formats


def prediction_schema() -> dict[str, Any]:
    """The JSON Schema of one predictions row (``predictions/<system>.jsonl``), from its row model."""
    from wikihowqa.schema.rows import PREDICTION_ROW

    schema = PREDICTION_ROW.json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "predictions.schema.json",
        "description": "One line of a wikihowqa predictions file (predictions/<system>.jsonl).",
        **schema,
    }


def formats_reference() -> str:
    """The file-formats page: each dataset file's row model as a field table and its JSON Schema."""
    from wikihowqa.schema import rows

    models = [
        ("qa.jsonl", "example", rows.EXAMPLE_ROW, rows.ExampleRow),
        ("documents.jsonl", "document", rows.DOCUMENT_ROW, rows.DocumentRow),
        ("predictions/&lt;system&gt;.jsonl", "prediction", rows.PREDICTION_ROW, rows.PredictionRow),
        ("a prediction's `passages` item", "used-passage", None, rows.UsedPassageRow),
    ]
    lines = [
        "# File formats",
        "",
        "Generated from the row models the readers validate every line with (`wikihowqa.schema.rows`). One "
        "JSON object a line; a bad line stops the reader with `file:line: problem`. Fields a row carries "
        "beyond these are kept and written back untouched. The human evaluation's files are described in "
        "[human evaluation files](../humaneval-formats.md).",
        "",
    ]
    for title, anchor, adapter, typed in models:
        lines += [f"## {title} {{#{anchor}}}", "", _help(inspect.getdoc(typed)), ""]
        lines += ["| field | required | JSON type |", "|---|---|---|"]
        props = (adapter or rows.TypeAdapter(typed)).json_schema()
        required = set(props.get("required", []))
        for field, spec in props["properties"].items():
            lines.append(
                f"| `{field}` | {'yes' if field in required else 'no'} | {_cell(_json_type(spec))} |"
            )
        lines.append("")
    lines += [
        "## Validate your own predictions file {#validate}",
        "",
        "[`predictions.schema.json`](predictions.schema.json) is the JSON Schema (2020-12) of one line of a "
        "predictions file. With the `jsonschema` package:",
        "",
        "```python",
        "import json, jsonschema",
        "schema = json.load(open('predictions.schema.json'))",
        "for line in open('predictions/my-system.jsonl'):",
        "    jsonschema.validate(json.loads(line), schema)",
        "```",
        "",
        "```json",
        json.dumps(prediction_schema(), indent=2),
        "```",
        "",
    ]
    return "\n".join(lines)


def _json_type(spec: dict[str, Any]) -> str:
    if "anyOf" in spec:
        return " or ".join(_json_type(s) for s in spec["anyOf"])
    if spec.get("type") == "array":
        return f"array of {_json_type(spec.get('items', {}))}" if spec.get("items") else "array"
    if "$ref" in spec:
        return "object (below)"
    return str(spec.get("type", "any"))
