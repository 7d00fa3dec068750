"""A server killed with SIGKILL in the middle of submissions loses nothing: after a restart every
acknowledged judgment is there, once, and clients that retry their unacknowledged submits with the same
id do not create duplicates."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

import wikihowqa
from wikihowqa.runtime.processes import start_group, stop_group

ADMIN = "restart-admin-token-0123456789"


class Server:
    """``wikihowqa serve`` as a child process; the port is read from the admin link it prints."""

    def __init__(self, study: Path, port: int = 0) -> None:
        env = {**os.environ, "PYTHONPATH": str(Path(wikihowqa.__file__).parents[1])}
        self.proc = start_group(
            [
                sys.executable,
                "-m",
                "wikihowqa",
                "serve",
                str(study),
                "--port",
                str(port),
                "--admin-token",
                ADMIN,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        try:
            self._wait_until_up()
        except BaseException:
            stop_group(self.proc)
            raise

    def _wait_until_up(self) -> None:
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in self.proc.stdout], daemon=True).start()
        deadline = time.monotonic() + 60
        while True:
            line = lines.get(timeout=max(deadline - time.monotonic(), 0.1))
            if "admin page:" in line:
                self.base = line.split("admin page:")[1].strip().split("/admin/")[0]
                break
        while time.monotonic() < deadline:  # listening once the line is printed; wait until it answers
            try:
                httpx.get(f"{self.base}/healthz", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.05)
        raise RuntimeError("server did not answer")

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])

    def kill(self) -> None:
        """A crash: SIGKILL, to the server's whole process group."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        stop_group(self.proc)

    def stop(self) -> None:
        stop_group(self.proc)


def assessor_loop(base: list[str], token: str, acked: list[str], stop: threading.Event) -> None:
    """Work through all tasks; on any connection error retry the same request (same judgment id)."""
    import uuid

    with httpx.Client(timeout=5, headers={"Authorization": f"Bearer {token}"}) as client:
        while not stop.is_set():
            try:
                nxt = client.get(f"{base[0]}/api/next").json()
            except httpx.TransportError:
                time.sleep(0.05)
                continue
            task = nxt.get("task")
            if task is None:
                return
            body = {"judgment_id": f"j-{uuid.uuid4().hex}", "task_id": task["task_id"], "duration_ms": 5}
            check = task["attention_check"]
            body["attention"] = check["options"][0] if check else None
            body.update(
                {"relevance": {"relevance": 1}, "answer": {"familiarity": 2, "usefulness": 3}}.get(
                    task["type"], {}
                )
            )
            if task["type"] == "preference":
                body["choice"] = "A"
            while not stop.is_set():
                try:
                    r = client.post(f"{base[0]}/api/judgments", json=body)
                except httpx.TransportError:
                    time.sleep(0.05)
                    continue
                assert r.status_code in (200, 201), r.text
                acked.append(body["judgment_id"])
                break


@pytest.mark.slow
def test_a_sigkill_mid_study_loses_no_acknowledged_judgment(study_dir):
    server = Server(study_dir)
    try:
        base = [server.base]
        links = httpx.get(f"{server.base}/api/admin/assessors", headers={"Authorization": f"Bearer {ADMIN}"})
        tokens = [r["link"].split("#", 1)[1] for r in links.json()["assessors"]]
        total = sum(r["total"] for r in links.json()["assessors"])
        acked: list[str] = []
        stop = threading.Event()
        threads = [threading.Thread(target=assessor_loop, args=(base, t, acked, stop)) for t in tokens]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while len(acked) < total // 3 and time.monotonic() < deadline:
            time.sleep(0.005)
        server.kill()  # mid-stream: other submissions are in flight
        before = list(acked)
        assert 0 < len(before) < total
        server = Server(study_dir, server.port)
        for t in threads:
            t.join(timeout=60)
        stop.set()
        assert not any(t.is_alive() for t in threads)
        r = httpx.get(
            f"{server.base}/api/admin/judgments.jsonl", headers={"Authorization": f"Bearer {ADMIN}"}
        )
        stored = [json.loads(x)["judgment_id"] for x in r.text.splitlines()]
        assert set(before) <= set(stored), "a judgment acknowledged before the kill is missing"
        assert sorted(stored) == sorted(set(acked)) and len(stored) == len(set(stored)) == total
    finally:
        stop.set()
        server.stop()
