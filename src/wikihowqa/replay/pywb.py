"""pywb (the Webrecorder archive) serving a corpus's captures on 127.0.0.1, in its own process group.

The collector and hydrate are tested against real pywb (``scripts/test.sh`` installs pywb 2.10 in its own
virtual environment, ``WIKIHOWQA_PYWB_VENV``), and ``benchmarks/collect.py`` measures against it; this is
the one place that starts it.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from wikihowqa.replay.corpus import Corpus, load_corpus
from wikihowqa.replay.warc import write_warc
from wikihowqa.runtime.processes import start_group, stop_group

#: pywb's virtual environment (default: ``.venv-pywb`` in the checkout, where ``scripts/test.sh`` puts it).
_CHECKOUT = Path(__file__).resolve().parents[3]
PYWB_VENV = Path(os.environ.get("WIKIHOWQA_PYWB_VENV", _CHECKOUT / ".venv-pywb")).resolve()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: A server that could not listen: its port was taken between :func:`free_port` and its start.
_ADDRESS_IN_USE = re.compile(r"address already in use", re.IGNORECASE)
#: How many ports a server tries before its start fails.
PORT_TRIES = 5


class PortTaken(RuntimeError):
    """The server exited because another process took its port (tests start servers side by side)."""


def wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path, *, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = log.read_text(errors="replace")[-2000:]
            error = PortTaken if _ADDRESS_IN_USE.search(said) else RuntimeError
            raise error(f"{url}: server exited ({process.returncode}): {said}")
        try:
            httpx.get(url, timeout=2.0)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"{url}: server not up after {timeout_s:g} s: {log.read_text()[-2000:]}")


def start_listening(
    command: Callable[[int], list[str]], ready_path: str, log: Path, port: int, **popen: Any
) -> tuple[int, subprocess.Popen[bytes]]:
    """Start ``command(port)`` in its own process group (output to ``log``) until it answers
    ``http://127.0.0.1:PORT`` + ``ready_path``: (the port, its process).

    A port :func:`free_port` chose is free only when chosen; another process (a parallel test's server) may
    take it before the server binds it. Then the server starts again on a new free port, up to
    :data:`PORT_TRIES` times; any other failure stops it at once."""
    for attempt in range(PORT_TRIES):
        process = start_group(command(port), stdout=log.open("wb"), stderr=subprocess.STDOUT, **popen)
        try:
            wait_until_up(f"http://127.0.0.1:{port}{ready_path}", process, log)
            return port, process
        except PortTaken:
            stop_group(process)
            if attempt + 1 == PORT_TRIES:
                raise
            port = free_port()
        except BaseException:
            stop_group(process)
            raise
    raise AssertionError("unreachable")


def pywb_missing() -> str | None:
    """Why pywb cannot run here, or ``None``."""
    if not (PYWB_VENV / "bin" / "wayback").is_file():
        return f"pywb is not installed in {PYWB_VENV} (scripts/test.sh installs it: pip install pywb==2.10.0)"
    return None


class PywbServer:
    """pywb's ``wayback`` serving a corpus's captures as the collection ``web``, on 127.0.0.1."""

    COLLECTION = "web"

    def __init__(self, corpus_dir: Path | None, workdir: Path, *, corpus: Corpus | None = None) -> None:
        """``corpus``: captures built in memory (``hydrate``'s release archive) instead of a corpus folder."""
        self.corpus_dir = Path(corpus_dir) if corpus_dir is not None else None
        self.corpus = corpus
        self.workdir = Path(workdir)
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def cdx_url(self) -> str:
        return f"{self.url}/{self.COLLECTION}/cdx"

    @property
    def playback_url(self) -> str:
        return f"{self.url}/{self.COLLECTION}/"

    @property
    def timegate_url(self) -> str:
        return f"{self.url}/{self.COLLECTION}/"

    @property
    def timemap_url(self) -> str:
        return f"{self.url}/{self.COLLECTION}/timemap/link/{{url}}"

    def _tool(self, name: str, *args: str) -> None:
        done = subprocess.run(
            [str(PYWB_VENV / "bin" / name), *args],
            cwd=self.workdir,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{name} {' '.join(args)} failed: {done.stdout[-1500:]} {done.stderr[-1500:]}")

    def start(self, warc: Path | None = None) -> PywbServer:
        """Serve ``warc`` as it is, or (by default) the corpus's captures written as one."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        if warc is None:
            warc = self.workdir / "corpus.warc.gz"
            write_warc(self.corpus or load_corpus(self.corpus_dir or ""), warc)
        self._tool("wb-manager", "init", self.COLLECTION)
        self._tool("wb-manager", "add", self.COLLECTION, str(warc))
        (self.workdir / "config.yaml").write_text("enable_memento: true\n", encoding="utf-8")
        self.port, self.process = start_listening(
            lambda port: [str(PYWB_VENV / "bin" / "wayback"), "-p", str(port), "-b", "127.0.0.1"],
            f"/{self.COLLECTION}/cdx?url=example.org",
            self.workdir / "wayback.log",
            self.port,
            cwd=self.workdir,
        )
        return self

    def stop(self) -> None:
        stop_group(self.process)
        self.process = None

    def __enter__(self) -> PywbServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
