"""Files that the human-evaluation code and its docs point a reader to exist under those names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    *sorted((ROOT / "src/wikihowqa/humaneval").rglob("*.py")),
    *sorted((ROOT / "src/wikihowqa/humaneval/app/static").glob("*.js")),
    ROOT / "src/wikihowqa/cli/humaneval.py",
    ROOT / "src/wikihowqa/cli/serve.py",
]
DOCS = [ROOT / "docs/study-server.md", ROOT / "docs/humaneval-formats.md"]
#: A repository path as prose cites it: tests/…, benchmarks/…, docs/…, src/…, tools/… with an extension.
CITED = re.compile(r"\b(?:tests|benchmarks|docs|src|tools)/[\w./-]+\.\w+")
#: A Markdown link or image target that is a relative path.
LINK = re.compile(r"\]\((?!https?:|#|mailto:)([^)#\s]+)")


def _citations() -> list[tuple[str, Path]]:
    found = []
    for path in [*SOURCES, *DOCS]:
        for match in CITED.finditer(path.read_text(encoding="utf-8")):
            found.append(
                (f"{path.relative_to(ROOT)} cites {match.group()}", ROOT / match.group().rstrip("."))
            )
    for path in DOCS:
        for match in LINK.finditer(path.read_text(encoding="utf-8")):
            found.append((f"{path.relative_to(ROOT)} links {match.group(1)}", path.parent / match.group(1)))
    return found


def test_some_references_are_checked():
    assert len(_citations()) >= 10


@pytest.mark.parametrize(("what", "target"), _citations(), ids=lambda v: v if isinstance(v, str) else "")
def test_cited_file_exists(what, target):
    assert target.exists(), what
