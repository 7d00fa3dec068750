"""A corpus's captures as a WARC file, so real archive software (pywb, OpenWayback) can serve them.

Each capture becomes one ``response`` record written with ``warcio`` (the Webrecorder library pywb
itself reads): its HTTP status line and recorded headers, its bytes, and its capture time as
``WARC-Date``, which is where an archive's index takes the capture's timestamp from.
"""

from __future__ import annotations

import http
import io
from datetime import UTC, datetime
from pathlib import Path

from wikihowqa.replay.corpus import Capture, Corpus


def _status_line(code: str) -> str:
    number = int(code) if code.isdigit() else 200
    try:
        phrase = http.HTTPStatus(number).phrase
    except ValueError:
        phrase = "Unknown"
    return f"{number} {phrase}"


def warc_date(timestamp: str) -> str:
    """``20190811093000`` → ``2019-08-11T09:30:00Z``."""
    moment = datetime.strptime(timestamp, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_warc(corpus: Corpus, path: Path | str, *, captures: list[Capture] | None = None) -> Path:
    """Write ``captures`` (default: all of the corpus's, in index order) as a gzipped WARC file."""
    # imported where used: only writers of WARC files need warcio
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    path = Path(path)
    rows = (
        captures if captures is not None else sorted(corpus.captures, key=lambda c: (c.urlkey, c.timestamp))
    )
    with path.open("wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for capture in rows:
            body = corpus.snapshots.get(capture.file, b"") if capture.file else b""
            headers = [(k, v) for k, v in capture.headers if k.lower() != "content-length"]
            if capture.location and not any(k.lower() == "location" for k, _ in headers):
                headers.append(("Location", capture.location))
            headers.append(("Content-Length", str(len(body))))
            record = writer.create_warc_record(
                capture.url,
                "response",
                payload=io.BytesIO(body),
                http_headers=StatusAndHeaders(_status_line(capture.statuscode), headers, protocol="HTTP/1.1"),
                warc_headers_dict={"WARC-Date": warc_date(capture.timestamp)},
            )
            writer.write_record(record)
    return path
