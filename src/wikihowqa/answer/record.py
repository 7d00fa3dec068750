"""What decides a predictions file's answers, recorded beside it so that a resume never mixes two runs.

``<out>.run.json`` holds the system, the split, the resolved settings (after ``--config``, the shortcuts and
``--set``; model, mode, prompt and encoder options are among them), the encoder as it runs here (backend and
precision after ``auto``) and a digest of the documents. A rerun resumes only when its record is the same;
``--limit``, ``--workers`` and ``--executor`` are not in it (they change which questions, or where, not
how). A file from before records existed resumes with a warning, and gets the record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.core.files import write_json
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.schema.settings import AnswerSettings, DenseOptions

RECORD_VERSION = 1

#: Systems that encode no sentence: the encoder's backend and precision do not change their answers.
_NO_ENCODER = frozenset(
    {"bm25+lead", "bm25+textrank", "bm25+lexrank", "oracle", "copy-top-passages", "random-train-answer",
     "llm-qonly"}
)  # fmt: skip


def record_path(out: Path) -> Path:
    return out.with_name(out.name + ".run.json")


def documents_digest(folder: DatasetFolder) -> str | None:
    """SHA-256 of the document part's file: answers read the documents, so other documents, other answers."""
    try:
        path = folder.documents_path
    except DatasetError:  # a system that reads no documents (llm-qonly) runs without a document part
        return None
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return f"sha256:{digest.hexdigest()}"


def _encoder(system: str, typed: AnswerSettings, device: str | None) -> dict[str, str] | None:
    if system in _NO_ENCODER:
        return None
    from wikihowqa.encoders.embed import resolve_backend
    from wikihowqa.runtime.device import resolve_device

    retrieval = typed.retrieval
    hybrid = system.startswith("hybrid") or retrieval.retriever == "hybrid"
    dense = (retrieval.hybrid.dense if hybrid and retrieval.hybrid else retrieval.dense) or DenseOptions()
    device = dense.device or device
    backend = resolve_backend(dense.backend, device)
    if backend == "torch":  # wikihowqa.runtime.device: float16 for retrieval on CUDA, float32 on the CPU
        return {"backend": "torch", "precision": "f16" if resolve_device(device) == "cuda" else "f32"}
    from wikihowqa.encoders.openvino_encoder import cpu_precision

    return {"backend": backend, "precision": cpu_precision(dense.precision)}


def run_record(
    folder: DatasetFolder, system: str, split: str, typed: AnswerSettings, device: str | None
) -> dict[str, Any]:
    """The record of a run about to answer (see the module doc)."""
    return {
        "version": RECORD_VERSION,
        "system": system,
        "split": split,
        "settings": typed.model_dump(mode="json"),
        "encoder": _encoder(system, typed, device),
        "documents": documents_digest(folder),
    }


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(_flat(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: value}


def differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """``key: old → new`` for every leaf that differs (settings under their own dotted names)."""
    before, after = _flat({k: v for k, v in old.items() if k != "version"}), _flat(new)
    after.pop("version", None)
    keys = sorted(set(before) | set(after), key=lambda k: (k.startswith("settings."), k))
    shown = []
    for key in keys:
        if before.get(key, "(none)") != after.get(key, "(none)"):
            name = key.removeprefix("settings.")
            shown.append(f"{name}: {before.get(key, '(none)')} → {after.get(key, '(none)')}")
    return shown


def check_resume(out: Path, earlier: bool, record: dict[str, Any], warn: Callable[[str], None]) -> None:
    """Refuse to resume ``out`` (``earlier``: it or its partial file holds answers) under another record.

    A file without a record (written before records existed) resumes with a one-line ``warn``.
    """
    path = record_path(out)
    if not earlier:
        return
    if not path.is_file():
        warn(
            f"{out} has no record of the settings it was answered with (written before records existed): "
            "resuming as if they were these; --fresh answers anew"
        )
        return
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: damaged run record ({exc}); --fresh answers anew") from None
    found = differences(old if isinstance(old, dict) else {}, record)
    if found:
        more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
        raise SettingsError(
            f"{out} was answered under other settings ({'; '.join(found[:3])}{more}): resuming would mix "
            "two runs; rerun with --fresh to answer anew, or give another --out"
        )


def save_record(out: Path, record: dict[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    write_json(record_path(out), record)


def forget(out: Path) -> None:
    """``--fresh``: the predictions file, its partial file and its record go; the run starts over."""
    from wikihowqa.answer.predictions import partial_path

    for path in (out, partial_path(out), record_path(out)):
        path.unlink(missing_ok=True)
