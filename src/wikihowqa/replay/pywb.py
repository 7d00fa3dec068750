"""pywb (the Webrecorder archive) serving a corpus's captures on 127.0.0.1, in its own process group.

The collector and hydrate are tested against real pywb (``scripts/test.sh`` installs pywb 2.10 in its own
virtual environment, ``WIKIHOWQA_PYWB_VENV``), and ``benchmarks/collect.py`` measures against it; this is
the one place that starts it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

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
        return s.getsockname()[1]


def wait_until_up(url: str, process: subprocess.Popen, log: Path, *, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: server exited ({process.returncode}): {log.read_text()[-2000:]}")
        try:
            httpx.get(url, timeout=2.0)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"{url}: server not up after {timeout_s:g} s: {log.read_text()[-2000:]}")




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
        self.process: subprocess.Popen | None = None

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
        log = self.workdir / "wayback.log"
        self.process = start_group(
            [str(PYWB_VENV / "bin" / "wayback"), "-p", str(self.port), "-b", "127.0.0.1"],
            cwd=self.workdir,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until_up(f"{self.cdx_url}?url=example.org", self.process, log)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        stop_group(self.process)
        self.process = None

    def __enter__(self) -> PywbServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
