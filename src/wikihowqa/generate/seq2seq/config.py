"""The generator's settings (the ``[generator]`` section's models) and the file saved beside a model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wikihowqa.schema.settings import GenerateSettings, GeneratorConfig, InputFormat, TrainSettings

#: Written next to a trained model: the settings its inputs were built with.
GENERATOR_SETTINGS_FILE = "wikihowqa-generator.json"
ARCHITECTURES = ("auto", "seq2seq", "causal")

__all__ = [
    "ARCHITECTURES",
    "GENERATOR_SETTINGS_FILE",
    "GenerateSettings",
    "GeneratorConfig",
    "InputFormat",
    "TrainSettings",
    "saved_settings",
]


def saved_settings(model_path: str | Path) -> dict[str, Any]:
    """Settings stored next to a model trained here (empty for any other model)."""
    path = Path(model_path) / GENERATOR_SETTINGS_FILE
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))
