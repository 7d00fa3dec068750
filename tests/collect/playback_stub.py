"""A Wayback playback endpoint on loopback, in a thread, answering each capture as a test scripts it.

``hydrate`` runs its own event loop (and the gzip bomb test its own process), so the archive it asks must
live outside both: a :class:`http.server.ThreadingHTTPServer` that answers ``/web/<ts>id_/<url>`` with the
steps scripted for ``<url>`` (one per request, the last repeated), adds ``Memento-Datetime`` to every 200
(a capture), counts the requests per URL and how many were answered at once, and answers an empty CDX
result to anything else.
"""

from __future__ import annotations

import re
import struct
import threading
import time
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_RAW = re.compile(r"^/web/(\d{14})id_/(.+)$")


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # how long the archive takes to answer


def page(title: str) -> bytes:
    paragraphs = "".join(
        f"<p>{title}: soak the beans overnight, drain them and simmer for an hour in fresh water {i}.</p>"
        for i in range(4)
    )
    head = f"<html><head><title>{title}</title></head>"
    return f"{head}<body><article><h1>{title}</h1>{paragraphs}</article></body></html>".encode()


def gzip_bomb(mib: int) -> bytes:
    """A valid gzip member of ``mib`` MiB of zeros, about 1,040 bytes per MiB: one deflate piece of 1 MiB
    fully flushed (so each is the same bytes) repeated, an empty final block, the CRC-32 and the size."""
    zeros = bytes(1 << 20)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = deflate.compress(zeros) + deflate.flush(zlib.Z_FULL_FLUSH)
    end = deflate.flush(zlib.Z_FINISH)
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return header + piece * mib + end + struct.pack("<II", crc, (mib << 20) & 0xFFFFFFFF)


class PlaybackStub:
    """Use as a context manager; ``playback_url`` and ``cdx_url`` are its endpoints."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[Answer]] = {}
        self.hits: dict[str, int] = {}
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                stub._answer(self)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def playback_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/web/"

    @property
    def cdx_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/cdx"

    def script(self, url: str, *answers: Answer) -> None:
        with self._lock:
            self.scripts[url] = list(answers)

    def __enter__(self) -> PlaybackStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _answer(self, request: BaseHTTPRequestHandler) -> None:
        m = _RAW.match(request.path)
        if m is None:
            answer, timestamp = Answer(200, b""), None
        else:
            timestamp, url = m.groups()
            with self._lock:
                self.hits[url] = self.hits.get(url, 0) + 1
                steps = self.scripts.get(url) or [Answer(404, b"not archived")]
                answer = steps.pop(0) if len(steps) > 1 else steps[0]
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                time.sleep(answer.delay_s)
            finally:
                with self._lock:
                    self.in_flight -= 1
        headers = {"Content-Type": "text/html; charset=utf-8", **answer.headers}
        if answer.status == 200 and timestamp is not None:
            moment = datetime.strptime(timestamp, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
            headers["Memento-Datetime"] = format_datetime(moment, usegmt=True)
        try:
            request.send_response(answer.status)
            for name, value in headers.items():
                request.send_header(name, value)
            request.send_header("Content-Length", str(len(answer.body)))
            request.end_headers()
            request.wfile.write(answer.body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading (a body past its cap): what the test wants
