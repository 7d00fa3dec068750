"""The study web app (``wikihowqa serve``): assessors judge tasks in a browser, the admin follows progress
and downloads judgments in the format ``wikihowqa analyze`` reads. Formats: docs/humaneval-formats.md.

Names are imported on first use, so that ``wikihowqa.humaneval.app.db`` (used when a study folder is
rebuilt) does not pull in the web framework."""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "ServerSettings": "wikihowqa.humaneval.app.state",
    "StudyService": "wikihowqa.humaneval.app.state",
    "create_app": "wikihowqa.humaneval.app.server",
    "demo_serve": "wikihowqa.humaneval.app.run",
    "running": "wikihowqa.humaneval.app.run",
    "serve": "wikihowqa.humaneval.app.run",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)


__all__ = sorted(_EXPORTS)
