"""Bytes → text without mojibake: BOM, HTTP header, ``<meta>``, then statistical detection.

The order follows the HTML standard's encoding sniffing (a byte-order mark outranks the header, because
it cannot be wrong; then the transport header; then a ``<meta>`` prescan; then detection), with two
corrections real archives need: a declared encoding that cannot decode the bytes is dropped for the next
source, and a page declared in a single-byte legacy encoding whose bytes are valid multi-byte UTF-8 is read
as UTF-8 (servers that default to ``ISO-8859-1`` in front of UTF-8 pages are common; text in a legacy
encoding is practically never valid UTF-8 by chance). Labels map as browsers map them (``iso-8859-1`` and
``ascii`` are windows-1252, ``shift_jis`` is cp932, ...), so declared pages decode as a browser shows them.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from dataclasses import dataclass

#: Bytes looked at by the ``<meta>`` prescan (the standard says 1024; real pages put long ``<head>`` first).
PRESCAN_BYTES = 4096
#: Bytes given to the statistical detector (it is slow on whole multi-megabyte pages).
DETECT_BYTES = 200_000

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# What browsers decode a label as, where Python's codec of the same name differs (WHATWG Encoding).
_BROWSER_CODEC = {
    "latin-1": "cp1252",
    "iso8859-1": "cp1252",
    "ascii": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "big5": "big5hkscs",
    # A <meta> can never truly declare UTF-16 (it would not be readable as ASCII); browsers use UTF-8.
    "utf-16": "utf-8",
    "utf-16-le": "utf-8",
    "utf-16-be": "utf-8",
}
_SINGLE_BYTE_WESTERN = {"cp1252", "cp1250", "cp1254", "cp1257", "iso8859-15", "iso8859-2", "mac-roman"}

_CHARSET_PARAM = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9._:+-]+)""", re.I)
_META = re.compile(rb"<meta\b[^>]*>", re.I)
_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""", re.I)


def _c1_passthrough(error: UnicodeError) -> tuple[str, int]:
    # windows-1252 leaves five bytes undefined; browsers map them to the C1 controls, so do we.
    if not isinstance(error, UnicodeDecodeError):  # registered for decoding only
        raise error
    return error.object[error.start : error.end].decode("latin-1"), error.end


codecs.register_error("wikihowqa-c1", _c1_passthrough)


@dataclass(frozen=True, slots=True)
class Decoded:
    """Text of a page, the codec that produced it and where the choice came from."""

    text: str
    encoding: str
    source: str  # "bom", "header", "meta", "utf-8", "detected" or "fallback"


def codec_for(label: str | bytes | None) -> str | None:
    """Python codec a browser would use for an encoding label, or ``None`` for an unknown label."""
    if not label:
        return None
    if isinstance(label, bytes):
        label = label.decode("ascii", "ignore")
    label = label.strip().strip("\"'").lower()
    if label in {"x-sjis", "sjis", "ms_kanji", "windows-31j", "shift-jis"}:
        label = "shift_jis"
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    return _BROWSER_CODEC.get(name, name)


def header_charset(headers: Mapping[str, str] | None) -> str | None:
    """Charset parameter of a ``Content-Type`` header (case-insensitive lookup)."""
    if not headers:
        return None
    for key, value in headers.items():
        if key.lower() == "content-type" and value:
            found = _CHARSET_PARAM.search(value.encode("latin-1", "ignore"))
            return found.group(1).decode("ascii") if found else None
    return None


def meta_charset(head: bytes) -> str | None:
    """Charset declared by ``<meta charset>``, ``<meta http-equiv=Content-Type>`` or an XML declaration."""
    declared = _XML_DECL.match(head)
    if declared:
        return declared.group(1).decode("ascii")
    for tag in _META.finditer(head[:PRESCAN_BYTES]):
        found = _CHARSET_PARAM.search(tag.group(0))
        if found:
            return found.group(1).decode("ascii")
    return None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A page cut mid-character by a truncated download is still UTF-8.
        return exc.start >= len(data) - 3 and exc.reason == "unexpected end of data"
    return True


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _mostly_utf8(data: bytes) -> str | None:
    """UTF-8 text of a page with a few broken bytes among many valid multi-byte characters, else None."""
    text = data.decode("utf-8", "replace")
    bad = text.count("\ufffd")
    non_ascii = sum(map(len, _NON_ASCII.findall(text)))
    valid = non_ascii - bad  # legacy-encoded text almost never forms valid multi-byte sequences
    return text if valid >= 10 and bad <= 0.1 * valid else None


def _try(data: bytes, codec: str) -> str | None:
    errors = "wikihowqa-c1" if codec == "cp1252" else "strict"
    try:
        return data.decode(codec, errors)
    except UnicodeDecodeError:
        return None
    except LookupError:
        return None


def _declared(data: bytes, codec: str | None) -> str | None:
    if codec is None:
        return None
    if codec in _SINGLE_BYTE_WESTERN and not data.isascii() and _is_utf8(data):
        return None  # mislabelled UTF-8: let the UTF-8 check take it
    if codec == "utf-8":
        return data.decode("utf-8", "replace") if _is_utf8(data) else _mostly_utf8(data)
    return _try(data, codec)


def detect(data: bytes) -> str | None:
    """Most plausible codec by statistics; ties go to windows-1252, the legacy web's commonest code page."""
    from charset_normalizer import from_bytes

    results = list(from_bytes(data[:DETECT_BYTES]))
    if not results:
        return None
    best = min(r.chaos for r in results)
    top = [r for r in results if r.chaos == best]
    coherent = max(r.coherence for r in top)
    top = [r for r in top if r.coherence == coherent]
    names = [codec_for(r.encoding) or r.encoding for r in top]
    for preferred in ("utf-8", "cp1252"):
        if preferred in names:
            return preferred
    return names[0]


