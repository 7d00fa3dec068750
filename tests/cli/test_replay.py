"""``wikihowqa replay-site`` prints where it serves, serves with the requested faults, and stops on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import httpx
import pytest

from wikihowqa.runtime.processes import start_group, stop_group

SRC = Path(__file__).resolve().parents[2] / "src"


def _run(*args: str, sigint_ignored: bool = False) -> subprocess.Popen[str]:
    """The command in its own process (and process group): a server that runs until Ctrl-C (SIGINT),
    which the in-process ``cli`` runner cannot send. ``sigint_ignored``: started as a shell starts a
    background job of a script, with SIGINT ignored (inherited through ``exec``)."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
    command = [sys.executable, "-m", "wikihowqa", "replay-site", *args]
    if sigint_ignored:
        command = ["bash", "-c", 'trap "" INT; exec "$@"', "bash", *command]
    return start_group(command, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _started(process: subprocess.Popen[str]) -> str:
    """The start-up lines, up to the one saying how to stop."""
    lines = []
    for line in process.stdout:  # type: ignore[union-attr]
        lines.append(line)
        if "Ctrl-C" in line:
            break
    return "".join(lines)


def test_replay_site_command_serves_until_interrupted(corpus_dir):
    process = _run("--corpus", str(corpus_dir), "--port", "0", "--throttle-every", "cdx=2", "--lag", "9")
    try:
        text = _started(process)
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
        stop_group(process)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_replay_site_started_in_the_background_of_a_script_stops_on_ctrl_c_and_sigterm(corpus_dir, sig):
    """Issue 26, 9: a script's background job inherits SIGINT ignored, and Ctrl-C (or the script's
    ``kill -INT``) used to do nothing; SIGTERM stops it as cleanly."""
    process = _run("--corpus", str(corpus_dir), "--port", "0", sigint_ignored=True)
    try:
        assert "Ctrl-C" in _started(process)
        process.send_signal(sig)
        code, err = process.wait(timeout=20), process.stderr.read()  # type: ignore[union-attr]
        assert code == 0, err
        assert "stopped; requests served: mediawiki 0, cdx 0, playback 0" in err
    finally:
        stop_group(process)


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--throttle", "wiki=0.5", "unknown endpoint group 'wiki'"),
        ("--rate-limit-retry-after", "cdx=maybe", "'maybe' is not a valid value"),
    ],
)
def test_a_bad_fault_flag_is_one_line_of_error(cli, corpus_dir, flag, value, message):
    result = cli("replay-site", "--corpus", corpus_dir, "--port", "0", flag, value)
    assert result.exit_code == 2
    assert len(result.lines) == 1 and message in result.stderr


#: Every fault option of ``replay-site`` (some for all groups, some for one) and the
#: (group, field, value) it must set.
EVERY_FAULT_FLAG = [
    ("--latency", "0.01", "all", "latency_s", 0.01),
    ("--latency", "cdx=0.02", "cdx", "latency_s", 0.02),
    ("--jitter", "0.03", "all", "jitter_s", 0.03),
    ("--throttle", "0.1", "all", "throttle_p", 0.1),
    ("--throttle-every", "7", "all", "throttle_every", 7),
    ("--retry-after", "4", "all", "retry_after_s", 4),
    ("--retry-after", "playback=none", "playback", "retry_after_s", None),
    ("--error", "0.2", "all", "error_p", 0.2),
    ("--error-every", "mediawiki=9", "mediawiki", "error_every", 9),
    ("--error-status", "502", "all", "error_status", 502),
    ("--drop", "0.05", "all", "drop_p", 0.05),
    ("--drop-every", "playback=11", "playback", "drop_every", 11),
    ("--truncate", "0.15", "all", "truncate_p", 0.15),
    ("--truncate-every", "13", "all", "truncate_every", 13),
    ("--rate-limit", "cdx=2.5", "cdx", "rate_limit", 2.5),
    ("--burst", "cdx=3", "cdx", "burst", 3),
    ("--rate-limit-retry-after", "cdx=no", "cdx", "rate_limit_retry_after", False),
    ("--lag", "1.5", "mediawiki", "lag_s", 1.5),
]


def test_every_fault_flag_reaches_the_running_site(corpus_dir):
    """Start the command with all fault options at once and read each setting back from /__stats."""
    from typer.main import get_command

    from wikihowqa.cli import app
    from wikihowqa.replay import EndpointFaults

    command = get_command(app).commands["replay-site"]  # type: ignore[attr-defined]
    fault_options = {p.opts[0] for p in command.params if getattr(p, "rich_help_panel", None) == "Faults"}
    assert fault_options - {"--seed"} == {row[0] for row in EVERY_FAULT_FLAG}

    expected = {g: asdict(EndpointFaults()) for g in ("mediawiki", "cdx", "playback")}
    for *_, scope, name, value in sorted(EVERY_FAULT_FLAG, key=lambda row: row[2] != "all"):
        for group in expected if scope == "all" else [scope]:  # "all" first, the groups override it
            expected[group][name] = value
    for name, default in asdict(EndpointFaults()).items():  # the table sets every field somewhere
        assert any(expected[g][name] != default for g in expected), name

    args = [arg for flag, value, *_ in EVERY_FAULT_FLAG for arg in (flag, value)]
    process = _run("--corpus", str(corpus_dir), "--port", "0", *args, "--seed", "42")
    try:
        text = _started(process)
        base = re.search(r"counters\s+(\S+)/__stats", text).group(1)  # type: ignore[union-attr]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", base) and not base.endswith(":0")
        stats = httpx.get(f"{base}/__stats", timeout=10).json()
        assert stats["faults"] == expected
        assert stats["seed"] == 42
        assert "rate_limit_retry_after=False" in text.split("faults [cdx]")[1].splitlines()[0]
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
