# ruff: noqa: E501  (HTML templates read best one tag run per line)
"""A page body (a small Markdown subset) → blocks → HTML in a site's dialect, and the ground-truth text.

markdown-it-py (CommonMark + tables) does the parsing; the emitter is ours because each site chrome needs
its own markup for the same content (semantic HTML5, WordPress blocks, forum BBCode spans, 2008-era
``<font>`` soup), and because the ground truth must be the exact text those blocks hold.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MD = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")


@dataclass(frozen=True)
class Inline:
    tokens: tuple[Token, ...]

    @property
    def text(self) -> str:
        parts = []
        for tok in self.tokens:
            if tok.type in ("text", "code_inline"):
                parts.append(tok.content)
            elif tok.type in ("softbreak", "hardbreak"):
                parts.append(" ")
        return " ".join("".join(parts).split())


@dataclass(frozen=True)
class Block:
    kind: str  # heading | para | ul | ol | table | code
    level: int = 0
    inline: Inline | None = None
    items: tuple[Inline, ...] = ()
    header: tuple[Inline, ...] = ()
    rows: tuple[tuple[Inline, ...], ...] = ()
    code: str = ""


def parse_blocks(markdown: str) -> list[Block]:
    """Blocks of a body; nested lists are flattened and blockquotes read as paragraphs."""
    tokens = _MD.parse(markdown)
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            blocks.append(
                Block("heading", level=int(tok.tag[1]), inline=Inline(tuple(tokens[i + 1].children or ())))
            )
            i += 3
            continue
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            depth, j, items = 0, i, []
            while True:
                t = tokens[j]
                if t.type in ("bullet_list_open", "ordered_list_open"):
                    depth += 1
                elif t.type in ("bullet_list_close", "ordered_list_close"):
                    depth -= 1
                    if depth == 0:
                        break
                elif t.type == "inline":
                    items.append(Inline(tuple(t.children or ())))
                j += 1
            blocks.append(Block("ul" if tok.type == "bullet_list_open" else "ol", items=tuple(items)))
            i = j + 1
            continue
        if tok.type == "table_open":
            header: list[Inline] = []
            rows: list[tuple[Inline, ...]] = []
            row: list[Inline] = []
            in_head = False
            j = i
            while tokens[j].type != "table_close":
                t = tokens[j]
                if t.type == "thead_open":
                    in_head = True
                elif t.type == "thead_close":
                    in_head = False
                elif t.type == "tr_open":
                    row = []
                elif t.type == "tr_close" and not in_head:
                    rows.append(tuple(row))
                elif t.type == "inline":
                    (header if in_head else row).append(Inline(tuple(t.children or ())))
                j += 1
            blocks.append(Block("table", header=tuple(header), rows=tuple(rows)))
            i = j + 1
            continue
        if tok.type in ("fence", "code_block"):
            blocks.append(Block("code", code=tok.content.rstrip("\n")))
        elif tok.type == "inline":
            blocks.append(Block("para", inline=Inline(tuple(tok.children or ()))))
        i += 1
    return blocks


def truth_lines(blocks: list[Block]) -> list[str]:
    """The main text a perfect extractor returns: one line per paragraph, heading, list item, table row."""
    lines: list[str] = []
    for b in blocks:
        if b.kind in ("heading", "para"):
            lines.append(b.inline.text)  # type: ignore[union-attr]
        elif b.kind in ("ul", "ol"):
            lines.extend(item.text for item in b.items)
        elif b.kind == "table":
            for row in (b.header, *b.rows):
                lines.append(" | ".join(cell.text for cell in row))
        elif b.kind == "code":
            lines.extend(line for line in b.code.splitlines() if line.strip())
    return [line for line in lines if line]


def has_table(blocks: list[Block]) -> bool:
    return any(b.kind == "table" for b in blocks)


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def attr(text: str) -> str:
    return html.escape(text, quote=True)


# --------------------------------------------------------------------------- dialects


@dataclass(frozen=True)
class Dialect:
    """How one family of sites writes the same content."""

    name: str
    strong: str = "strong"
    em: str = "em"
    link_extra: str = ""

    def inline(self, inline: Inline) -> str:
        out: list[str] = []
        for tok in inline.tokens:
            if tok.type == "text":
                out.append(esc(tok.content))
            elif tok.type == "code_inline":
                out.append(f"<code>{esc(tok.content)}</code>")
            elif tok.type == "softbreak":
                out.append("\n")
            elif tok.type == "hardbreak":
                out.append("<br>\n")
            elif tok.type == "strong_open":
                out.append(self._open(self.strong))
            elif tok.type == "strong_close":
                out.append(self._close(self.strong))
            elif tok.type == "em_open":
                out.append(self._open(self.em))
            elif tok.type == "em_close":
                out.append(self._close(self.em))
            elif tok.type == "link_open":
                out.append(f'<a href="{attr(str(tok.attrs.get("href", "")))}"{self.link_extra}>')
            elif tok.type == "link_close":
                out.append("</a>")
        return "".join(out)

    @staticmethod
    def _open(tag: str) -> str:
        return f"<{tag}>"

    @staticmethod
    def _close(tag: str) -> str:
        return f"</{tag.split()[0]}>"

    # one block each; subclasses of behaviour are chosen by name to keep dialects data-like
    def block(self, b: Block) -> str:
        fn = getattr(self, f"_{self.name}", None) or self._html5
        return fn(b)

    def _html5(self, b: Block) -> str:
        if b.kind == "heading":
            return f"<h{b.level}>{self.inline(b.inline)}</h{b.level}>"  # type: ignore[arg-type]
        if b.kind == "para":
            return f"<p>{self.inline(b.inline)}</p>"  # type: ignore[arg-type]
        if b.kind in ("ul", "ol"):
            items = "\n".join(f"  <li>{self.inline(i)}</li>" for i in b.items)
            return f"<{b.kind}>\n{items}\n</{b.kind}>"
        if b.kind == "table":
            head = "".join(f"<th>{self.inline(c)}</th>" for c in b.header)
            rows = "\n".join(
                "<tr>" + "".join(f"<td>{self.inline(c)}</td>" for c in r) + "</tr>" for r in b.rows
            )
            return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table>"
        return f"<pre><code>{esc(b.code)}</code></pre>"

    def _wp(self, b: Block) -> str:
        if b.kind == "heading":
            return f'<h{b.level} class="wp-block-heading">{self.inline(b.inline)}</h{b.level}>'  # type: ignore[arg-type]
        if b.kind in ("ul", "ol"):
            items = "".join(f"<li>{self.inline(i)}</li>" for i in b.items)
            return f'<{b.kind} class="wp-block-list">{items}</{b.kind}>'
        if b.kind == "table":
            head = "".join(f"<th>{self.inline(c)}</th>" for c in b.header)
            rows = "".join(
                "<tr>" + "".join(f"<td>{self.inline(c)}</td>" for c in r) + "</tr>" for r in b.rows
            )
            return f'<figure class="wp-block-table"><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></figure>'
        if b.kind == "code":
            return f'<pre class="wp-block-code"><code>{esc(b.code)}</code></pre>'
        return self._html5(b)

    def _bbcode(self, b: Block) -> str:
        """phpBB-style post markup: no paragraphs, only line breaks and styled spans."""
        if b.kind == "heading":
            return f'<span style="font-size: 150%; line-height: 116%;"><strong class="text-strong">{self.inline(b.inline)}</strong></span><br>'  # type: ignore[arg-type]
        if b.kind == "para":
            return f"{self.inline(b.inline)}<br><br>"  # type: ignore[arg-type]
        if b.kind in ("ul", "ol"):
            kind = ' style="list-style-type: decimal"' if b.kind == "ol" else ""
            items = "".join(f"<li>{self.inline(i)}</li>" for i in b.items)
            return f"<ul{kind}>{items}</ul>"
        if b.kind == "table":
            head = "".join(f"<td><strong>{self.inline(c)}</strong></td>" for c in b.header)
            rows = "".join(
                "<tr>" + "".join(f"<td>{self.inline(c)}</td>" for c in r) + "</tr>" for r in b.rows
            )
            return f'<table class="bbcode-table" border="1"><tr>{head}</tr>{rows}</table><br>'
        return f'<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); return false;">Select all</a></p><pre><code>{esc(b.code)}</code></pre></div>'

    def _legacy(self, b: Block) -> str:
        """2008-era markup: font tags, double line breaks, unclosed list items, bordered tables."""
        if b.kind == "heading":
            return f'<font face="Verdana, Arial, Helvetica" size="3" color="#336600"><b>{self.inline(b.inline)}</b></font><br>'  # type: ignore[arg-type]
        if b.kind == "para":
            return f'<font face="Verdana, Arial, Helvetica" size="2">{self.inline(b.inline)}</font><br><br>'  # type: ignore[arg-type]
        if b.kind in ("ul", "ol"):
            tag = "UL" if b.kind == "ul" else "OL"
            items = "\n".join(f"<LI>{self.inline(i)}" for i in b.items)
            return f'<font face="Verdana, Arial, Helvetica" size="2"><{tag}>\n{items}\n</{tag}></font>'
        if b.kind == "table":
            head = "".join(f'<TD><font size="2"><b>{self.inline(c)}</b></font></TD>' for c in b.header)
            rows = "\n".join(
                "<TR>" + "".join(f'<TD><font size="2">{self.inline(c)}</font></TD>' for c in r) + "</TR>"
                for r in b.rows
            )
            return (
                '<TABLE border="1" cellspacing="0" cellpadding="4" width="95%" bordercolor="#999999">\n'
                f'<TR bgcolor="#E8F0D8">{head}</TR>\n{rows}\n</TABLE><br>'
            )
        return f'<PRE><font size="2">{esc(b.code)}</font></PRE>'


DIALECTS = {
    "html5": Dialect("html5"),
    "wp": Dialect("wp"),
    "bbcode": Dialect("bbcode", strong='strong class="text-strong"', em='em class="text-italics"'),
    "legacy": Dialect("legacy", strong="B", em="I", link_extra=' target="_blank"'),
}


def blocks_html(blocks: list[Block], dialect: str, insert: Callable[[int, Block], str] | None = None) -> str:
    """HTML of the blocks; ``insert(i, block)`` may return markup (an ad, a widget) to put after block i."""
    d = DIALECTS[dialect]
    out: list[str] = []
    for i, b in enumerate(blocks):
        out.append(d.block(b))
        if insert is not None and (extra := insert(i, b)):
            out.append(extra)
    return "\n".join(out)
