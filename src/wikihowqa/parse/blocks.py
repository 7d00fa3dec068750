"""The unit extracted text is made of; kept apart so passage cutting imports no HTML machinery."""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("heading", "paragraph", "item", "row")


@dataclass(frozen=True, slots=True)
class Block:
    """One line of extracted text: a heading, a paragraph, a list item or a table row.

    ``group`` numbers the list or table an item or row belongs to (``-1`` for headings and paragraphs),
    so passages can keep a list together.
    """

    kind: str  # one of KINDS
    text: str
    group: int = -1
