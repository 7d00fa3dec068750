"""Where the embedded demo data lies inside the installed package."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def corpus_path() -> Path:
    """Folder of the embedded demo corpus (articles, cited pages and their archived snapshots)."""
    return Path(str(files("wikihowqa.demo") / "corpus"))


def real_examples_path() -> Path:
    """Folder with ``qa.jsonl`` and ``documents.jsonl`` of three real WikiHowNFQA instances."""
    return Path(str(files("wikihowqa.demo") / "real_examples"))
