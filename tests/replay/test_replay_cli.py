"""``wikihowqa replay-site`` prints where it serves, serves with the requested faults, and stops on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx

SRC = Path(__file__).resolve().parents[2] / "src"


def _run(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
    return subprocess.Popen(
        [sys.executable, "-m", "wikihowqa", "replay-site", *args],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_replay_site_command_serves_until_interrupted(corpus_dir):
    process = _run("--corpus", str(corpus_dir), "--port", "0", "--throttle-every", "cdx=2", "--lag", "9")
    try:
        lines = []
        for line in process.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if "Ctrl-C" in line:
                break
        text = "".join(lines)
        api = re.search(r"MediaWiki API\s+(\S+)", text).group(1)  # type: ignore[union-attr]
        cdx = re.search(r"Wayback CDX\s+(\S+)", text).group(1)  # type: ignore[union-attr]
        assert api.startswith("http://127.0.0.1:") and api.endswith("/api.php")
        # The group labels are printed as text, not swallowed as rich markup tags.
        assert "  faults [cdx]  throttle_every=2\n" in text
        assert "  faults [mediawiki]  lag_s=9.0\n" in text
        with httpx.Client(timeout=10) as client:
            site_info = client.get(
                api, params={"action": "query", "meta": "siteinfo", "format": "json"}
            ).json()
            assert site_info["query"]["general"]["sitename"] == "wikiHow (test)"
            lagged = client.get(api, params={"action": "query", "format": "json", "maxlag": 5}).json()
            assert lagged["error"]["code"] == "maxlag"
            codes = [client.get(cdx, params={"url": "example.org/empty"}).status_code for _ in range(2)]
            assert codes == [200, 429]
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
        assert "stopped; requests served: mediawiki 2, cdx 2, playback 0" in process.stderr.read()  # type: ignore[union-attr]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_bad_fault_flag_is_one_line_of_error(corpus_dir):
    process = _run("--corpus", str(corpus_dir), "--port", "0", "--throttle", "wiki=0.5")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert err.strip().count("\n") == 0
    assert "unknown endpoint group 'wiki'" in err
