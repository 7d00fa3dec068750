"""A module of the package as it was at an earlier commit, importable beside today's: the peers that
benchmarks measure a change against, in the same run."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def module_at(commit: str, path: str, name: str) -> ModuleType:
    """``path`` (relative to the repository root) at ``commit``, run as module ``name``: its own imports
    of the package get today's modules."""
    source = subprocess.run(
        ["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look their module up
    exec(compile(source, f"{commit}:{path}", "exec"), module.__dict__)
    return module
