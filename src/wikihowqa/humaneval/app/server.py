"""The HTTP layer of ``wikihowqa serve``: routes, authentication, security headers, size limits.

Pages are static files (``static/``, no build step, nothing from a CDN) that talk to a small JSON API:

* assessor (``Authorization: Bearer <assessor token>``): ``GET /api/me``, ``GET /api/next``,
  ``POST /api/judgments``, ``GET /api/judgments`` and ``GET /api/judgments/{id}`` (own only);
* crowd: ``GET /join?part=…&worker_id=…`` (also ``PROLIFIC_PID``, ``workerId``) → the assessor page;
* admin (``Authorization: Bearer <admin token>``): ``/api/admin/progress``, ``/api/admin/assessors``
  (list, add), ``/api/admin/assessors/{id}/token`` (new link), ``/api/admin/judgments.jsonl`` (the file
  ``wikihowqa analyze`` reads), ``/api/admin/links.csv``.

Every response carries a strict Content-Security-Policy (scripts only from this server, no inline
script, no plugins, no framing), ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer``;
errors are JSON ``{"error": "…"}`` with a 4xx status (a bug answers 500 the same way, headers included).
Links handed out (assessor links, crowd join URLs) are built from the configured public address only,
never from the request's ``Host`` header, which the client chooses.
"""

from __future__ import annotations

import csv
import html
import io
import json
import logging
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, RedirectResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles

from wikihowqa.humaneval.app import auth
from wikihowqa.humaneval.app.state import ApiError, ServerSettings, StudyService

STATIC = Path(str(resources.files("wikihowqa.humaneval.app") / "static"))
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
]
JSON_TYPE = "application/json"
#: Where links point when the app is made without an address (``create_app`` alone, as in tests):
#: ``serve`` and ``running`` always pass the address they listen on, or the configured ``--base-url``.
DEFAULT_BASE_URL = "http://127.0.0.1:8000"
log = logging.getLogger(__name__)

ASGIApp = Callable[[dict, Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]], Awaitable[None]]


class _TooLarge(Exception):
    pass


def _error_body(message: str) -> bytes:
    return json.dumps({"error": message}).encode()


