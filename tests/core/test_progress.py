"""The one progress protocol and the bars the CLI draws it with."""

from __future__ import annotations

from wikihowqa.core.progress import Bars


class Display:
    """Records what a rich.progress.Progress display is asked to do."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def add_task(self, description: str, total: int | None = None) -> int:
        self.calls.append(("add", description, total))
        return len(self.calls)

    def update(self, task: int, total: int | None = None) -> None:
        self.calls.append(("update", task, total))

    def advance(self, task: int, n: int) -> None:
        self.calls.append(("advance", task, n))


def test_a_bar_per_phase_from_its_announcement_on():
    display = Display()
    bars = Bars(display, labels={"pages": "parsing"})
    bars.advance("pages", 3)  # before the announcement: nothing to draw on
    bars.phase("pages", None)
    bars.phase("pages", 10)  # the total learnt later updates the same bar
    bars.advance("pages", 4)
    bars.advance("pages", 0)
    bars.phase("ROUGE", 2)
    bars.advance("ROUGE")
    assert display.calls == [
        ("add", "parsing", None),
        ("update", 1, 10),
        ("advance", 1, 4),
        ("add", "ROUGE", 2),
        ("advance", 4, 1),
    ]

