"""Run the study server: one uvicorn process, links shown at start (``wikihowqa serve``, demo).

Links carry tokens, which are credentials. They go to a terminal only: when standard output is not one
(a log file, a service manager's journal, a CI job), the admin link is written to ``STUDY/admin-link.txt``
(readable by its owner only) and only that file's path is printed.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wikihowqa.errors import SettingsError
from wikihowqa.humaneval.app.server import create_app
from wikihowqa.humaneval.app.state import ServerSettings

ADMIN_LINK_FILE = "admin-link.txt"


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the server starts so that port 0 (any free port) works and the
    printed links carry the real port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise SettingsError(f"cannot listen on {host}:{port} ({exc.strerror})") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def url_host(host: str) -> str:
    if host in ("0.0.0.0", "::", ""):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def write_private(path: Path, text: str) -> Path:
    """Write ``text`` to a file only its owner can read (also when the file was there, readable)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        os.fchmod(fh.fileno(), 0o600)
        fh.write(text)
    return path


def announce(app: Any, base: str, say: Callable[[str], Any], *, tty: bool) -> None:
    """The start-up lines: the study, and the admin link; tokens only to a terminal."""
    service = app.state.service
    progress = service.progress()
    parts = ", ".join(f"{p} {v['tasks']} tasks" for p, v in progress["parts"].items())
    say(f"study {service.study_id} ({parts}); {progress['judgments']} judgments so far in {service.db.path}")
    admin_url = f"{base}/admin/#{app.state.admin_token}"
    if tty:
        say(f"admin page: {admin_url}")
        firsts = {}
        for row in service.assessor_rows():
            firsts.setdefault(row["part"], (row["assessor_id"], row["token"]))
        for part, (assessor_id, token) in firsts.items():
            say(f"  first {part} assessor ({assessor_id}): {base}/a/#{token}")
    else:
        path = write_private(service.folder / ADMIN_LINK_FILE, admin_url + "\n")
        say(f"admin page: {base}/admin/ — its link with the admin token is in {path} (readable by you only)")
    say("all assessor links: the admin page, or /api/admin/links.csv")


def serve(
    study_dir: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    settings: ServerSettings | None = None,
    open_browser: bool = False,
    say: Callable[[str], Any] = print,
    tty: bool | None = None,
) -> None:
    """Serve ``study_dir`` until interrupted. Shows the admin link (with its token) when standard output
    is a terminal (``tty``, default: ask ``sys.stdout``), else writes it to ``STUDY/admin-link.txt``."""
    import uvicorn

    settings = settings or ServerSettings()
    app = create_app(study_dir, settings)
    try:
        sock = bind(host, port)
    except BaseException:
        app.state.service.close()
        raise
    try:
        base = (settings.base_url or f"http://{url_host(host)}:{sock.getsockname()[1]}").rstrip("/")
        app.state.base_url = base  # links point here, never at a request's Host header
        announce(app, base, say, tty=sys.stdout.isatty() if tty is None else tty)
        if settings.crowd:
            say(f"crowd workers join at {base}/join?part=PART&worker_id=WORKER_ID")
        if host not in ("127.0.0.1", "localhost", "::1"):
            say(f"warning: listening on {host} over plain HTTP; put it behind an HTTPS reverse proxy")
        if open_browser:
            threading.Timer(1.0, webbrowser.open, [f"{base}/admin/#{app.state.admin_token}"]).start()
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="on", timeout_keep_alive=30
        )
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
        app.state.service.close()  # (the app's shutdown did it, unless the server never started)


@contextlib.contextmanager
def running(
    study_dir: Path, settings: ServerSettings | None = None, *, host: str = "127.0.0.1", port: int = 0
) -> Iterator[tuple[str, Any]]:
    """The server in a background thread of this process, for tests, screenshots and notebooks:
    yields (base URL, app) and stops the server on exit."""
    import uvicorn

    app = create_app(study_dir, settings)
    sock = bind(host, port)
    if not (settings and settings.base_url):
        app.state.base_url = f"http://{url_host(host)}:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the study server did not start")
        time.sleep(0.02)
    try:
        yield f"http://{url_host(host)}:{sock.getsockname()[1]}", app
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def demo_serve(ctx: Any, *, host: str = "127.0.0.1", port: int = 8000, open_browser: bool = True) -> None:
    """For ``wikihowqa demo --serve``: serve the study the demo built (``<demo>/dataset/study``)."""
    serve(ctx.study or ctx.out / "dataset" / "study", host=host, port=port, open_browser=open_browser)


__all__ = ["ADMIN_LINK_FILE", "announce", "bind", "demo_serve", "running", "serve", "write_private"]
