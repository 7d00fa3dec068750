"""The shell examples of the docs, read from their Markdown the way a reader sees them.

A fenced block is an example when its language is ``console`` (``$ command`` lines, each followed by the
output it prints: that output is what the tests captured, rewritten with ``WIKIHOWQA_DOCS_REGENERATE=1``),
``bash``/``sh``/``shell`` (commands only), or ``text`` starting with ``wikihowqa `` (a synopsis: parsed
against the command line, never run). An HTML comment on the line above the fence says how a block is
treated: ``<!-- docs: not run (needs the internet) -->`` parses its ``wikihowqa`` commands against the
command line instead of running them (the reason is reported); ``<!-- docs: server -->`` starts each
command, checks that it is still serving after a few seconds, and stops it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)")
MARK = re.compile(r"<!--\s*docs:\s*(?P<kind>not run|server)\s*(?:\((?P<reason>[^)]*)\))?\s*-->")
SHELL = {"bash", "sh", "shell"}


@dataclass
class Command:
    """One command of a block and, in a ``console`` block, the output shown under it."""

    text: str
    line: int  # 1-based line of the command in the page
    output: list[str] = field(default_factory=list)
    output_start: int = 0  # 0-based index in the page's lines of the first output line


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    kind: str  # "run", "not run", "server" or "synopsis"
    reason: str
    commands: list[Command]

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(DOCS)}:{self.line}"


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def blocks(page: Path) -> list[Block]:
    """The example blocks of one page, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        lang, body = match.group("lang"), lines[i + 1 : end]
        mark = MARK.search(lines[i - 1]) if i else None
        if i and "<!-- docs:" in lines[i - 1] and not mark:
            raise ValueError(f"{page}:{i}: unknown mark {lines[i - 1].strip()!r} (not run (REASON), server)")
        kind = mark.group("kind") if mark else "run"
        reason = (mark.group("reason") or "") if mark else ""
        if lang == "console":
            found.append(Block(page, i + 1, lang, kind, reason, _console(body, i + 1)))
        elif lang in SHELL:
            found.append(Block(page, i + 1, lang, kind, reason, _shell(body, i + 1)))
        elif lang == "text" and body and body[0].startswith("wikihowqa "):
            found.append(Block(page, i + 1, lang, "synopsis", "a synopsis", _shell(body, i + 1)))
        i = end + 1
    return found


def _joined(body: list[str], start: int) -> list[tuple[int, str, int]]:
    """(first line index, command, last line index) with ``\\``-continued lines joined."""
    out = []
    k = 0
    while k < len(body):
        first, text = k, body[k]
        while text.endswith("\\") and k + 1 < len(body):
            k += 1
            text = text[:-1] + " " + body[k].strip()
        out.append((first, text, k))
        k += 1
    return out


def _shell(body: list[str], start: int) -> list[Command]:
    return [
        Command(text.strip(), start + first + 1)
        for first, text, _ in _joined(body, start)
        if text.strip() and not text.strip().startswith("#")
    ]


def _console(body: list[str], start: int) -> list[Command]:
    commands: list[Command] = []
    k = 0
    while k < len(body):
        if not body[k].startswith("$ "):
            if commands:
                commands[-1].output.append(body[k])
            k += 1
            continue
        first, text = k, body[k][2:]
        while text.endswith("\\") and k + 1 < len(body):
            k += 1
            text = text[:-1] + " " + body[k].strip()
        commands.append(Command(text.strip(), start + first + 1, [], start + k + 1))
        k += 1
    return commands


def wikihowqa_calls(command: str) -> list[list[str]]:
    """The arguments of each ``wikihowqa`` call in a shell command line (after ``&&``, ``|``, ``;``)."""
    calls = []
    for part in re.split(r"&&|\|\||[|;&]", command):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:
            words = part.split()
        while words and re.match(r"^[A-Z_]+=", words[0]):  # VAR=value before the command
            words.pop(0)
        if words and (words[0] == "wikihowqa" or words[0].endswith("/wikihowqa")):
            calls.append(words[1:])
        elif words[:3] == ["python", "-m", "wikihowqa"]:
            calls.append(words[3:])
    return calls


def unknown_words(args: list[str], options: dict[str, set[str]]) -> list[str]:
    """What in one ``wikihowqa`` call the command line does not know: the command, or an option of it.
    A synopsis's ``[--opt VALUE]`` brackets and ``…`` are read as the options they hold."""
    if not args or args[0].startswith("-"):
        return [w for w in args if w.startswith("--") and w.split("=")[0] not in options[""]]
    command, rest = args[0], args[1:]
    if command not in options:
        return [command]
    known = options[command] | {"--help", "-h"}
    bad = []
    for word in rest:
        word = word.strip("[]")
        if word == "--":
            break
        if word.startswith("-") and not re.match(r"^-\d", word):
            for name in word.split("/"):  # --bertscore/--no-bertscore
                if name.split("=")[0] not in known:
                    bad.append(name)
    return bad
