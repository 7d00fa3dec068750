"""The unit extracted text is made of; kept apart so passage cutting imports no HTML machinery."""

from __future__ import annotations

import re
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


#: Fewer words than this, and no line of running text among them: what was read is the shell of a page
#: whose content a script renders (a menu, "Skip to content", "Cart (0)", "Loading..."), not its content.
#: The text such a page shows without scripts is its chrome, which no reader came for.
SHELL_WORDS = 40
#: A line of running text holds this many words, or this many characters (a sentence in a script written
#: without spaces between words is one long "word"), or ends a sentence (not with an ellipsis: "Loading...").
LINE_WORDS = 6
LINE_CHARS = 40
_SENTENCE_END = re.compile(r"(?<![.…])[.!?。！？]['\"”’)]?$")


def _running(line: str) -> bool:
    line = line.strip()
    long_enough = len(line.split()) >= LINE_WORDS or len(line) >= LINE_CHARS
    return long_enough or _SENTENCE_END.search(line) is not None


def is_shell(blocks: tuple[Block, ...] | list[Block]) -> bool:
    """Whether extracted blocks are a script-rendered page's shell, not text (see :data:`SHELL_WORDS`)."""
    if sum(len(b.text.split()) for b in blocks) >= SHELL_WORDS:
        return False
    return not any(_running(b.text) for b in blocks)
