"""Settings files (YAML, TOML or JSON) → plain dicts; a bad file is one clear error naming it."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wikihowqa.errors import SettingsError


def read_settings(path: Path | str | None) -> dict[str, Any]:
    """The mapping in a ``.yaml``/``.yml``, ``.toml`` or ``.json`` file (``{}`` for ``None``)."""
    if path is None:
        return {}
    path = Path(path)
    if not path.is_file():
        raise SettingsError(f"{path}: no such settings file")
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix in {".yaml", ".yml"}:
            import yaml

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
    return dict(data)


def merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` on top of ``base``, nested mappings merged key by key."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def parse_assignments(pairs: list[str]) -> dict[str, Any]:
    """``["generate.num_beams=2", "model=x"]`` → nested dict; values are parsed as YAML scalars."""
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise SettingsError(f"--set {pair!r}: expected KEY=VALUE")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            value = raw
        node = out
        parts = key.strip().split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise SettingsError(f"--set {pair!r}: {part!r} is both a value and a section")
        node[parts[-1]] = value
    return out
