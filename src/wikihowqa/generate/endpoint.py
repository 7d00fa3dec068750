"""An OpenAI-compatible endpoint as the chat client meets it: its address, checked before any request and
named by where it came from, and the most of a reply that is read.

A wrong address (``not a url``, ``localhost:8080/v1``) used to reach the ``openai`` SDK, which retried it
with its whole backoff; a server that ignores ``max_tokens`` could send megabytes per request, which were
read, cached and recorded whole.
"""

from __future__ import annotations

import os

import httpx

from wikihowqa.core.errors import SettingsError

#: A chat prompt: OpenAI's ``messages`` (``role``, ``content``), which both backends take.
Messages = list[dict[str, str]]

#: A reply is read up to this many bytes plus ``REPLY_BYTES_PER_TOKEN`` a token of ``max_tokens`` (JSON
#: escapes make a token up to a few dozen bytes; the envelope, usage and ids take a few hundred): enough
#: for any honest reply, and a server streaming megabytes to a 32-token request fills neither memory nor
#: the cache.
REPLY_BASE_BYTES = 64 * 1024
REPLY_BYTES_PER_TOKEN = 64


def address_source(option: str, given: str | None) -> str:
    """Where the server's address came from, as a failure names it: the option, or the environment."""
    if given:
        return option
    if os.environ.get("OPENAI_BASE_URL"):
        return f"$OPENAI_BASE_URL; {option} overrides it"
    return f"the default; set {option} or $OPENAI_BASE_URL"


def check_base_url(url: str, source: str) -> None:
    """Refuse an address that is not an http(s) URL with a host before any request: the SDK would retry
    such a request with its whole backoff (7 attempts, 20 seconds) before failing."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise SettingsError(f"{source}: {url!r} is not a URL ({exc})") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise SettingsError(
            f"{source}: {url!r} is not an http(s) URL with a host (e.g. http://127.0.0.1:8080/v1)"
        )


def reply_limit(max_tokens: int) -> int:
    """The most bytes of a reply that are read (``REPLY_BASE_BYTES`` and a share per token)."""
    return REPLY_BASE_BYTES + REPLY_BYTES_PER_TOKEN * max_tokens


def read_capped(
    response: httpx.Response, limit: int, request: httpx.Request, too_large: type[Exception]
) -> httpx.Response:
    """The response with its body read (decoded) up to ``limit`` bytes; beyond that the connection is
    closed and ``too_large`` raised with the body's start (the client's choice: an error the ``openai``
    SDK passes on without retrying)."""
    body = bytearray()
    try:
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > limit:
                raise too_large(bytes(body[:200]).decode("utf-8", "replace"))
    finally:
        response.close()
    dropped = {b"content-encoding", b"content-length", b"transfer-encoding"}  # the body is decoded now
    headers = [(k, v) for k, v in response.headers.raw if k.lower() not in dropped]
    return httpx.Response(
        response.status_code,
        headers=headers,
        content=bytes(body),
        request=request,
        extensions=response.extensions,
    )
