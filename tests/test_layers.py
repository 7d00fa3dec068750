"""The import contracts (pyproject.toml's [tool.importlinter]) hold for the tree, break on what they forbid.

Each case runs ``lint-imports`` on a copy of the package's sources with one import or module added, so the
check that scripts/test.sh runs is shown able to fail: an upward import (also one inside a function), an
import between independent siblings, a module placed in no layer, the library importing the study server.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT.is_file(), reason="import-linter is not installed")


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    return subprocess.run(
        [str(LINT), "--no-logo", "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = tmp_path_factory.mktemp("layers")
    shutil.copytree(ROOT / "src" / "wikihowqa", tree / "src" / "wikihowqa", ignore=_not_python)
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


@pytest.fixture
def tree(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "tree"
    shutil.copytree(pristine, copy)
    return copy


def _not_python(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()]


def append(tree: Path, module: str, text: str) -> None:
    path = tree / "src" / Path(*module.split(".")).with_suffix(".py")
    if not path.is_file():
        path = path.with_suffix("") / "__init__.py"
    path.write_text(path.read_text(encoding="utf-8") + "\n" + text + "\n", encoding="utf-8")


def test_the_tree_keeps_every_contract(pristine):
    result = lint(pristine)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_an_upward_import_breaks_the_layers(tree):
    append(tree, "wikihowqa.parse.metric", "from wikihowqa.stats.report import describe  # noqa")
    result = lint(tree)
    assert result.returncode == 1
    assert "wikihowqa.parse is not allowed to import wikihowqa.stats" in result.stdout
    assert "wikihowqa.parse.metric -> wikihowqa.stats.report" in result.stdout


def test_an_upward_import_inside_a_function_breaks_them_too(tree):
    append(
        tree, "wikihowqa.core.records", "def _later():\n    from wikihowqa.demo.run import run_demo  # noqa"
    )
    result = lint(tree)
    assert result.returncode == 1
    assert "wikihowqa.core is not allowed to import wikihowqa.demo" in result.stdout
    assert "wikihowqa.core.records -> wikihowqa.demo.run" in result.stdout


def test_independent_siblings_do_not_import_each_other(tree):
    append(tree, "wikihowqa.collect.store", "from wikihowqa.replay import ReplaySite  # noqa")
    result = lint(tree)
    assert result.returncode == 1
    assert "wikihowqa.collect is not allowed to import wikihowqa.replay" in result.stdout


def test_a_module_in_no_layer_is_refused(tree):
    (tree / "src" / "wikihowqa" / "unplaced.py").write_text('"""Nowhere yet."""\n', encoding="utf-8")
    result = lint(tree)
    assert result.returncode == 1
    assert "wikihowqa.unplaced" in result.stdout and "not listed as layers" in result.stdout


def test_the_library_does_not_import_the_study_server(tree):
    append(tree, "wikihowqa.humaneval.tasks", "from wikihowqa.humaneval.app.db import StudyDB  # noqa")
    result = lint(tree)
    assert result.returncode == 1
    assert "Illegal imports of protected package wikihowqa.humaneval.app" in result.stdout
