"""A real small file system for write-failure tests: a tmpfs mounted in a private mount namespace.

``unshare --user --map-root-user --mount`` lets an ordinary user mount a tmpfs that only the command sees,
so a test gets a genuinely full disk (``ENOSPC`` from the kernel, ``SQLITE_FULL`` from SQLite) and a
genuinely read-only folder (``EROFS``, which even root cannot write), then the mount disappears with
the process. Where user namespaces are not allowed the tests skip; the same code paths are also tested
with an injected ``OSError`` that always runs.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

#: Shell helpers available to a script: ``fill BYTES`` leaves BYTES free on $FS; ``readonly`` remounts it.
_HELPERS = r"""
fill() {
  "$PY" - "$FS/.filler" "$1" <<'EOF'
import os, sys
path, keep = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
size = 0
try:
    while True:
        size += os.write(fd, b"\0" * 4096)
except OSError:
    pass
os.close(fd)
st = os.statvfs(os.path.dirname(path))
free = st.f_bavail * st.f_frsize
os.truncate(path, max(0, size - max(0, keep - free)))
EOF
}
readonly() { mount -o remount,ro "$FS"; }
"""


@functools.cache
def available() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    probe = "mkdir -p /tmp && d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d"
    try:
        done = subprocess.run(
            ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", probe],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def run(mount: Path, script: str, *, size: str = "1m", timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``script`` (bash) with a fresh tmpfs of ``size`` mounted on ``mount`` (``$FS``); ``$PY`` is
    this Python and ``wikihowqa`` runs the CLI. Skips the test where namespaces are not available."""
    if not available():
        pytest.skip("needs user and mount namespaces (unshare) to mount a small tmpfs")
    mount.mkdir(parents=True, exist_ok=True)
    prelude = (
        f"set -eu\nFS={shlex.quote(str(mount))}\nPY={shlex.quote(sys.executable)}\n"
        f'mount -t tmpfs -o size={size} tmpfs "$FS"\n'
        'wikihowqa() { "$PY" -m wikihowqa "$@"; }\n' + _HELPERS
    )
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "bash", "-c", prelude + script],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
