"""Just enough of MediaWiki's parser for ``action=parse``: sections, links, references and a simple HTML.

The HTML is a faithful *shape* (headings with ``mw-headline`` anchors, numbered steps as ``<ol>``,
``<ref>`` citations as ``<sup class="reference">`` with a ``<ol class="references">`` list, external links
as ``<a rel="nofollow" class="external …">``), not MediaWiki's byte-exact output. Unknown templates
render as nothing; ``{{Summary:…}}`` transcludes the Quick Summary page through its
``{{#quicksummary:position|last_sentence|content}}`` parser function.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_NOWIKI = re.compile(r"<(nowiki|pre)\b[^>]*>.*?</\1\s*>", re.S | re.I)
_HEADING = re.compile(r"^(={1,6})[ \t]*(.+?)[ \t]*(={1,6})[ \t]*$", re.M)
_BRACKET_LINK = re.compile(r"\[((?:(?:https?|ftp):)?//[^\s\[\]<>\"]+)(?:[ \t]+([^\]\n]*))?\]", re.I)
_FREE_URL = re.compile(r"\b((?:https?|ftp)://[^\s<>\[\]\"{}|]+)", re.I)
_INTERNAL_LINK = re.compile(r"\[\[([^\[\]|\n]+)(?:\|((?:[^\[\]]|\[[^\[\]]*\])*))?\]\]")
_TEMPLATE = re.compile(r"\{\{((?:[^{}]|\{(?!\{)|\}(?!\}))*)\}\}")
_REF = re.compile(r"<ref\b([^>]*?)/>|<ref\b([^>]*?)>(.*?)</ref\s*>", re.I | re.S)
_REF_NAME = re.compile(r"""name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s/>]+))""", re.I)
_REFERENCES_TAG = re.compile(r"<references\s*/>|<references>\s*</references>", re.I)
_MAGIC = re.compile(r"__[A-Z]+__")
_QUICKSUMMARY = re.compile(r"^\s*\{\{\s*#quicksummary\s*:(.*)\}\}\s*$", re.S | re.I)
_MARKER = re.compile(r"\x7f(\d+)\x7f")
_ALLOWED_TAGS = re.compile(r"&lt;(/?)(b|i|u|s|strong|em|sup|sub|small|code|br)\s*/?&gt;", re.I)
_FILE_PREFIXES = ("file:", "image:")


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def mask(wikitext: str) -> str:
    """Comments, ``<nowiki>`` and ``<pre>`` blanked out, keeping every other character's position."""
    return _NOWIKI.sub(_blank, _COMMENT.sub(_blank, wikitext))


def _trim_url(url: str) -> str:
    if "''" in url:
        url = url.split("''", 1)[0]
    while (url and url[-1] in ".,;:!?") or (url.endswith(")") and "(" not in url):
        url = url[:-1]
    return url


def external_links(wikitext: str) -> list[str]:
    """External link targets in order of first appearance, as MediaWiki's ``externallinks`` lists them."""
    text = mask(wikitext)
    found: list[tuple[int, str]] = []
    for m in _BRACKET_LINK.finditer(text):
        found.append((m.start(), m.group(1)))
    rest = _BRACKET_LINK.sub(_blank, text)
    for m in _FREE_URL.finditer(rest):
        url = _trim_url(m.group(1))
        if url:
            found.append((m.start(), url))
    seen: dict[str, None] = {}
    for _, url in sorted(found):
        seen.setdefault(url)
    return list(seen)


def internal_links(wikitext: str) -> list[str]:
    """Targets of ``[[…]]`` links, without category tags and images (those are not links)."""
    out: dict[str, None] = {}
    for m in _INTERNAL_LINK.finditer(mask(wikitext)):
        target = m.group(1).strip()
        lower = target.lower()
        if lower.startswith(("category:", *_FILE_PREFIXES)):
            continue
        out.setdefault(target.lstrip(":").split("#", 1)[0].strip())
    return [t for t in out if t]


def images(wikitext: str) -> list[str]:
    out: dict[str, None] = {}
    for m in _INTERNAL_LINK.finditer(mask(wikitext)):
        target = m.group(1).strip()
        if target.lower().startswith(_FILE_PREFIXES):
            name = target.split(":", 1)[1].strip().replace(" ", "_")
            out.setdefault(name[:1].upper() + name[1:])
    return list(out)


