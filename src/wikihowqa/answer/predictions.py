"""A system's predictions files: where they go, and the ``.partial`` file an interrupted run resumes from."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import naming
from wikihowqa.core.records import Prediction
from wikihowqa.dataset.codecs import prediction_from_dict, prediction_to_dict
from wikihowqa.dataset.folder import DatasetFolder

PREDICTIONS_DIR = "predictions"


def default_output(folder: DatasetFolder, system: str, split: str) -> Path:
    suffix = "" if split == "test" else f".{split}"
    return folder.path / PREDICTIONS_DIR / f"{system}{suffix}.jsonl"


def partial_path(out: Path) -> Path:
    return out.with_name(out.name + ".partial")


def read_partial(path: Path) -> list[Prediction]:
    """Predictions of an interrupted run; a torn last line (the crash) is dropped, other damage reported."""
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            out.append(prediction_from_dict(json.loads(line)))
        except (json.JSONDecodeError, ValueError) as exc:
            if number >= len(lines) - 1:  # the last line: a write cut short
                break
            raise DatasetError(f"{path}:{number}: damaged partial predictions file ({exc})") from None
    return out


def append_predictions(path: Path, predictions: Sequence[Prediction]) -> None:
    """Predictions added to the partial file, on disk before the next batch starts."""
    with naming(path), path.open("a", encoding="utf-8") as fh:
        for p in predictions:
            fh.write(json.dumps(prediction_to_dict(p), ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
