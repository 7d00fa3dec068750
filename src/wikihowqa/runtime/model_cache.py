"""Where converted models are kept between runs (the user's cache folder), and the checks that a kept copy
is whole before it is read.

Two conversions are kept: the sentence encoder as an OpenVINO model (``encoders.openvino_encoder``) and a
GGUF chat model as a transformers folder (``generate.gguf_cache``). Each lives in a folder named after the
model and a fingerprint of what it was converted from, written beside its files' SHA-256 digests last: a
copy without its digests is unfinished, one whose files do not match is damaged, and neither is read.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

CACHE_ENV = "WIKIHOWQA_MODEL_CACHE"
#: Beside a converted folder's files: their SHA-256 digests, written last.
FOLDER_DIGESTS = "files.sha256.json"


def cache_root(kind: str) -> Path:
    """``$WIKIHOWQA_MODEL_CACHE`` (every kind in one folder: their folder names differ), else
    ``$XDG_CACHE_HOME/wikihowqa/KIND`` (default ``~/.cache``)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "wikihowqa" / kind


def note(message: str) -> None:
    """One line on stderr: what happened to the model cache, and what was done instead."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


def file_sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def write_folder_digests(folder: Path) -> None:
    """Store the digests of every file of ``folder`` (its last write: the folder is finished)."""
    digests = {p.name: file_sha256(p) for p in sorted(folder.iterdir()) if p.is_file()}
    (folder / FOLDER_DIGESTS).write_text(json.dumps(digests, indent=1), encoding="utf-8")


def digest_damage(record: Path, names: Sequence[str] | None = None) -> str | None:
    """Why the files beside the digest file ``record`` cannot be trusted (no digests, a file missing, cut or
    altered), ``None`` when each matches its digest. ``names``: the files it must hold digests of (default:
    every file it lists)."""
    try:
        expected = json.loads(record.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"no digest file {record.name} (an unfinished or older conversion)"
    except (OSError, ValueError) as exc:
        return f"its digest file {record.name} cannot be read ({exc})"
    if not isinstance(expected, dict):
        return f"{record.name} holds no digests"
    wanted = list(expected) if names is None else list(names)
    if not wanted:
        return f"{record.name} names no file"
    for name in wanted:
        if not isinstance(expected.get(name), str):
            return f"{record.name} holds no digest of {name}"
        path = record.parent / name
        if not path.is_file():
            return f"{name} is missing"
        if file_sha256(path) != expected[name]:
            return f"{name} does not match its digest (cut, truncated or altered)"
    return None


def folder_damage(folder: Path) -> str | None:
    """Why ``folder``'s files cannot be trusted, ``None`` when every file matches the digest stored for it."""
    return digest_damage(folder / FOLDER_DIGESTS)