def templates(wikitext: str) -> list[str]:
    """Names of transcluded templates (parser functions and magic words excluded)."""
    out: dict[str, None] = {}
    text = mask(wikitext)
    while True:
        matches = list(_TEMPLATE.finditer(text))
        if not matches:
            break
        for m in matches:
            name = m.group(1).split("|", 1)[0].strip()
            if name and not name.startswith("#") and ":" not in name[:1]:
                out.setdefault(name)
        text = _TEMPLATE.sub(lambda m: " " * len(m.group(0)), text)
    return list(out)


def parse_quicksummary(wikitext: str) -> tuple[str, str, str] | None:
    """``(position, last_sentence, content)`` of a ``Summary:`` page, or None if it holds none."""
    m = _QUICKSUMMARY.match(wikitext)
    if not m:
        return None
    parts = m.group(1).split("|", 2)
    while len(parts) < 3:
        parts.append("")
    return parts[0].strip(), parts[1].strip(), parts[2].strip()


# --------------------------------------------------------------------------- sections


@dataclass(frozen=True, slots=True)
class Section:
    toclevel: int
    level: int
    line: str
    number: str
    index: int
    byteoffset: int
    anchor: str
    start: int  # character offset of the heading line


def _headings(wikitext: str) -> list[tuple[int, int, str]]:
    text = mask(wikitext)
    out = []
    for m in _HEADING.finditer(text):
        level = min(len(m.group(1)), len(m.group(3)))
        inner = wikitext[m.start(2) : m.end(2)]
        extra_open, extra_close = len(m.group(1)) - level, len(m.group(3)) - level
        inner = "=" * extra_open + inner + "=" * extra_close
        out.append((m.start(), level, inner.strip()))
    return out


def plain(text: str) -> str:
    """Heading text without markup, as used for anchors."""
    text = _INTERNAL_LINK.sub(lambda m: m.group(2) or m.group(1), text)
    text = _BRACKET_LINK.sub(lambda m: m.group(2) or "", text)
    text = re.sub(r"'{2,}", "", text)
    text = re.sub(r"<[^>]+>", "", text)
    return " ".join(text.split())


def anchor(text: str) -> str:
    return plain(text).replace(" ", "_")


def sections(wikitext: str) -> list[Section]:
    """Sections numbered exactly as MediaWiki's table of contents numbers them."""
    out: list[Section] = []
    toclevel = 0
    prevlevel = 0
    level_at: dict[int, int] = {}
    count_at: dict[int, int] = {}
    anchors: dict[str, int] = {}
    for index, (start, level, inner) in enumerate(_headings(wikitext), 1):
        if level > prevlevel:
            toclevel += 1
            count_at[toclevel] = 0
            level_at[toclevel] = level
        elif level < prevlevel and toclevel > 1:
            for i in range(toclevel, 0, -1):
                if level_at[i] == level:
                    toclevel = i
                    break
                if level_at[i] < level:
                    toclevel = i + 1
                    break
            else:
                toclevel = 1
        prevlevel = level
        count_at[toclevel] = count_at.get(toclevel, 0) + 1
        number = ".".join(str(count_at[i]) for i in range(1, toclevel + 1))
        a = anchor(inner)
        if a in anchors:
            anchors[a] += 1
            a = f"{a}_{anchors[a]}"
        else:
            anchors[a] = 1
        out.append(Section(toclevel, level, inner, number, index, len(wikitext[:start].encode()), a, start))
    return out


def section_text(wikitext: str, number: int) -> str | None:
    """Wikitext of section ``number`` (0 = the lead), as ``rvsection`` returns it; None if absent."""
    heads = _headings(wikitext)
    if number == 0:
        return wikitext[: heads[0][0]] if heads else wikitext
    if not 1 <= number <= len(heads):
        return None
    start, level, _ = heads[number - 1]
    end = len(wikitext)
    for s, lv, _ in heads[number:]:
        if lv <= level:
            end = s
            break
    return wikitext[start:end].rstrip("\n")


# --------------------------------------------------------------------------- HTML


