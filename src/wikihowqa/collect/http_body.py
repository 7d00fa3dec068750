"""A response body read as it arrives under a size cap, so that no answer (a gzip bomb included) is held
whole past it: :class:`wikihowqa.collect.http.HttpClient` reads every body through :func:`read_capped`.

aiohttp inflates a ``Content-Encoding`` body piece by piece as it is read (bounded pieces, with flow
control), so counting the decoded bytes as they come stops a 1.5 MB gzip member that would inflate to
1.5 GB after the first ``cap`` bytes.
"""

from __future__ import annotations

from collections.abc import Mapping

import aiohttp

#: The largest body kept, counted after decompression: the parse stage's own ``max_bytes`` (20 MB), so
#: a page it would refuse is never held whole; a gzip bomb is stopped after this many bytes, not inflated.
DEFAULT_MAX_BODY_BYTES = 20_000_000
#: What every reason :func:`read_capped` gives starts with.
TOO_LARGE = "too large"
#: Bytes read from the connection at a time while a body streams in.
_CHUNK = 1 << 16


async def read_capped(r: aiohttp.ClientResponse, headers: Mapping[str, str], cap: int) -> bytearray | str:
    """The body (decoded), or the reason it was stopped: over ``cap`` bytes, announced by an unencoded
    ``Content-Length`` (nothing read) or counted as the decoded bytes arrive."""
    encoding = headers.get("content-encoding")
    declared = headers.get("content-length")
    if encoding is None and declared is not None and declared.isdigit() and int(declared) > cap:
        return f"{TOO_LARGE}: a {int(declared):,}-byte body announced, over the {cap:,}-byte cap"
    what = f"{encoding}-decoded body" if encoding else "body"
    body = bytearray()
    async for chunk in r.content.iter_chunked(_CHUNK):
        body += chunk
        if len(body) > cap:
            return f"{TOO_LARGE}: {what} past the {cap:,}-byte cap (stopped there)"
    return body
