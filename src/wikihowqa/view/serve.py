"""``--serve``: the site over HTTP on 127.0.0.1 (the standard library's file server), with the pages' CSP
also sent as a header, and the browser opened on it."""

from __future__ import annotations

import errno
import functools
import http.server
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import SettingsError, check_port
from wikihowqa.view.pages import CSP


class _Handler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def server(site: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """A server of ``site`` on 127.0.0.1 (``port`` 0: any free one); call ``serve_forever`` to run it.

    A port out of range, taken or not allowed is one line naming it (bound before the site is built, so
    the mistake costs nothing)."""
    check_port(port)
    handler = functools.partial(_Handler, directory=str(site))
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        why = "in use by another program" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        raise SettingsError(
            f"--port {port}: cannot serve on 127.0.0.1:{port} ({why}); choose another --port, or 0 for any "
            "free one"
        ) from None


def serve(
    site: Path,
    port: int = 0,
    *,
    open_browser: bool = True,
    ready: Callable[[str], None] = print,
    httpd: http.server.ThreadingHTTPServer | None = None,
) -> None:
    """Serve ``site`` until interrupted (``KeyboardInterrupt``); ``ready`` is told the address first.

    ``httpd``: a server :func:`server` already bound (``port`` is then its)."""
    httpd = httpd or server(site, port)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/index.html"
    ready(url)
    if open_browser:
        threading.Timer(0.3, webbrowser.open, args=(url,)).start()
    try:
        httpd.serve_forever()
    finally:
        httpd.server_close()