@dataclass
class RenderContext:
    """What the renderer asks the wiki: where a title links to, whether it exists, a template's text."""

    href: Callable[[str], str]
    exists: Callable[[str], bool]
    template: Callable[[str], str | None]
    _html: list[str] = field(default_factory=list)
    _refs: list[tuple[str, str]] = field(default_factory=list)  # (key, content)
    _ref_names: dict[str, int] = field(default_factory=dict)
    _block: set[int] = field(default_factory=set)

    def stash(self, html_text: str, *, block: bool = False) -> str:
        self._html.append(html_text)
        if block:
            self._block.add(len(self._html) - 1)
        return f"\x7f{len(self._html) - 1}\x7f"

    def unstash(self, text: str) -> str:
        for _ in range(8):  # markers nest (a link inside a reference); a few passes resolve them all
            if "\x7f" not in text:
                break
            text = _MARKER.sub(lambda m: self._html[int(m.group(1))], text)
        return text


def _ext_link(url: str, label: str | None, ctx: RenderContext, counter: list[int]) -> str:
    href = html.escape(url, quote=True)
    if label:
        return f'<a rel="nofollow" class="external text" href="{href}">{_inline(label, ctx, counter)}</a>'
    counter[0] += 1
    return f'<a rel="nofollow" class="external autonumber" href="{href}">[{counter[0]}]</a>'


def _int_link(target: str, label: str | None, ctx: RenderContext, counter: list[int]) -> str:
    raw = target.strip()
    lower = raw.lower()
    if lower.startswith("category:"):
        return ""
    if lower.startswith(_FILE_PREFIXES):
        name = raw.split(":", 1)[1].strip()
        return ctx.stash(
            f'<figure class="mw-default-size"><img src="/images/{quote(name.replace(" ", "_"))}" '
            f'alt="{html.escape(name)}"></figure>'
        )
    page = raw.lstrip(":").strip()
    text = _inline(label, ctx, counter) if label else html.escape(page)
    cls = "" if ctx.exists(page) else ' class="new"'
    href = html.escape(ctx.href(page), quote=True)
    return f'<a href="{href}"{cls} title="{html.escape(page, quote=True)}">{text}</a>'


def _inline(text: str, ctx: RenderContext, counter: list[int]) -> str:
    text = _INTERNAL_LINK.sub(lambda m: ctx.stash(_int_link(m.group(1), m.group(2), ctx, counter)), text)
    text = _BRACKET_LINK.sub(lambda m: ctx.stash(_ext_link(m.group(1), m.group(2), ctx, counter)), text)

    def free(m: re.Match[str]) -> str:
        url = _trim_url(m.group(1))
        tail = m.group(1)[len(url) :]
        href = html.escape(url, quote=True)
        return ctx.stash(f'<a rel="nofollow" class="external free" href="{href}">{href}</a>') + tail

    text = _FREE_URL.sub(free, text)
    text = html.escape(text, quote=False)
    text = re.sub(r"'''''(.+?)'''''", r"<b><i>\1</i></b>", text)
    text = re.sub(r"'''(.+?)'''", r"<b>\1</b>", text)
    text = re.sub(r"''(.+?)''", r"<i>\1</i>", text)
    return _ALLOWED_TAGS.sub(lambda m: f"<{m.group(1)}{m.group(2).lower()}>", text)


def _expand_templates(text: str, ctx: RenderContext, depth: int = 0) -> str:
    def expand(m: re.Match[str]) -> str:
        body = m.group(1)
        name = body.split("|", 1)[0].strip()
        if name.lower().startswith("#quicksummary:"):
            pos, last, content = parse_quicksummary("{{" + body + "}}") or ("", "", "")
            inner = " ".join(x for x in (content, last) if x)
            return ctx.stash(
                f'<div class="quicksummary" data-position="{html.escape(pos, quote=True)}">'
                f"<p>{ctx.unstash(_inline(inner, ctx, [0]))}</p></div>",
                block=True,
            )
        if name.lower() in ("reflist", "references"):
            return "<references />"
        if depth < 4:
            source = ctx.template(name)
            if source is not None:
                return _expand_templates(_COMMENT.sub("", source), ctx, depth + 1)
        return ""

    for _ in range(20):
        new = _TEMPLATE.sub(expand, text)
        if new == text:
            break
        text = new
    return text


