"""How a long stage says how far it is: the one progress protocol of the library.

A stage announces each phase of its work with its total (``None`` while unknown), then advances it as
items finish; it never draws anything. The CLI hands it a :class:`Bars` over a ``rich`` progress display
(one bar per phase); the library's default is :data:`QUIET`. The collector's reporter is this protocol
plus ``event`` (``wikihowqa.collect.progress.Reporter``).
"""

from __future__ import annotations

from typing import Any, Protocol


class Progress(Protocol):
    def phase(self, name: str, total: int | None) -> None:
        """Phase ``name`` starts, or learns its total."""

    def advance(self, name: str, n: int = 1) -> None:
        """``n`` more items of phase ``name`` are done."""


class Quiet:
    """Reports nothing (the library's default)."""

    def phase(self, name: str, total: int | None) -> None:
        pass

    def advance(self, name: str, n: int = 1) -> None:
        pass


QUIET = Quiet()


class Bars:
    """One bar per phase on a ``rich.progress.Progress`` display (anything with its ``add_task``, ``update``
    and ``advance``), drawn from the phase's announcement on (an advance before it is not drawn);
    ``labels`` renames phases for the display."""

    def __init__(self, display: Any, labels: dict[str, str] | None = None) -> None:
        self.display = display
        self.labels = labels or {}
        self.tasks: dict[str, Any] = {}

    def phase(self, name: str, total: int | None) -> None:
        if name in self.tasks:
            self.display.update(self.tasks[name], total=total)
        else:
            self.tasks[name] = self.display.add_task(self.labels.get(name, name), total=total)

    def advance(self, name: str, n: int = 1) -> None:
        if n and name in self.tasks:
            self.display.advance(self.tasks[name], n)
