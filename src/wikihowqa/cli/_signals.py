"""Servers started from the command line stop on Ctrl-C and SIGTERM, also as a script's background job."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """Ctrl-C (SIGINT) and SIGTERM raise ``KeyboardInterrupt``, whatever was inherited: a shell starts a
    background job (``wikihowqa replay-site &`` in a script) with SIGINT ignored, which Python keeps.
    Installed explicitly, as ``serve`` (uvicorn) does; the previous handlers come back after."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler is not None:  # None: not installed from Python, nothing to put back
                signal.signal(sig, handler)


__all__ = ["stopped_by_signals"]
