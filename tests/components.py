"""Real components some tests need (MediaWiki, pywb, Chromium, Ray, axe-core): skipped here, never in CI.

On a developer's machine a test whose component did not install is skipped with the reason printed (and
listed by ``-ra``). In CI (``CI=true``, as ``.ci/run`` and most CI services set it) the same test fails,
naming the component: a green CI run must mean the collector ran against real servers, the study pages in
a real browser and the parallel stages on a real cluster, not that their tests were quietly skipped.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

MEDIAWIKI = "MediaWiki"
PYWB = "pywb"
CHROMIUM = "Chromium"
RAY = "Ray"
AXE = "axe-core (npm)"


def in_ci() -> bool:
    """Whether this run is CI's (``CI`` set to true, as GitHub Actions, GitLab and ``.ci/run`` set it)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require(component: str, missing: str | None) -> None:
    """Go on when ``missing`` is ``None``; else skip the test (locally, printing why) or fail it (in CI)."""
    if missing is None:
        return
    if in_ci():
        pytest.fail(f"{component} is missing in CI (CI=true), its tests cannot run: {missing}", pytrace=False)
    print(f"skipping {component} tests: {missing}")
    pytest.skip(f"{component}: {missing}")


def require_module(name: str, component: str, *, install: str) -> ModuleType:
    """``import name`` for a test that needs it (``install``: how to get it); :func:`require` otherwise.
    Usable at a test module's top level, where a CI failure is a collection error."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing = f"cannot import {name} ({exc}); {install}"
        if in_ci():
            pytest.fail(
                f"{component} is missing in CI (CI=true), its tests cannot run: {missing}", pytrace=False
            )
        print(f"skipping {component} tests: {missing}")
        pytest.skip(f"{component}: {missing}", allow_module_level=True)
        raise  # unreachable: pytest.skip raises
