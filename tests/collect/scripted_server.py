"""A tiny local HTTP server whose answers a test scripts, path by path, for the HTTP layer's tests.

``server.script("/a", [Step(503), Step(200, b"ok")])``: the first request to ``/a`` gets a 503, the
second (and every later one) a 200. Steps can also drop the connection, cut the body short, or stall.
Every request is logged with its arrival time and headers.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, fields

from aiohttp import web

from wikihowqa.collect.archive_settings import ArchiveSettings
from wikihowqa.collect.build import BuildSettings
from wikihowqa.collect.http import HttpSettings


def fast_settings(**overrides) -> HttpSettings:
    """Unpaced, with millisecond backoffs, so retry tests take no time."""
    base = dict(
        concurrency=4,
        rates={},
        timeout_s=2.0,
        retries=3,
        throttle_retries=4,
        backoff_s=0.001,
        backoff_max_s=0.01,
        throttle_backoff_s=0.001,
        throttle_pause_s=0.05,
        throttle_burst=100,
    )
    base.update(overrides)
    return HttpSettings(**base)


def settings_for(site, **overrides) -> BuildSettings:
    """Build settings aimed at a replay site, fast: unpaced, millisecond backoffs."""
    values = {"api_url": site.mediawiki_url, "wayback_url": site.wayback_url, **overrides}
    values["http"] = overrides.get("http") or fast_settings(concurrency=4)
    return build_settings(**values)


ARCHIVE_KEYS = {f.name for f in fields(ArchiveSettings)}


def build_settings(**values) -> BuildSettings:
    """``BuildSettings`` from flat keywords: the archive's (``wayback_url``, ``cdx_url``, ...) go to its
    ``ArchiveSettings``, as the command line's options do."""
    archive = {k: values.pop(k) for k in list(values) if k in ARCHIVE_KEYS}
    return BuildSettings(archive=ArchiveSettings(**archive), **values)


@dataclass(frozen=True)
class Step:
    status: int = 200
    body: bytes = b"ok"
    headers: dict[str, str] = field(default_factory=dict)
    action: str = "answer"  # answer | drop | truncate
    delay_s: float = 0.0


@dataclass
class Hit:
    path: str
    at: float
    headers: dict[str, str]


class ScriptedServer:
    def __init__(self) -> None:
        self.scripts: dict[str, list[Step]] = {}
        self.hits: list[Hit] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._runner: web.AppRunner | None = None
        self.url = ""

    def script(self, path: str, steps: list[Step]) -> str:
        self.scripts[path] = list(steps)
        return self.url + path

    def hits_of(self, path: str) -> list[Hit]:
        return [h for h in self.hits if h.path == path]

    async def start(self) -> ScriptedServer:
        app = web.Application()
        app.router.add_get("/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.hits.append(Hit(request.path, time.monotonic(), dict(request.headers)))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            steps = self.scripts.get(request.path) or [Step()]
            step = steps.pop(0) if len(steps) > 1 else steps[0]
            if step.delay_s:
                await asyncio.sleep(step.delay_s)
            if step.action == "drop":
                assert request.transport is not None
                request.transport.close()
                raise asyncio.CancelledError
            if step.action == "truncate":
                resp = web.StreamResponse(status=step.status, headers=step.headers)
                resp.content_length = len(step.body)
                await resp.prepare(request)
                await resp.write(step.body[: len(step.body) // 2])
                assert request.transport is not None
                request.transport.close()
                raise asyncio.CancelledError
            return web.Response(status=step.status, body=step.body, headers=step.headers)
        finally:
            self.in_flight -= 1
