"""Small, valid, byte-stable PDF and PNG files for the non-HTML snapshots.

Written by hand rather than with a PDF or imaging library: the corpus must re-render byte for byte on any
machine, and library output (producer strings, zlib/zlib-ng compression choices) is not stable across
versions. The PNG uses stored (uncompressed) deflate blocks for the same reason.
"""

from __future__ import annotations

import struct
import textwrap
import zlib
from datetime import date


def _pdf_string(text: str) -> str:
    raw = text.encode("cp1252", errors="replace").decode("latin-1")
    return "(" + raw.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def pdf(title: str, paragraphs: list[str], *, author: str | None, created: date | None) -> bytes:
    """A letter-size PDF 1.4 with the title and paragraphs set in Helvetica, as many pages as needed."""
    lines: list[tuple[str, str]] = [("F2", title), ("F1", "")]
    for para in paragraphs:
        lines.extend(("F1", chunk) for chunk in textwrap.wrap(para, 92) or [""])
        lines.append(("F1", ""))
    per_page = 52
    pages = [lines[i : i + per_page] for i in range(0, len(lines), per_page)] or [[]]

    objects: list[str] = []  # object n is objects[n - 1]
    page_ids = [5 + 2 * i for i in range(len(pages))]
    objects.append("<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{' '.join(f'{p} 0 R' for p in page_ids)}] /Count {len(pages)} >>")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    for i, page_lines in enumerate(pages):
        ops = ["BT", "/F1 10 Tf", "13 TL", "54 740 Td"]
        for font, text in page_lines:
            size = 14 if font == "F2" else 10
            ops.append(f"/{font} {size} Tf {_pdf_string(text)} Tj T*")
        ops.append("ET")
        stream = "\n".join(ops)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents {page_ids[i] + 1} 0 R >>"
        )
        objects.append(f"<< /Length {len(stream.encode('latin-1'))} >>\nstream\n{stream}\nendstream")
    stamp = f"D:{created:%Y%m%d}000000Z" if created else "D:20150101000000Z"
    info = f"<< /Title {_pdf_string(title)} /Producer (DemoWriter 2.1) /CreationDate ({stamp})"
    info += f" /Author {_pdf_string(author)} >>" if author else " >>"
    objects.append(info)

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R /Info {len(objects)} 0 R >>"
    out += f"trailer\n{trailer}\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def _stored_deflate(data: bytes) -> bytes:
    """A zlib stream of stored blocks: valid, and identical on every zlib implementation."""
    out = bytearray(b"\x78\x01")
    blocks = [data[i : i + 65535] for i in range(0, len(data), 65535)] or [b""]
    for i, block in enumerate(blocks):
        final = 1 if i == len(blocks) - 1 else 0
        out += bytes([final]) + struct.pack("<HH", len(block), len(block) ^ 0xFFFF) + block
    out += struct.pack(">I", zlib.adler32(data) & 0xFFFFFFFF)
    return bytes(out)


def png_chart(values: list[int], *, width: int = 96, height: int = 64) -> bytes:
    """A palette PNG bar chart of ``values`` (0–100): what an infographic capture looks like to a crawler."""
    palette = bytes([255, 255, 255, 40, 90, 160, 200, 200, 200, 30, 30, 30])
    rows = []
    n = max(len(values), 1)
    bar = max((width - 8) // n, 2)
    for y in range(height):
        row = bytearray([0])  # filter type 0
        for x in range(width):
            colour = 0
            if y == height - 4 or x == 4:
                colour = 3
            elif y % 16 == 0:
                colour = 2
            else:
                i = (x - 6) // bar
                if 0 <= i < len(values) and (x - 6) % bar < bar - 2:
                    top = height - 4 - int(values[i] * (height - 8) / 100)
                    if top <= y < height - 4:
                        colour = 1
            row.append(colour)
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"PLTE", palette)
        + _chunk(b"IDAT", _stored_deflate(b"".join(rows)))
        + _chunk(b"IEND", b"")
    )
