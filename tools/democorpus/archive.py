"""Pages and their declared captures → CDX rows, snapshot files (shared by content) and parse ground truth."""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from .binary import pdf, png_chart
from .markup import has_table, parse_blocks, truth_lines
from .sources import Capture, Page
from .themes import NOT_FOUND, PageView, charset_name, js_shell, render

#: Seconds between a capture of a paginated page and the crawler's capture of each further part.
PART_DELAY = 53
NOT_FOUND_FILE = "error-404.html"


@dataclass
class Archive:
    rows: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    truth: dict[str, dict[str, Any]] = field(default_factory=dict)
    _by_digest: dict[str, str] = field(default_factory=dict)

    def store(self, name: str, data: bytes) -> str:
        """The file name holding ``data``: an existing one when the bytes were stored already."""
        digest = hashlib.sha1(data).hexdigest()
        if digest in self._by_digest:
            return self._by_digest[digest]
        if name in self.files:
            raise ValueError(f"snapshot file name {name} reused for different content")
        self.files[name] = data
        self._by_digest[digest] = name
        return name


def _shift(timestamp: str, seconds: int) -> str:
    moment = Capture(timestamp).when + timedelta(seconds=seconds)
    return moment.strftime("%Y%m%d%H%M%S")


def _content_type(page: Page) -> str:
    if page.charset_declared in ("header", "both"):
        return f"text/html; charset={charset_name(page.encoding)}"
    return "text/html"


def _letter(version: int) -> str:
    return chr(ord("a") + version) if version < 26 else f"v{version}"


def _html_files(page: Page, parts: list[str]) -> list[tuple[str, str, PageView]]:
    """(url suffix, file suffix, view) of each file one capture of an ``ok`` page consists of."""
    total = len(parts)
    views = []
    for number, text in enumerate(parts, start=1):
        view = PageView(
            page,
            page.url if number == 1 else f"{page.url}?page={number}",
            parse_blocks(text),
            number,
            total,
            number == total,
        )
        views.append(("" if number == 1 else f"?page={number}", "" if number == 1 else f"-p{number}", view))
    if page.view_all:
        whole = "\n\n".join(parts)
        view = PageView(page, f"{page.url}?view=all", parse_blocks(whole), 0, total, True)
        views.append(("?view=all", "-all", view))
    return views


def _truth(view: PageView, encoding: str) -> dict[str, Any]:
    page = view.page
    return {
        "main_text": "\n".join(truth_lines(view.blocks)),
        "title": page.title,
        "has_comments": bool(view.show_comments and page.comments),
        "has_table": has_table(view.blocks),
        "pagination": {
            "next": view.next_url,
            "view_all": view.view_all_url if page.view_all and view.number != 0 else None,
        },
        "encoding": encoding,
    }


def _capture_page(archive: Archive, page: Page, capture: Capture, updates: list[str]) -> None:
    version = _letter(len(updates))
    base = f"{page.slug}-{version}"
    row = {"url": page.url, "timestamp": capture.timestamp, "statuscode": "200"}
    if page.fate == "ok":
        parts = page.parts()
        if updates:
            parts[-1] = "\n\n".join([parts[-1], *updates])
        for i, (url_suffix, file_suffix, view) in enumerate(_html_files(page, parts)):
            data = render(view).encode(page.encoding, errors="xmlcharrefreplace")
            name = archive.store(f"{base}{file_suffix}.html", data)
            archive.truth.setdefault(name, _truth(view, page.encoding))
            archive.rows.append(
                {
                    "url": page.url + url_suffix,
                    "timestamp": _shift(capture.timestamp, i * PART_DELAY),
                    "statuscode": "200",
                    "mimetype": "text/html",
                    "file": name,
                    "headers": {"Content-Type": _content_type(page)},
                }
            )
        return
    if page.fate == "empty":
        name = archive.store(f"{base}.html", b"")
        row |= {"mimetype": "text/html", "file": name, "headers": {"Content-Type": "text/html"}}
    elif page.fate == "pdf":
        paragraphs = truth_lines(
            parse_blocks("\n\n".join([page.body.replace("<!-- page -->", ""), *updates]))
        )
        data = pdf(page.title, paragraphs, author=page.author, created=page.published)
        name = archive.store(f"{base}.pdf", data)
        row |= {"mimetype": "application/pdf", "file": name, "headers": {"Content-Type": "application/pdf"}}
    elif page.fate == "image":
        h = zlib.crc32(page.url.encode())
        values = [(h >> (5 * i)) % 80 + 15 for i in range(5)]
        name = archive.store(f"{base}.png", png_chart(values))
        row |= {"mimetype": "image/png", "file": name, "headers": {"Content-Type": "image/png"}}
    elif page.fate == "js_shell":
        name = archive.store(f"{base}.html", js_shell(page).encode("utf-8"))
        archive.truth.setdefault(
            name,
            {
                "main_text": "",
                "title": page.title,
                "has_comments": False,
                "has_table": False,
                "pagination": {"next": None, "view_all": None},
                "encoding": "utf-8",
            },
        )
        row |= {
            "mimetype": "text/html",
            "file": name,
            "headers": {"Content-Type": "text/html; charset=utf-8"},
        }
    archive.rows.append(row)


def build_archive(pages: list[Page] | tuple[Page, ...]) -> Archive:
    """Every capture of every page; updates accumulate, so a capture shows all updates up to its date."""
    archive = Archive()
    for page in pages:
        updates: list[str] = []
        for capture in page.captures:
            if capture.status == 200:
                if capture.update:
                    updates.append(capture.update)
                _capture_page(archive, page, capture, updates)
            elif capture.status == 404:
                name = archive.store(NOT_FOUND_FILE, NOT_FOUND.encode("ascii"))
                archive.rows.append(
                    {
                        "url": page.url,
                        "timestamp": capture.timestamp,
                        "statuscode": "404",
                        "mimetype": "text/html",
                        "file": name,
                        "headers": {"Content-Type": "text/html"},
                    }
                )
            else:
                archive.rows.append(
                    {
                        "url": page.url,
                        "timestamp": capture.timestamp,
                        "statuscode": str(capture.status),
                        "mimetype": "text/html",
                        "location": capture.location,
                        "headers": {"Content-Type": "text/html", "Location": capture.location},
                    }
                )
    archive.rows.sort(key=lambda r: (r["url"], r["timestamp"]))
    return archive
