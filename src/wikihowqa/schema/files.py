"""Settings files (YAML, TOML or JSON) and ``--set KEY=VALUE`` → mappings checked by the section models.

A bad file is one error naming it; a bad setting in it is ``file:line: section.key: problem``; a bad
``--set`` names the assignment. The line is found in the file's text (YAML: the parser's marks; TOML and
JSON: the key's path rebuilt from tables and braces), since tomllib and json keep no positions.
"""

from __future__ import annotations

import contextlib
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from wikihowqa.core.errors import SettingsError
from wikihowqa.schema.base import check
from wikihowqa.schema.settings import AnswerSettings, GeneratorConfig


def read_settings(path: Path | str | None, model: type[BaseModel] | None = None) -> dict[str, Any]:
    """The mapping in a ``.yaml``/``.yml``, ``.toml`` or ``.json`` file (``{}`` for ``None``), checked
    against ``model`` when one is given."""
    if path is None:
        return {}
    path = Path(path)
    if not path.is_file():
        raise SettingsError(f"{path}: no such settings file")
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix in {".yaml", ".yml"}:
            data = yaml.safe_load(text)
        elif path.suffix == ".toml":
            data = tomllib.loads(text)
        elif path.suffix == ".json":
            data = json.loads(text)
        else:
            raise SettingsError(f"{path}: unsupported settings file type (expected .yaml, .toml or .json)")
    except SettingsError:
        raise
    except Exception as exc:  # yaml, tomllib and json each raise their own error types
        raise SettingsError(f"{path}: not a valid settings file ({str(exc).splitlines()[0]})") from None
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise SettingsError(f"{path}: the settings file must hold a mapping of names to values")
    if model is not None:
        check(model, data, str(path), line_of=lambda keys: key_line(text, path.suffix, keys))
    return dict(data)


def read_generator_settings(path: Path | str) -> dict[str, Any]:
    """The ``[generator]`` section of an answer-settings file, or a whole file of generator settings."""
    raw = read_settings(path)
    read_settings(path, AnswerSettings if "generator" in raw else GeneratorConfig)
    return dict(raw.get("generator", raw))


def merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` on top of ``base``, nested mappings merged key by key."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def parse_assignments(pairs: Sequence[str], model: type[BaseModel] | None = None) -> dict[str, Any]:
    """``["generate.num_beams=2", "model=x"]`` → nested dict; values are parsed as YAML scalars. With a
    ``model``, each assignment is checked on its own, so an error names the ``--set`` that caused it."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise SettingsError(f"--set {pair!r}: expected KEY=VALUE")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            value = raw
        parts = key.strip().split(".")
        if model is not None:
            one: Any = value
            for part in reversed(parts):
                one = {part: one}
            check(model, one, f"--set {pair!r}")
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise SettingsError(f"--set {pair!r}: {part!r} is both a value and a section")
        node[parts[-1]] = value
    return out


# --------------------------------------------------------------------------- lines of keys


def key_line(text: str, suffix: str, keys: Sequence[str]) -> int | None:
    """The 1-based line of the setting at ``keys`` (or of its nearest enclosing section) in a file's text."""
    if not keys:
        return None
    if suffix in {".yaml", ".yml"}:
        found = _yaml_lines(text)
    elif suffix == ".toml":
        found = _toml_lines(text)
    else:
        found = _json_lines(text)
    for n in range(len(keys), 0, -1):
        if (line := found.get(tuple(keys[:n]))) is not None:
            return line
    return None


def _yaml_lines(text: str) -> dict[tuple[str, ...], int]:
    lines: dict[tuple[str, ...], int] = {}

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                here = (*path, str(key.value))
                lines.setdefault(here, key.start_mark.line + 1)
                walk(value, here)

    with contextlib.suppress(yaml.YAMLError):  # already parsed once: only a stranger file fails here
        walk(yaml.compose(text, Loader=yaml.SafeLoader), ())
    return lines


_TOML_TABLE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_PART = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_TOML_KEY = re.compile(rf"^\s*({_TOML_PART}(?:\s*\.\s*{_TOML_PART})*)\s*=")


def _toml_key(dotted: str) -> tuple[str, ...]:
    parts = re.findall(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""", dotted)
    return tuple(p.strip("\"'") for p in parts)


def _toml_lines(text: str) -> dict[tuple[str, ...], int]:
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        if match := _TOML_TABLE.match(line):
            table = _toml_key(match.group(1))
            for n in range(1, len(table) + 1):
                lines.setdefault(table[:n], number)
        elif match := _TOML_KEY.match(line):
            key = (*table, *_toml_key(match.group(1)))
            for n in range(len(table) + 1, len(key) + 1):
                lines.setdefault(key[:n], number)
            inline = line[match.end() :]  # an inline table's keys: key = { a = 1, b = 2 }
            for inner in re.finditer(r"""([A-Za-z0-9_-]+|"[^"]*")\s*=""", inline):
                lines.setdefault((*key, inner.group(1).strip('"')), number)
    return lines


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


def _json_lines(text: str) -> dict[tuple[str, ...], int]:
    """Each key's path and line, from the text's strings and brackets (a JSON file already parsed)."""
    lines: dict[tuple[str, ...], int] = {}
    stack: list[str | None] = []  # the key each open object is under; None for arrays and the top
    path: list[str] = []
    pending: str | None = None
    last: str | None = None
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            key = pending if last == ":" else None
            stack.append(key)
            if key is not None:
                path.append(key)
            pending = None
        elif token in "}]":
            if stack and stack.pop() is not None:
                path.pop()
        elif token == ":" and last is not None and last.startswith('"'):
            pending = json.loads(last)
            lines.setdefault((*path, pending), text.count("\n", 0, match.start()) + 1)
        last = token
    return lines