def _extract_refs(text: str, ctx: RenderContext) -> str:
    def number_for(attrs: str, content: str | None) -> int:
        m = _REF_NAME.search(attrs or "")
        name = next((g for g in m.groups() if g is not None), None) if m else None
        if name is not None and name in ctx._ref_names:
            n = ctx._ref_names[name]
            if content and not ctx._refs[n - 1][1]:
                ctx._refs[n - 1] = (name, content)
            return n
        ctx._refs.append((name or "", content or ""))
        n = len(ctx._refs)
        if name is not None:
            ctx._ref_names[name] = n
        return n

    def sup(n: int) -> str:
        return ctx.stash(f'<sup class="reference"><a href="#cite_note-{n}">[{n}]</a></sup>')

    def replace(m: re.Match[str]) -> str:
        if m.group(3) is None:  # <ref name="x" />: a reuse
            return sup(number_for(m.group(1), None))
        return sup(number_for(m.group(2), m.group(3)))

    return _REF.sub(replace, text)


def _references_html(ctx: RenderContext) -> str:
    items = []
    for n, (_, content) in enumerate(ctx._refs, 1):
        body = ctx.unstash(_inline(content.strip(), ctx, [0]))
        items.append(f'<li id="cite_note-{n}"><span class="reference-text">{body}</span></li>')
    return '<div class="reflist"><ol class="references">' + "".join(items) + "</ol></div>"


def render_html(wikitext: str, ctx: RenderContext) -> str:
    """A simple HTML rendering of article wikitext inside ``<div class="mw-parser-output">``."""
    text = _MAGIC.sub("", _COMMENT.sub("", wikitext))
    text = _expand_templates(text, ctx)
    text = _extract_refs(text, ctx)
    counter = [0]
    out: list[str] = []
    para: list[str] = []
    lists: list[str] = []
    refs_placed = False

    def close_para() -> None:
        if para:
            out.append("<p>" + " ".join(para) + "</p>")
            para.clear()

    def close_lists(keep: int = 0) -> None:
        while len(lists) > keep:
            kind = lists.pop()
            out.append("</li></ol>" if kind == "#" else "</li></ul>" if kind == "*" else "</dd></dl>")

    for line in text.split("\n"):
        stripped = line.strip()
        heading = _HEADING.match(line)
        if _REFERENCES_TAG.fullmatch(stripped):
            close_para()
            close_lists()
            out.append(_references_html(ctx))
            refs_placed = True
            continue
        if heading:
            close_para()
            close_lists()
            level = min(len(heading.group(1)), len(heading.group(3)))
            inner = heading.group(2).strip()
            out.append(
                f'<h{level}><span class="mw-headline" id="{html.escape(anchor(inner), quote=True)}">'
                f"{_inline(inner, ctx, counter)}</span></h{level}>"
            )
            continue
        bullets = re.match(r"^([*#:;]+)\s*(.*)$", line)
        if bullets:
            close_para()
            prefix, item = bullets.group(1).replace(";", ":"), bullets.group(2)
            common = 0
            while common < min(len(prefix), len(lists)) and prefix[common] == lists[common]:
                common += 1
            close_lists(common)
            tags = ""
            if common == len(prefix):
                tags = "</li><li>" if prefix[-1] != ":" else "</dd><dd>"
            for kind in prefix[common:]:
                tags += "<ol><li>" if kind == "#" else "<ul><li>" if kind == "*" else "<dl><dd>"
                lists.append(kind)
            out.append(tags + _inline(item, ctx, counter))
            continue
        close_lists()
        if not stripped:
            close_para()
            continue
        if stripped == "----":
            close_para()
            out.append("<hr>")
            continue
        marker = _MARKER.fullmatch(stripped)
        if marker and int(marker.group(1)) in ctx._block:
            close_para()
            out.append(stripped)
            continue
        para.append(_inline(stripped, ctx, counter))
    close_para()
    close_lists()
    if ctx._refs and not refs_placed:
        out.append(_references_html(ctx))
    return '<div class="mw-parser-output">' + ctx.unstash("\n".join(out)) + "</div>"