# Bytes 0x80-0xBF (UTF-8 continuation bytes) as windows-1252 or latin-1 shows them: the C1 controls,
# windows-1252's punctuation and the latin-1 symbols and NBSP.
_CP1252_HIGH = bytes(range(0x80, 0xA0)).decode("cp1252", "wikihowqa-c1")
_CONT = "[\x80-\xbf" + re.escape(_CP1252_HIGH) + "]"
_SEQUENCE = f"[\xc2-\xdf]{_CONT}|[\xe0-\xef]{_CONT}{{2}}|[\xf0-\xf4]{_CONT}{{3}}"
_UTF8_AS_CP1252 = re.compile(_SEQUENCE)
_RUN = re.compile(f"(?:{_SEQUENCE})+")
#: A lead byte followed by a continuation byte: where every run starts (the two sets are disjoint). Runs
#: are looked for only there, because a pattern led by a character class is scanned about ten times faster
#: than the alternation of :data:`_RUN` (repair took a sixth of the parser's time when ``_RUN`` scanned).
_PAIR = re.compile(f"[\xc2-\xf4]{_CONT}")


def _sub_runs(text: str) -> str:
    """``_RUN.sub(_reread, text)``, trying :data:`_RUN` only where a pair starts."""
    parts: list[str] = []
    done = 0
    for pair in _PAIR.finditer(text):
        if pair.start() < done:
            continue
        run = _RUN.match(text, pair.start())
        if run is not None:
            parts += (text[done : run.start()], _reread(run))
            done = run.end()
    return "".join((*parts, text[done:])) if parts else text


def _as_bytes(run: str) -> bytes:
    return b"".join(c.encode("latin-1") if ord(c) < 256 else c.encode("cp1252") for c in run)


def _implausible(run: str, raw: bytes) -> bool:
    # A C1 control never stands in real text; Â or Ã before a latin-1 symbol ("Â®", "Ã©") hardly does; a
    # lower-case accented letter followed by two symbols, one of them windows-1252 punctuation ("â€™" for
    # U+2019, E2 80 99), neither. "à « »" (E0 A0 AB), "Grüß’" (DF 92) and "NÃO”" (C3 94) are valid UTF-8
    # too, and pass none of these tests.
    if any("\x80" <= c <= "\x9f" for c in run):
        return True
    if raw[0] in (0xC2, 0xC3):
        return "\xa0" <= run[1] <= "\xbf"
    return raw[0] >= 0xE0 and any(0x80 <= b < 0xA0 for b in raw[1:])


def _reread_one(found: re.Match[str]) -> str:
    try:
        return _as_bytes(found.group(0)).decode("utf-8")
    except UnicodeDecodeError:
        return found.group(0)


def _reread(found: re.Match[str]) -> str:
    # Sequences side by side are read again together once one of them is no plausible text: "Ëœ" (CB 9C)
    # alone could be text, but after "Ã¢â‚¬" it is the last byte of U+2018 encoded twice.
    run = found.group(0)
    if not any(_implausible(m.group(0), _as_bytes(m.group(0))) for m in _UTF8_AS_CP1252.finditer(run)):
        return run
    return _UTF8_AS_CP1252.sub(_reread_one, run)


def repair_mojibake(text: str) -> str:
    """Text with UTF-8 that was read as windows-1252 (once or twice) before it was saved, read again.

    Crawlers and CMSs that decode UTF-8 as windows-1252 and store the result as UTF-8 leave "weâ€™ll" in
    otherwise valid pages; the bytes are correct UTF-8, so only the text shows it. A run is re-read only
    where its characters spell a whole UTF-8 sequence, and only where that run is no plausible text.
    """
    for _ in range(3):  # text encoded twice needs two passes ("Ã¢Â€Â™" → "â€™" → "’")
        repaired = _sub_runs(text)
        if repaired == text:
            break
        text = repaired
    return text


def decode_html(data: bytes, headers: Mapping[str, str] | None = None) -> Decoded:
    """Decode a page as a browser would, but never into mojibake where the bytes say otherwise, and with
    the mojibake a crawler or CMS saved into the bytes themselves read again (:func:`repair_mojibake`)."""
    decoded = _decode(data, headers)
    text = repair_mojibake(decoded.text)
    return decoded if text == decoded.text else Decoded(text, decoded.encoding, decoded.source)


def _decode(data: bytes, headers: Mapping[str, str] | None) -> Decoded:
    for bom, marked in _BOMS:
        if data.startswith(bom):
            return Decoded(data[len(bom) :].decode(marked, "replace"), marked, "bom")
    for source, label in (("header", header_charset(headers)), ("meta", meta_charset(data[:PRESCAN_BYTES]))):
        text = _declared(data, codec_for(label))
        if text is not None:
            return Decoded(text, codec_for(label) or "", source)
    if _is_utf8(data):
        return Decoded(data.decode("utf-8", "replace"), "utf-8", "utf-8")
    mostly = _mostly_utf8(data)
    if mostly is not None:
        return Decoded(mostly, "utf-8", "utf-8")
    codec = detect(data)
    if codec is not None:
        detected = _try(data, codec)
        if detected is not None:
            return Decoded(detected, codec, "detected")
    return Decoded(data.decode("cp1252", "wikihowqa-c1"), "cp1252", "fallback")
