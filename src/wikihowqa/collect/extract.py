"""Archived bytes → document text: the one function the collector calls to parse a snapshot.

This is the minimal extractor the collector ships with until the parse stage (``wikihowqa.parse``) is
integrated; swapping means changing the body of :func:`extract` to call ``wikihowqa.parse.parse_html``
and copy its fields (text, markdown, title, passages, rejection) into an :class:`Extracted`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from wikihowqa.parse.passages import split_passages

EMPTY_BODY, NON_HTML, EMPTY_TEXT = "empty_body", "non_html", "empty_text"
EXTRACTOR = "trafilatura"

_MAGIC = (b"%PDF", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"RIFF", b"\x1f\x8b", b"OggS", b"ID3")
_MARKUP = re.compile(rb"<(?:html|head|body|p|div|title|!doctype)[\s>/]", re.I)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
_HIDDEN = re.compile(r"<(noscript|template|script|style)\b.*?</\1\s*>", re.I | re.S)


@dataclass(frozen=True, slots=True)
class Extracted:
    """A snapshot's text, or the reason it yields none."""

    text: str = ""
    markdown: str | None = None
    title: str | None = None
    passages: tuple[str, ...] = ()
    rejection: str | None = None
    detail: str | None = None


def _content_type(headers: Mapping[str, str]) -> str:
    for key, value in headers.items():
        if key.lower() == "content-type":
            return value
    return ""


def classify(body: bytes, headers: Mapping[str, str]) -> tuple[str, str | None] | None:
    """``(reason, detail)`` when the bytes cannot be an HTML page (empty, PDF, image, …), else ``None``."""
    if not body.strip():
        return EMPTY_BODY, f"{len(body)} bytes"
    kind = _content_type(headers).split(";", 1)[0].strip().lower()
    if kind and "html" not in kind and "xml" not in kind and kind != "text/plain":
        return NON_HTML, kind
    if body.lstrip()[:8].startswith(_MAGIC):
        return NON_HTML, "binary signature"
    if not _MARKUP.search(body[:65536]):
        return NON_HTML, "no HTML markup"
    return None


def decode(body: bytes, headers: Mapping[str, str]) -> str:
    """Text of an HTML page: the header's charset, else the ``<meta>`` one, else a detected one."""
    import codecs

    from charset_normalizer import from_bytes

    candidates = []
    match = re.search(r"charset\s*=\s*[\"']?([A-Za-z0-9._:-]+)", _content_type(headers), re.I)
    if match:
        candidates.append(match.group(1))
    meta = _META_CHARSET.search(body[:4096])
    if meta:
        candidates.append(meta.group(1).decode("ascii", "replace"))
    for name in candidates:
        try:
            codecs.lookup(name)
            return body.decode(name)
        except (LookupError, UnicodeDecodeError):
            continue
    best = from_bytes(body).best()
    return str(best) if best is not None else body.decode("utf-8", "replace")


def extract(body: bytes, url: str, headers: Mapping[str, str]) -> Extracted:
    """The main text of one archived page (trafilatura, tables kept, comments left out)."""
    import trafilatura

    problem = classify(body, headers)
    if problem is not None:
        return Extracted(rejection=problem[0], detail=problem[1])
    html = _HIDDEN.sub(" ", decode(body, headers))  # text shown only without scripts is not content
    options = dict(url=url, include_comments=False, include_tables=True, favor_precision=True)
    try:
        # Metadata extraction is left out: its date parser costs seconds per process and adds nothing here.
        text = (trafilatura.extract(html, output_format="txt", **options) or "").strip()
        markdown = trafilatura.extract(html, output_format="markdown", **options) if text else None
    except Exception as exc:  # one malformed page must not stop a crawl
        return Extracted(rejection=EMPTY_TEXT, detail=f"extractor failed: {type(exc).__name__}")
    if not text:
        return Extracted(rejection=EMPTY_TEXT, detail="no main text")
    return Extracted(
        text=text,
        markdown=(markdown or "").strip() or None,
        title=_title(html),
        passages=tuple(split_passages(text)),
    )


def _title(html: str) -> str | None:
    """The page's ``og:title``, else its ``<h1>``, else its ``<title>``."""
    import lxml.html

    try:
        root = lxml.html.document_fromstring(html)
    except Exception:
        return None
    for xpath in ("//meta[@property='og:title']/@content", "//h1", "//title"):
        for found in root.xpath(xpath):
            text = " ".join((found if isinstance(found, str) else found.text_content()).split())
            if text:
                return text
    return None
