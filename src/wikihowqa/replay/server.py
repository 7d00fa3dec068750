"""The HTTP side of the replay site: aiohttp's web server in a background thread, on loopback only.

aiohttp serves every connection as an asyncio task, so injected latency (``asyncio.sleep``) overlaps
across any number of concurrent connections instead of holding a thread each, and the handler can reach
the transport to drop a connection or cut a body short, which a framework that hides the socket
(ASGI servers answer 500 when a handler fails) cannot do.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from wikihowqa.core.errors import SettingsError
from wikihowqa.core.retry_after import retry_after_value
from wikihowqa.replay.action_api import MediaWikiApi
from wikihowqa.replay.archive_api import Archive
from wikihowqa.replay.corpus import Corpus, load_corpus
from wikihowqa.replay.faults import Decision, Faults, Injector
from wikihowqa.replay.reply import Reply
from wikihowqa.replay.wiki import Wiki

_STATUS_TEXT = {
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def _fault_page(status: int, retry_after: int | None) -> Reply:
    text = _STATUS_TEXT.get(status, "Error")
    headers = {"Content-Type": "text/html; charset=utf-8"}
    if retry_after is not None:
        headers["Retry-After"] = retry_after_value(retry_after)
    body = (
        f"<!DOCTYPE html><html><head><title>{status} {text}</title></head><body><h1>{text}</h1></body></html>"
    )
    return Reply(status, headers, body.encode())


def _hang_up(request: web.Request) -> None:
    """Close the socket under the request; raising CancelledError stops aiohttp from answering."""
    transport = request.transport
    if transport is not None:
        transport.close()
    raise asyncio.CancelledError


def require_loopback(host: str) -> str:
    if host == "localhost":
        return "127.0.0.1"
    try:
        if ipaddress.ip_address(host).is_loopback:
            return host
    except ValueError:
        pass
    raise SettingsError(f"the replay site listens on loopback only (127.0.0.1 or ::1), not on {host!r}")


class ReplayApp:
    """Routes, endpoint handlers and fault injection, independent of how the server is run."""

    def __init__(self, corpus: Corpus, faults: Faults, *, archive_style: str = "ia") -> None:
        self.corpus = corpus
        self.wiki = Wiki(corpus)
        self.api = MediaWikiApi(self.wiki)
        self.archive = Archive(corpus.captures, corpus.snapshots, style=archive_style)
        self.injector = Injector(faults)

    def build(self) -> web.Application:
        app = web.Application()
        app.router.add_route("GET", "/api.php", self._mediawiki)
        app.router.add_route("POST", "/api.php", self._mediawiki)
        # The CDX endpoint where the archive's software serves it: the Internet Archive's, or pywb's
        # /<collection>/cdx (the collection here is "web"); the other path is a 404, as there.
        if self.archive.style == "pywb":
            app.router.add_get("/web/cdx", self._cdx)
        else:
            app.router.add_get("/cdx/search/cdx", self._cdx)
        app.router.add_get("/web/{rest:.*}", self._playback)
        app.router.add_get("/__stats", self._stats)
        app.router.add_get("/", self._index)
        return app

    # ------------------------------------------------------------------ fault wrapper

    async def _guarded(
        self, request: web.Request, group: str, produce: Callable[[], Awaitable[Reply]]
    ) -> web.StreamResponse:
        injector = self.injector
        injector.begin(group)
        try:
            decision: Decision = injector.decide(group)
            if decision.delay_s > 0:
                await asyncio.sleep(decision.delay_s)
            if decision.action == "drop":
                injector.record(group, decision, None, 0)
                _hang_up(request)
            if decision.action in ("rate_limited", "throttled", "error"):
                reply = _fault_page(decision.status, decision.retry_after)
            else:
                reply = await produce()
            if decision.truncate:
                return await self._send_truncated(request, group, decision, reply)
            injector.record(group, decision, reply.status, len(reply.body))
            return web.Response(status=reply.status, headers=dict(reply.headers), body=reply.body)
        finally:
            injector.end(group)

    async def _send_truncated(
        self, request: web.Request, group: str, decision: Decision, reply: Reply
    ) -> web.StreamResponse:
        """Announce the full Content-Length, send half the bytes, close: the client reads short."""
        body = reply.body
        declared = max(len(body), 1)
        part = body[: len(body) // 2]
        resp = web.StreamResponse(status=reply.status, headers=dict(reply.headers))
        resp.content_length = declared
        await resp.prepare(request)
        if part:
            await resp.write(part)
        self.injector.record(group, decision, reply.status, len(part))
        _hang_up(request)
        return resp  # not reached

    # ------------------------------------------------------------------ endpoints

    @staticmethod
    def _server(request: web.Request) -> str:
        return f"{request.scheme}://{request.host}"

    async def _mediawiki(self, request: web.Request) -> web.StreamResponse:
        async def produce() -> Reply:
            params: dict[str, str] = {}
            for key, value in request.query.items():
                params[key] = value  # PHP semantics: the last of repeated names wins
            if request.method == "POST":
                form = await request.post()
                for key, value in form.items():
                    if isinstance(value, str):
                        params[key] = value
            lag = self.injector.faults.mediawiki.lag_s
            return self.api.handle(params, server=self._server(request), lag_s=lag)

        return await self._guarded(request, "mediawiki", produce)

    async def _cdx(self, request: web.Request) -> web.StreamResponse:
        async def produce() -> Reply:
            params = {key: request.query.getall(key) for key in request.query}
            return self.archive.cdx(params)

        return await self._guarded(request, "cdx", produce)

    async def _playback(self, request: web.Request) -> web.StreamResponse:
        async def produce() -> Reply:
            path, server = request.raw_path, self._server(request)
            if path.startswith("/web/timemap/link/"):
                return self.archive.timemap(path[len("/web/timemap/link/") :], server)
            if not re.match(r"^/web/\d{1,14}", path):
                return self.archive.timegate(
                    path[len("/web/") :], request.headers.get("Accept-Datetime"), server
                )
            return self.archive.playback(path, server)

        return await self._guarded(request, "playback", produce)

    async def _stats(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.injector.snapshot())

    async def _index(self, request: web.Request) -> web.StreamResponse:
        base = self._server(request)
        return web.json_response(
            {
                "mediawiki": f"{base}/api.php",
                "cdx": f"{base}/cdx/search/cdx",
                "playback": f"{base}/web/<timestamp>id_/<url>",
                "stats": f"{base}/__stats",
                "corpus": str(self.corpus.path) if self.corpus.path else None,
            }
        )


class ReplaySite:
    """A running replay site; use as a context manager (or call :meth:`start` and :meth:`stop`).

    >>> with ReplaySite(corpus_dir) as site:      # doctest: +SKIP
    ...     httpx.get(site.mediawiki_url, params={"action": "query", "meta": "siteinfo", "format": "json"})
    """

    def __init__(
        self,
        corpus_dir: str | Path | None = None,
        *,
        corpus: Corpus | None = None,
        faults: Faults | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        archive_style: str = "ia",
    ) -> None:
        """``archive_style``: answer as the Internet Archive (``ia``) or as pywb (``pywb``: CDX at
        ``/web/cdx`` in pywb's dialect, fuzzy rows, redirect captures pointing at the live web)."""
        if (corpus_dir is None) == (corpus is None):
            raise SettingsError("give the replay site either a corpus folder or a loaded corpus")
        self.host = require_loopback(host)
        if not 0 <= port <= 65535:
            raise SettingsError(f"port must be between 0 and 65535, got {port}")
        self._requested_port = port
        self.corpus = corpus if corpus is not None else load_corpus(corpus_dir)  # type: ignore[arg-type]
        self.app = ReplayApp(self.corpus, faults or Faults(), archive_style=archive_style)
        self.port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    # ------------------------------------------------------------------ addresses

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the replay site is not running")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def mediawiki_url(self) -> str:
        return f"{self.url}/api.php"

    @property
    def wayback_url(self) -> str:
        """Base of the Wayback endpoints: ``/cdx/search/cdx`` and ``/web/<timestamp>id_/<url>``."""
        return self.url

    @property
    def cdx_url(self) -> str:
        return f"{self.url}/web/cdx" if self.app.archive.style == "pywb" else f"{self.url}/cdx/search/cdx"

    @property
    def playback_url(self) -> str:
        return f"{self.url}/web/"

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """The socket addresses actually bound (always loopback)."""
        return [tuple(a[:2]) for a in self._runner.addresses] if self._runner is not None else []

    @property
    def faults(self) -> Faults:
        return self.app.injector.faults

    def stats(self) -> dict[str, Any]:
        """Counters of what each endpoint group served and which faults it injected."""
        return self.app.injector.snapshot()

    def reset_stats(self) -> None:
        self.app.injector.reset()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> ReplaySite:
        if self._thread is not None:
            return self
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="wikihowqa-replay-site", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()
            self._thread = None
            error, self._error = self._error, None
            if isinstance(error, OSError):
                raise SettingsError(
                    f"cannot listen on {self.host}:{self._requested_port}: {error.strerror}"
                ) from error
            raise error
        return self

    def _run(self) -> None:
        loop = self._loop
        assert loop is not None
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._startup())
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            if self._runner is not None:
                loop.run_until_complete(self._runner.cleanup())
            loop.close()

    async def _startup(self) -> None:
        runner = web.AppRunner(self.app.build(), access_log=None, handle_signals=False, shutdown_timeout=0.5)
        await runner.setup()
        self._runner = runner
        site = web.TCPSite(runner, self.host, self._requested_port, backlog=512)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            self._runner = None
            raise
        self.port = runner.addresses[0][1]

    def stop(self) -> None:
        if self._thread is None or self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._thread = None
        self._runner = None
        self.port = None

    def __enter__(self) -> ReplaySite:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.url if self.port else "stopped"
        return f"<ReplaySite {where} corpus={self.corpus.path}>"
