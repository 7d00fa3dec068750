"""A real two-node Ray cluster on 127.0.0.1 (tests, benchmarks): ``ray start --head``, then a worker.

Each node is Ray's own processes (GCS, raylet, agents, workers), started by the ``ray start`` command
in its own process with one CPU. Ray turns a node address of 127.0.0.1 into the machine's outward address
(``ray._private.services.resolve_ip_for_localhost``: so that other machines can join), and would then
listen there. To keep every socket on loopback:

- the head and the drivers get ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` — Ray's own switch for a
  loopback-only Ray — so ``--node-ip-address 127.0.0.1`` stays 127.0.0.1;
- the worker node cannot get it (``ray start --address`` refuses to join a cluster with it), so it runs
  the ``ray start`` command with that one address function left as the identity; it then takes its node
  address from the head's, 127.0.0.1.

Token authentication is on, with a token of the test's own (``RAY_AUTH_TOKEN``) that the nodes and the
drivers share. The test checks that nothing of the cluster listens anywhere but 127.0.0.1. Processes are
found and stopped by the cluster's own temporary folder, never with ``ray stop`` (which would stop every
Ray on the machine).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

LOOPBACK = "127.0.0.1"
LOOPBACK_ENV = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
_WORKER_START = (
    "import sys\n"
    "from ray._private import services\n"
    "services.resolve_ip_for_localhost = lambda host: host  # stay on loopback (see tests/ray_cluster.py)\n"
    "from ray.scripts.scripts import main\n"
    "sys.argv = ['ray', *sys.argv[1:]]\n"
    "main()\n"
)
#: Object store per node: small, the tests move kilobytes.
OBJECT_STORE_BYTES = 120_000_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    address: str
    temp_dir: Path
    worker_port: int  # the worker node's raylet (node manager) port: how its processes are found
    env: dict[str, str]
    log: list[str] = field(default_factory=list)

    def processes(self) -> list[psutil.Process]:
        """Every process of this cluster: those with its temporary folder in their command line, and all
        they started (agents and workers rename themselves, ``ray::…``)."""
        found: dict[int, psutil.Process] = {}
        for proc in psutil.process_iter(["cmdline"]):
            try:
                if any(str(self.temp_dir) in part for part in proc.info["cmdline"] or ()):
                    found[proc.pid] = proc
                    found.update((child.pid, child) for child in proc.children(recursive=True))
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return list(found.values())

    def worker_node(self) -> list[psutil.Process]:
        """The worker node's raylet and everything it started."""
        for proc in self.processes():
            try:
                if f"--node_manager_port={self.worker_port}" in proc.cmdline():
                    return [proc, *proc.children(recursive=True)]
            except psutil.NoSuchProcess:
                continue
        return []

    def kill_worker_node(self) -> int:
        """SIGKILL the worker node (as a machine that dies would): its raylet and all it started."""
        victims = self.worker_node()
        for proc in victims:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.kill()
        psutil.wait_procs(victims, timeout=10)
        return len(victims)

    def listening(self) -> list[tuple[str, int, str]]:
        """(address, port, process name) of every TCP socket this cluster's processes listen on."""
        out = []
        for proc in self.processes():
            try:
                for conn in proc.net_connections(kind="tcp"):
                    if conn.status == psutil.CONN_LISTEN:
                        out.append((conn.laddr.ip, conn.laddr.port, proc.name()))
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return out

    def driver(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """``python -m wikihowqa ARGS`` as a separate driver process connected to this cluster."""
        return subprocess.run(
            [sys.executable, "-m", "wikihowqa", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def stop(self) -> None:
        procs = self.processes()
        for proc in procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.send_signal(signal.SIGTERM)
        _, alive = psutil.wait_procs(procs, timeout=3)
        for proc in alive:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.kill()
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def _ray_start(args: list[str], env: dict[str, str], *, worker: bool, log: list[str]) -> None:
    ray_cli = (
        [str(Path(sys.executable).with_name("ray"))] if not worker else [sys.executable, "-c", _WORKER_START]
    )
    done = subprocess.run([*ray_cli, "start", *args], env=env, capture_output=True, text=True, timeout=120)
    log.append(done.stdout + done.stderr)
    if done.returncode != 0:
        raise RuntimeError(f"ray start {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")


def start_cluster(workers: int = 1, *, head_cpus: int = 1, token: str | None = None) -> Cluster:
    """A head node (``head_cpus`` CPUs: 0 keeps work off it) and ``workers`` worker nodes of one CPU each,
    on 127.0.0.1; ``Cluster.stop()`` ends them all. ``Cluster.worker_node()`` is the first worker node.
    ``token``: the clusters' shared secret (default: a new one; a driver process keeps the first it used)."""
    # A short folder: Ray's Unix sockets live inside it and their paths are limited to 107 bytes.
    temp_dir = Path(tempfile.mkdtemp(prefix="whq-ray-", dir="/tmp"))
    port, worker_port = free_port(), free_port()
    secret = token or secrets.token_hex(32)
    env = {**os.environ, **LOOPBACK_ENV, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secret}
    memory = ["--object-store-memory", str(OBJECT_STORE_BYTES), "--disable-usage-stats"]
    cluster = Cluster(f"{LOOPBACK}:{port}", temp_dir, worker_port, env)
    try:
        head = ["--head", "--node-ip-address", LOOPBACK, "--port", str(port), "--include-dashboard", "false"]
        _ray_start(
            [*head, "--temp-dir", str(temp_dir), "--num-cpus", str(head_cpus), *memory],
            env,
            worker=False,
            log=cluster.log,
        )
        worker_env = {k: v for k, v in env.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}
        for n in range(workers):
            joined = ["--address", cluster.address, "--num-cpus", "1", *memory]
            ports = ["--node-manager-port", str(worker_port if n == 0 else free_port())]
            _ray_start([*joined, *ports], worker_env, worker=True, log=cluster.log)
        deadline = time.monotonic() + 60
        while not cluster.worker_node() and time.monotonic() < deadline:
            time.sleep(0.2)
    except BaseException:
        cluster.stop()
        raise
    return cluster
