"""Run the study server: one uvicorn process, links printed at start (``wikihowqa serve``, demo)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import webbrowser
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wikihowqa.humaneval.app.state import ServerSettings


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the server starts so that port 0 (any free port) works and the
    printed links carry the real port."""
    from wikihowqa.errors import SettingsError

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


def serve(
    study_dir: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    settings: ServerSettings | None = None,
    open_browser: bool = False,
    say: Callable[[str], Any] = print,
) -> None:
    """Serve ``study_dir`` until interrupted. Prints the admin link (with its token) and where to find
    the assessors' links."""
    import uvicorn

    from wikihowqa.humaneval.app.server import create_app

    settings = settings or ServerSettings()
    app = create_app(study_dir, settings)
    sock = bind(host, port)
    real_port = sock.getsockname()[1]
    base = (settings.base_url or f"http://{url_host(host)}:{real_port}").rstrip("/")
    service = app.state.service
    progress = service.progress()
    parts = ", ".join(f"{p} {v['tasks']} tasks" for p, v in progress["parts"].items())
    say(f"study {service.study_id} ({parts}); {progress['judgments']} judgments so far in {service.db.path}")
    admin_url = f"{base}/admin/#{app.state.admin_token}"
    say(f"admin page: {admin_url}")
    firsts = {}
    for row in service.assessor_rows():
        firsts.setdefault(row["part"], (row["assessor_id"], row["token"]))
    for part, (assessor_id, token) in firsts.items():
        say(f"  first {part} assessor ({assessor_id}): {base}/a/#{token}")
    say("all assessor links: the admin page, or /api/admin/links.csv")
    if settings.crowd:
        say(f"crowd workers join at {base}/join?part=PART&worker_id=WORKER_ID")
    if host not in ("127.0.0.1", "localhost", "::1"):
        say(f"warning: listening on {host} over plain HTTP; put it behind an HTTPS reverse proxy")
    if open_browser:
        threading.Timer(1.0, webbrowser.open, [admin_url]).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_keep_alive=30)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


@contextlib.contextmanager
def running(
    study_dir: Path, settings: ServerSettings | None = None, *, host: str = "127.0.0.1", port: int = 0
) -> Iterator[tuple[str, Any]]:
    """The server in a background thread of this process, for tests, screenshots and notebooks:
    yields (base URL, app) and stops the server on exit."""
    import uvicorn

    from wikihowqa.humaneval.app.server import create_app

    app = create_app(study_dir, settings)
    sock = bind(host, port)
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
    """For ``wikihowqa demo --serve``: serve the study the demo built (``<demo>/study``)."""
    serve(ctx.out / "study", host=host, port=port, open_browser=open_browser)


__all__ = ["bind", "demo_serve", "running", "serve"]
