"""Tokens, their comparison, and the identities a crowd platform hands over.

* Tokens are ``secrets.token_urlsafe(32)`` (256 bits): unguessable, so a link is the credential.
* A token is found by the SHA-256 digest of what the client sent, then compared with
  ``hmac.compare_digest``: the index lookup only ever sees a digest, so response time says nothing about
  how much of a real token a guess got right.
* Links put the token in the URL fragment (``/a/#TOKEN``): browsers never send fragments to a server or in
  a Referer, so tokens stay out of access logs and other sites; the page sends it as a Bearer header.
* A crowd worker's platform id is kept for the admin (to approve work by completion code) but the
  ``assessor_id`` written into judgments is a keyed digest of it, so exported judgments carry no platform
  ids.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from wikihowqa.core.errors import SettingsError

TOKEN_BYTES = 32
MIN_ADMIN_TOKEN_CHARS = 16
#: Query parameters crowd platforms use for the worker id (Prolific, MTurk, generic).
WORKER_PARAMS: tuple[str, ...] = ("worker_id", "PROLIFIC_PID", "workerId", "participant_id")
_WORKER_ID = re.compile(r"^[A-Za-z0-9_.:@-]{1,128}$")
_BEARER = re.compile(r"^Bearer\s+(\S+)\s*$", re.IGNORECASE)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def tokens_equal(given: str, expected: str) -> bool:
    """Constant-time comparison (time does not depend on where the strings differ)."""
    return hmac.compare_digest(
        given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass")
    )


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer …`` header, or None."""
    if not header:
        return None
    match = _BEARER.match(header)
    return match.group(1) if match else None


def completion_code() -> str:
    """Eight characters from an alphabet without look-alikes (no 0/O, 1/I/L), easy to type back."""
    alphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
    return "".join(secrets.choice(alphabet) for _ in range(8))


def valid_worker_id(worker_id: str) -> bool:
    return bool(_WORKER_ID.match(worker_id))


def crowd_assessor_id(secret: str, worker_id: str, part: str) -> str:
    """Stable pseudonym of a worker within a part: the same worker always resumes as the same assessor."""
    mac = hmac.new(secret.encode(), f"{part}\x00{worker_id}".encode(), hashlib.sha256).hexdigest()
    return f"crowd-{part}-{mac[:12]}"


def check_admin_token(token: str) -> None:
    if len(token) < MIN_ADMIN_TOKEN_CHARS or not re.fullmatch(r"[A-Za-z0-9_~.-]+", token):
        raise SettingsError(
            f"admin token: use at least {MIN_ADMIN_TOKEN_CHARS} characters of [A-Za-z0-9_~.-] "
            "(or leave it out to get a random one)"
        )


__all__ = [
    "WORKER_PARAMS",
    "bearer",
    "check_admin_token",
    "completion_code",
    "crowd_assessor_id",
    "digest",
    "new_token",
    "tokens_equal",
    "valid_worker_id",
]
