"""The report's files are one set: a failure while writing them leaves the previous report whole."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re

import pytest

from tests import tiny_fs
from wikihowqa.evaluate import report
from wikihowqa.evaluate.pipeline import CACHE_FILE, EvaluationSettings, evaluate

from .test_pipeline import _dataset, _predictions

SETTINGS = EvaluationSettings(bertscore=None, grounding=None, resamples=100)


def _digests(folder) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture
def runs(tmp_path):
    ds = _dataset(tmp_path)
    answers = {100 + i: f"Clean the {t} weekly." for i, t in enumerate(["figs", "fences", "floors"])}
    a = _predictions(tmp_path / "a.jsonl", "first", answers)
    b = _predictions(tmp_path / "b.jsonl", "second", {k: "Keep them dry." for k in answers})
    return ds, a, b


def test_a_failure_while_writing_leaves_the_old_report_and_its_cache_whole(runs, tmp_path, monkeypatch):
    ds, a, b = runs
    out = tmp_path / "report"
    report.write_report(evaluate(ds, [a], SETTINGS, cache_dir=out), out)
    (out / "notes.txt").write_text("mine\n")
    before = _digests(out)
    assert set(before) == {*report.FILES, CACHE_FILE, "notes.txt"}

    evaluation = evaluate(ds, [a, b], SETTINGS, cache_dir=out)  # scores of b appended to the cache
    cache_now = (out / CACHE_FILE).read_bytes()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(report, "render_chart", full)  # the last file: the others are written by then
    with pytest.raises(OSError) as failed:
        report.write_report(evaluation, out)
    assert failed.value.errno == errno.ENOSPC
    assert {**_digests(out), CACHE_FILE: before[CACHE_FILE]} == before  # every report file as it was
    assert (out / CACHE_FILE).read_bytes() == cache_now
    saved = json.loads((out / "evaluation.json").read_text())
    assert [r["system"] for r in saved["leaderboard"]] == ["first"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl", "ds", "report"]


def test_a_new_report_replaces_every_file_and_keeps_the_cache_and_other_files(runs, tmp_path):
    ds, a, b = runs
    out = tmp_path / "report"
    report.write_report(evaluate(ds, [a], SETTINGS, cache_dir=out), out)
    (out / "notes.txt").write_text("mine\n")
    report.write_report(evaluate(ds, [a, b], SETTINGS, cache_dir=out), out)
    assert (out / "notes.txt").read_text() == "mine\n"
    assert (out / CACHE_FILE).stat().st_nlink == 1  # the old folder's link is gone with it
    rows = [json.loads(line) for line in (out / "per_question.jsonl").read_text().splitlines()]
    assert {r["system"] for r in rows} == {"first", "second"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl", "ds", "report"]


def test_evaluate_on_a_really_full_disk_fails_in_one_line_and_keeps_the_old_report(runs, tmp_path):
    """On a real tmpfs: the old one-system report, the disk filled, a two-system run whose scores are all
    cached (so only the report's own files need space, and the disk runs out among them)."""
    ds, a, b = runs
    warm = tmp_path / "warm"
    report.write_report(evaluate(ds, [a, b], SETTINGS, cache_dir=warm), warm)
    free = sum((warm / name).stat().st_size for name in ("evaluation.json", "evaluation.md")) + 8192
    args = f"{ds} --no-bertscore --no-grounding --resamples 100 --out \"$FS/rep\""
    script = f"""
wikihowqa evaluate {args.replace("--no-b", f"{a} --no-b")} > /dev/null 2>&1
cp {warm / CACHE_FILE} "$FS/rep/{CACHE_FILE}"
sha256sum "$FS"/rep/* > "$FS/before.txt"
fill {free}
wikihowqa evaluate {args.replace("--no-b", f"{a} {b} --no-b")} > /dev/null && echo rc=0 || echo rc=$?
sha256sum "$FS"/rep/* | diff - "$FS/before.txt" && echo UNCHANGED
ls -A "$FS"
"""
    result = tiny_fs.run(tmp_path / "mnt", script, size="512k")
    assert "rc=2" in result.stdout, (result.stdout, result.stderr)
    [line] = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    folder = re.escape(str(tmp_path / "mnt" / "rep"))
    assert re.fullmatch(rf"error: {folder}/[\w.]+: No space left on device \(ENOSPC\)", line), line
    assert "Traceback" not in result.stderr
    assert "UNCHANGED" in result.stdout
    assert result.stdout.split("UNCHANGED")[1].split() == [".filler", "before.txt", "rep"]
