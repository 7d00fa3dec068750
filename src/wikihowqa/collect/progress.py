"""Where the collector reports progress: a rich display in the CLI, nothing in the library."""

from __future__ import annotations

from typing import Protocol


class Reporter(Protocol):
    """Each phase announces its total, then advances; events are notable happenings (a host paused)."""

    def phase(self, name: str, total: int | None) -> None: ...

    def advance(self, name: str, n: int = 1) -> None: ...

    def event(self, message: str) -> None: ...


class QuietReporter:
    """Reports nothing."""

    def phase(self, name: str, total: int | None) -> None:
        pass

    def advance(self, name: str, n: int = 1) -> None:
        pass

    def event(self, message: str) -> None:
        pass
