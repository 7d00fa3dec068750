"""Terminal tables whose first column stays readable at any width (an 80-column terminal included).

A leaderboard with the judge's columns is wider than 80 columns; rich would shrink the name column until
``lower-bound: copy-passages`` reads ``lower-boun / d-copy-pas / sages``, or to nothing. Here the names
are never wrapped: the value columns are dealt into as many tables as the width needs, each repeating the
names, so every row still says whose scores it shows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markup import escape
from rich.table import Table
from rich.text import Text

#: rich's default table: one space of padding each side of a cell, one border character between cells.
_CELL_EXTRA = 3


@dataclass(frozen=True)
class NamedRows:
    """A table of ``names`` (the first column, headed ``name_header``) and value ``columns``."""

    title: str
    name_header: str
    names: Sequence[str]
    columns: Sequence[tuple[str, Sequence[str]]]  # (header, one cell per name)

    def _width(self, header: str, cells: Sequence[str]) -> int:
        return max([len(header), *(len(c) for c in cells)])

    def chunks(self, width: int) -> Iterator[list[tuple[str, Sequence[str]]]]:
        """The value columns dealt, in order, into groups that fit ``width`` beside the name column."""
        room = width - 1 - (self._width(self.name_header, self.names) + _CELL_EXTRA)
        chunk: list[tuple[str, Sequence[str]]] = []
        used = 0
        for column in self.columns:
            need = self._width(*column) + _CELL_EXTRA
            if chunk and used + need > room:
                yield chunk
                chunk, used = [], 0
            chunk.append(column)
            used += need
        if chunk or not self.columns:
            yield chunk

    def table(self, columns: Sequence[tuple[str, Sequence[str]]], title: str | None) -> Table:
        table = Table(title=escape(title) if title else None)
        table.add_column(self.name_header, no_wrap=True)  # a name is read whole, or not at all
        for header, _ in columns:
            table.add_column(header, justify="right", no_wrap=True)
        for i, name in enumerate(self.names):
            table.add_row(Text(name), *(cells[i] for _, cells in columns))
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        chunks = list(self.chunks(options.max_width))
        for n, columns in enumerate(chunks):
            title = self.title if len(chunks) == 1 else f"{self.title} ({n + 1} of {len(chunks)})"
            yield self.table(columns, title)


__all__ = ["NamedRows"]
