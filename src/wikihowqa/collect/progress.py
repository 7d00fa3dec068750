"""Where the collector reports progress: a rich display in the CLI, nothing in the library."""

from __future__ import annotations

from typing import Protocol

from wikihowqa.core.progress import Progress, Quiet


class Reporter(Progress, Protocol):
    """The library's progress protocol (each phase announces its total, then advances) plus events:
    notable happenings (a host paused)."""

    def event(self, message: str) -> None: ...


class QuietReporter(Quiet):
    """Reports nothing."""

    def event(self, message: str) -> None:
        pass