class Guard:
    """Pure ASGI middleware (cheaper than BaseHTTPMiddleware on every request): adds the security
    headers, marks API answers uncacheable, and refuses bodies over the size limit with 413 — early from
    Content-Length, or while reading a chunked body."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")
        static = scope["path"].startswith("/static/")
        started = False

        async def send_with_headers(message: dict) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                headers += SECURITY_HEADERS
                if api:
                    headers.append((b"cache-control", b"no-store"))
                elif static:  # revalidate (ETag) so an upgraded server never runs with yesterday's script
                    headers.append((b"cache-control", b"no-cache"))
                message = {**message, "headers": headers}
            await send(message)

        async def reject(status: int, text: str) -> None:
            body = _error_body(text)
            await send_with_headers(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [
                        (b"content-type", JSON_TYPE.encode()),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})

        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                await reject(400, "invalid Content-Length header")
                return
            if declared > self.max_body:
                await reject(413, f"request body too large: at most {self.max_body} bytes")
                return
        received = 0

        async def limited_receive() -> dict:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited_receive, send_with_headers)
        except _TooLarge:
            if not started:
                await reject(413, f"request body too large: at most {self.max_body} bytes")
        except Exception:
            # A bug, not the client's fault: logged with its traceback, and answered like every other
            # error (JSON, security headers) instead of by the framework's bare 500 outside this guard.
            log.exception("unexpected error on %s %s", scope.get("method"), scope.get("path"))
            if not started:
                await reject(500, "internal error: the server could not handle this request")


def _json(obj: Any, status: int = 200) -> Response:
    return Response(json.dumps(obj, ensure_ascii=False), status_code=status, media_type=JSON_TYPE)


def _cell(value: str) -> str:
    """A CSV cell a spreadsheet will not run as a formula (worker ids come from outside)."""
    return f"'{value}" if value[:1] in ("=", "+", "-", "@") else value


def _page(title: str, message: str, status: int) -> Response:
    """A tiny HTML page for people arriving through /join (text escaped, no script)."""
    body = (
        "<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport content='width=device-width'>"
        f"<title>{html.escape(title)}</title><link rel=stylesheet href=/static/style.css>"
        f"<main class=notice><h1>{html.escape(title)}</h1><p>{html.escape(message)}</p></main></html>"
    )
    return Response(body, status_code=status, media_type="text/html; charset=utf-8")


def create_app(study_dir: Path, settings: ServerSettings | None = None) -> FastAPI:
    """The study server for one study folder (made by ``wikihowqa tasks``). Opens (first time: creates)
    the database ``server.sqlite`` in the folder; ``app.state.admin_token`` holds the admin token."""
    settings = settings or ServerSettings()
    service = StudyService(Path(study_dir), settings)
    admin_token = settings.admin_token or auth.new_token()

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        yield
        service.close()

    app = FastAPI(
        title="wikihowqa study",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.admin_token = admin_token
    # The public address of links: configured, or set by `serve`/`running` to the address they bound.
    app.state.base_url = (settings.base_url or DEFAULT_BASE_URL).rstrip("/")
    app.add_middleware(Guard, max_body=settings.max_body_bytes)

    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> Response:
        return _json({"error": exc.message}, exc.status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> Response:
        message = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404:
            message = "not found"
        return _json({"error": message}, exc.status_code)

    def assessor(request: Request):
        return service.authenticate(auth.bearer(request.headers.get("authorization")))

    def admin(request: Request) -> None:
        token = auth.bearer(request.headers.get("authorization"))
        if not token:
            raise ApiError(401, "admin token required")
        if not service.is_admin(token, admin_token):
            raise ApiError(403, "admin token required")

    async def json_body(request: Request) -> Any:
        raw = await request.body()
        try:
            return json.loads(raw)
        except RecursionError:
            raise ApiError(400, "the body is nested too deeply") from None
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer past 4,300 digits
            raise ApiError(400, f"the body is not valid JSON ({str(exc)[:120]})") from None

    # ------------------------------------------------------------------ pages

    @app.get("/", include_in_schema=False)
    async def root() -> Response:
        return _page(
            "wikihowqa study",
            "This server runs a human-evaluation study. Open the link you were given.",
            200,
        )

    @app.get("/a/", include_in_schema=False)
    async def assessor_page() -> Response:
        return FileResponse(STATIC / "assessor.html", headers={"cache-control": "no-cache"})

    @app.get("/admin/", include_in_schema=False)
    async def admin_page() -> Response:
        return FileResponse(STATIC / "admin.html", headers={"cache-control": "no-cache"})

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> Response:
        return Response(b'{"ok": true}', media_type=JSON_TYPE)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------------ crowd

    @app.get("/join", include_in_schema=False)
    async def join(request: Request) -> Response:
        params = request.query_params
        worker = next((params[p] for p in auth.WORKER_PARAMS if params.get(p)), None)
        if worker is None:
            return _page(
                "Cannot start", "The link has no worker id (worker_id, PROLIFIC_PID or workerId).", 400
            )
        try:
            row = service.join(worker, params.get("part") or None)
        except ApiError as exc:
            return _page("Cannot start", exc.message, exc.status)
        return RedirectResponse(f"/a/#{row.token}", status_code=303)

    # ------------------------------------------------------------------ assessor API

    @app.get("/api/me")
    async def me(request: Request) -> Response:
        return _json(service.me(assessor(request)))

    @app.get("/api/next")
    async def next_task(request: Request) -> Response:
        return Response(service.next_task(assessor(request)), media_type=JSON_TYPE)

    @app.post("/api/judgments")
    async def submit(request: Request) -> Response:
        who = assessor(request)
        status, answer = service.submit(who, await json_body(request))
        return _json(answer, status)

    @app.get("/api/judgments")
    async def own_judgments(request: Request) -> Response:
        return _json({"judgments": service.own_judgments(assessor(request))})

    @app.get("/api/judgments/{judgment_id}")
    async def own_judgment(judgment_id: str, request: Request) -> Response:
        return _json(service.own_judgment(assessor(request), judgment_id))

    # ------------------------------------------------------------------ admin API

    def public() -> str:
        return str(app.state.base_url)

    def link(token: str) -> str:
        return f"{public()}/a/#{token}"

    @app.get("/api/admin/progress")
    async def progress(request: Request) -> Response:
        admin(request)
        answer = service.progress()
        answer["join_urls"] = (
            {p: f"{public()}/join?part={p}&worker_id={{WORKER_ID}}" for p in answer["parts"]}
            if settings.crowd
            else {}
        )
        return _json(answer)

    @app.get("/api/admin/assessors")
    async def assessors(request: Request) -> Response:
        admin(request)
        rows = service.assessor_rows()
        for r in rows:
            r["link"] = link(r.pop("token"))
        return _json({"assessors": rows})

    @app.post("/api/admin/assessors")
    async def add_assessor(request: Request) -> Response:
        admin(request)
        body = await json_body(request)
        part = body.get("part") if isinstance(body, dict) else None
        if not isinstance(part, str):
            raise ApiError(422, "part is required")
        row = service.add_assessor(part)
        return _json({"assessor_id": row.assessor_id, "part": row.part, "link": link(row.token)}, 201)

    @app.post("/api/admin/assessors/{assessor_id}/token")
    async def reissue(assessor_id: str, request: Request) -> Response:
        admin(request)
        row = service.reissue(assessor_id)
        return _json({"assessor_id": row.assessor_id, "link": link(row.token)})

    @app.get("/api/admin/judgments.jsonl")
    async def download(request: Request) -> Response:
        admin(request)
        lines = list(service.export_lines())  # read at once: a consistent snapshot
        return StreamingResponse(
            iter(lines),
            media_type="application/x-ndjson; charset=utf-8",
            headers={"content-disposition": 'attachment; filename="judgments.jsonl"'},
        )

    @app.get("/api/admin/judgments/{judgment_id}")
    async def admin_judgment(judgment_id: str, request: Request) -> Response:
        admin(request)
        row = service.db.judgment(judgment_id)
        if row is None:
            raise ApiError(404, f"no judgment {judgment_id!r}")
        return Response(row.body, media_type=JSON_TYPE)

    @app.get("/api/admin/links.csv")
    async def links_csv(request: Request) -> Response:
        admin(request)
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(
            ["assessor_id", "part", "kind", "done", "total", "completion_code", "worker_id", "link"]
        )
        for r in service.assessor_rows():
            cells = [r["assessor_id"], r["part"], r["kind"], r["done"], r["total"], r["completion_code"]]
            writer.writerow([*cells, _cell(r["worker_id"] or ""), link(r["token"])])
        return Response(
            buffer.getvalue(),
            media_type="text/csv; charset=utf-8",
            headers={"content-disposition": 'attachment; filename="assessors.csv"'},
        )

    return app


__all__ = ["CSP", "DEFAULT_BASE_URL", "create_app"]
