"""Starting a loopback server on a free port, and pywb on it: a port taken meanwhile is not a failure.

:func:`free_port` finds a port free when asked; a parallel test's server can take it before ours binds
it (seen once in CI-like runs with two workers). The server then starts again on another port."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator

import httpx
import pytest

from tests.components import PYWB, require
from wikihowqa.replay.corpus import load_corpus
from wikihowqa.replay.pywb import PywbServer, free_port, pywb_missing, start_listening
from wikihowqa.runtime.processes import stop_group


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port another process listens on for the test's length."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_a_server_whose_port_was_taken_starts_again_on_another(taken_port, tmp_path):
    launched: list[int] = []

    def http_server(port: int) -> list[str]:
        launched.append(port)
        return [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]

    port, process = start_listening(http_server, "/", tmp_path / "log", taken_port, cwd=tmp_path)
    try:
        assert launched == [taken_port, port] and port != taken_port
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=10).status_code == 200
    finally:
        stop_group(process)


def test_a_server_that_fails_for_another_reason_is_not_started_again(tmp_path):
    launched: list[int] = []

    def failing(port: int) -> list[str]:
        launched.append(port)
        return [sys.executable, "-c", "import sys; print('no configuration'); sys.exit(3)"]

    with pytest.raises(RuntimeError, match=r"server exited \(3\).*no configuration") as info:
        start_listening(failing, "/", tmp_path / "log", free_port())
    assert type(info.value) is RuntimeError and len(launched) == 1


def test_pywb_serves_on_another_port_when_its_own_was_taken(demo_corpus, taken_port, tmp_path):
    require(PYWB, pywb_missing())
    archive = PywbServer(demo_corpus, tmp_path / "pywb")
    archive.port = taken_port
    captured = load_corpus(demo_corpus).captures[0]
    with archive:
        assert archive.port != taken_port
        answer = httpx.get(archive.cdx_url, params={"url": captured.url}, timeout=20)
        assert answer.status_code == 200 and captured.timestamp in answer.text
