"""``scripts/test.sh`` sets up what the tests need: Debian's python3-venv first, when python3 lacks it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: ``python3`` of a Debian without python3-venv: ``import ensurepip`` fails until apt-get installs it.
PYTHON3 = """#!/bin/bash
echo "python3 $*" >> "$LOG"
if [ "$1" = -c ]; then [ -f "$STUBS/venv-installed" ]; exit; fi
if [ "$1" = -m ] && [ "$2" = venv ]; then
  [ -f "$STUBS/venv-installed" ] || { echo "ensurepip is not available" >&2; exit 1; }
  mkdir -p "$3/bin"
  for tool in python lint-imports wayback mkdocs; do printf '#!/bin/bash\\nexit 0\\n' > "$3/bin/$tool"; done
  chmod +x "$3"/bin/*
fi
"""
APT_GET = """#!/bin/bash
echo "apt-get $*" >> "$LOG"
case " $* " in *" python3-venv "*) touch "$STUBS/venv-installed";; esac
"""


def _run(tmp_path: Path, uid: int) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """A copy of scripts/test.sh run with ``python3``, ``apt-get`` and ``id`` stubbed (logged, in order)."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "test.sh", tmp_path / "scripts" / "test.sh")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name, text in {"python3": PYTHON3, "apt-get": APT_GET, "id": f"#!/bin/bash\necho {uid}\n"}.items():
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    log = tmp_path / "log"
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "LOG": str(log),
        "STUBS": str(stubs),
        "WIKIHOWQA_VENV": str(tmp_path / "venv"),
        "WIKIHOWQA_PYWB_VENV": str(tmp_path / "venv-pywb"),
    }
    done = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "test.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    return done, log.read_text().splitlines() if log.exists() else []


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash")
def test_python3_venv_is_installed_as_root_before_the_first_virtual_environment(tmp_path):
    done, calls = _run(tmp_path, uid=0)
    assert done.returncode == 0, done.stderr
    installs = [i for i, c in enumerate(calls) if c.startswith("apt-get") and "python3-venv" in c]
    venvs = [i for i, c in enumerate(calls) if c.startswith("python3 -m venv")]
    assert installs and venvs and installs[0] < venvs[0], calls
    assert (tmp_path / "venv" / "bin" / "python").exists()


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash")
def test_without_root_a_missing_python3_venv_is_one_line_saying_what_to_install(tmp_path):
    done, calls = _run(tmp_path, uid=1000)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: python3 cannot make a virtual environment: install Debian's python3-venv "
        "(apt-get install python3-venv, as root)"
    ]
    assert not any(c.startswith(("apt-get", "python3 -m venv")) for c in calls), calls
