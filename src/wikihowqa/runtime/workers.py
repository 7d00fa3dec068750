"""Worker processes that die with their parent, and the limits of the ones that parse the web.

A process pool's workers wait on a pipe for work; when their parent is killed (``kill -9``, the OOM killer)
nothing tells them, and they sleep on as orphans holding memory. Every stage's pool starts its workers with
:func:`init_worker`: on Linux the kernel sends the worker ``SIGKILL`` when its parent dies
(``PR_SET_PDEATHSIG``); elsewhere a daemon thread notices the parent is gone and exits. A parent that died
before the worker got this far is caught by comparing ``os.getppid()`` with the pid it was started from.

Per-task limits come from ``pebble`` (:func:`limited_pool`): a task past its time limit has its worker
killed and replaced, whatever the worker is stuck in (a timer signal, as before, only interrupts Python
bytecode, not a C parser), and a worker that dies costs only its own task; the pool carries on.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext

from pebble import ProcessPool

_PR_SET_PDEATHSIG = 1
#: Seconds between checks of the parent where the kernel cannot be asked to tell (not Linux).
POLL_S = 1.0


def _kernel_binds(parent: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while True:
        time.sleep(POLL_S)
        if os.getppid() != parent:
            os._exit(1)


def bind_to_parent(parent: int) -> None:
    """End this process when process ``parent`` (the one that started it) ends."""
    if not _kernel_binds(parent):
        threading.Thread(target=_watch, args=(parent,), daemon=True, name="parent-watch").start()
    if os.getppid() != parent:  # the parent died before the binding was in place
        os._exit(1)


def _address_space() -> int | None:
    """Bytes of address space this process maps (Linux), else ``None``."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def limit_memory(megabytes: int | None) -> None:
    """Cap this process's address space (``RLIMIT_AS``): past it an allocation fails with ``MemoryError``
    (which the parser reports as ``too_large``) instead of the machine swapping. Only ever lowers a limit.

    A worker forked from a process that already maps more than ``megabytes`` (torch loaded: ~2.3 GB of
    address space) could allocate nothing at all under the cap, so every page would fail; there the cap
    is what it inherited plus ``megabytes``."""
    if not megabytes:
        return
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return
    wanted = megabytes * 1024 * 1024
    inherited = _address_space()
    if inherited is not None and inherited >= wanted:
        wanted += inherited
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and soft <= wanted:
        return
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


def init_worker(parent: int, memory_mb: int | None = None) -> None:
    """Pool initializer: die with ``parent``; cap memory at ``memory_mb`` when given."""
    bind_to_parent(parent)
    limit_memory(memory_mb)


def process_pool(
    max_workers: int, *, memory_mb: int | None = None, mp_context: BaseContext | None = None
) -> ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` whose workers die with this process (and are capped at ``memory_mb``)."""
    return ProcessPoolExecutor(
        max_workers=max_workers,
        mp_context=mp_context,
        initializer=init_worker,
        initargs=(os.getpid(), memory_mb),
    )


def limited_pool(max_workers: int, *, memory_mb: int | None = None) -> ProcessPool:
    """A ``pebble`` pool whose workers die with this process (and are capped at ``memory_mb``): give each
    task its time limit with ``pool.schedule(fn, args, timeout=seconds)``; past it the future raises
    ``TimeoutError`` and the worker is replaced, a worker that dies raises ``pebble.ProcessExpired`` for
    its task alone. Workers fork from this process (so they share what it has loaded)."""
    return ProcessPool(max_workers=max_workers, initializer=init_worker, initargs=(os.getpid(), memory_mb))
