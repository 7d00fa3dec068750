"""Spec: `wikihowqa view` refuses bad input in one line and its server stops like every other (issue 32).

Item 7: a port in use or out of range used to end in a traceback, and ``view --serve &`` in a script
ignored Ctrl-C. Item 11: predictions that match no question used to give "0 systems", exit 0, and an
empty system name was accepted.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from wikihowqa.runtime.processes import start_group, stop_group

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_a_port_out_of_range_is_one_line_before_any_work(cli, small_dataset, tmp_path, port):
    result = cli("view", small_dataset, "--serve", "--port", port, "--out", tmp_path / "site")
    assert result.exit_code == 2, result.output
    assert result.lines == [f"error: --port {port}: out of range (0, any free port, to 65535)"]
    assert not (tmp_path / "site").exists()


def test_a_port_in_use_is_one_line_naming_it(cli, small_dataset, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = cli("view", small_dataset, "--serve", "--port", port, "--out", tmp_path / "site")
    assert result.exit_code == 2, result.output
    assert len(result.lines) == 1
    assert f"--port {port}: cannot serve on 127.0.0.1:{port} (in use" in result.lines[0]
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_view_serve_in_the_background_of_a_script_stops_on_ctrl_c(small_dataset, tmp_path, sig):
    """A shell starts a script's background job with SIGINT ignored; the server must stop on it anyway."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1", "BROWSER": "true", "COLUMNS": "200"}
    command = [sys.executable, "-m", "wikihowqa", "view", str(small_dataset), "--serve", "--port", "0",
               "--out", str(tmp_path / "site")]  # fmt: skip
    command = ["bash", "-c", 'trap "" INT; exec "$@"', "bash", *command]
    process = start_group(command, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for line in process.stderr:  # type: ignore[union-attr]
            if "serving on http://127.0.0.1:" in line:
                break
        else:
            pytest.fail(f"the server never said where it serves: {process.stdout.read()}")  # type: ignore[union-attr]
        process.send_signal(sig)
        code, err = process.wait(timeout=20), process.stderr.read()  # type: ignore[union-attr]
        assert code == 0, err
        assert "stopped" in err
    finally:
        stop_group(process)


def _predictions(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_predictions_that_match_no_question_are_an_error(cli, small_dataset, tmp_path):
    row = {"article_id": 9, "system": "mine", "answer": "An answer."}
    stray = _predictions(tmp_path / "stray.jsonl", [row])
    result = cli("view", small_dataset, "--predictions", stray, "--out", tmp_path / "site")
    assert result.exit_code == 2, result.output
    assert len(result.lines) == 1 and "stray.jsonl" in result.lines[0] and "no question" in result.lines[0]


@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_system_name_is_refused(cli, small_dataset, tmp_path, name):
    questions = [json.loads(line) for line in (small_dataset / "qa.jsonl").read_text().splitlines()]
    rows = [{"article_id": q["article_id"], "system": name, "answer": "An answer."} for q in questions]
    blank = _predictions(tmp_path / "blank.jsonl", rows)
    result = cli("view", small_dataset, "--predictions", blank, "--out", tmp_path / "site")
    assert result.exit_code == 2, result.output
    assert len(result.lines) == 1 and "blank.jsonl" in result.lines[0] and "system" in result.lines[0]
