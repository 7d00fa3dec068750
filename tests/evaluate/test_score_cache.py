"""The score cache: a run stopped anywhere resumes to the scores an uninterrupted run gives, scoring nothing
twice — also for a metric whose numbers depend on what shares their batch (BERTScore's padding)."""

from __future__ import annotations

import json

from wikihowqa.core.progress import QUIET
from wikihowqa.evaluate.score_cache import JsonRecords, ScoreCache, cached_batches

KEYS = [f"k{i}" for i in range(10)]


def padded(calls: list[list[int]]):
    """A metric like BERTScore: each score carries the longest item of its batch (padding)."""

    def compute(chunk: list[int]) -> list[list[float]]:
        calls.append(chunk)
        return [[i + max(chunk) / 1000] for i in chunk]

    return compute


def _scores(path, *, fixed: bool, calls: list[list[int]] | None = None) -> list[list[float]]:
    return cached_batches(
        "m", KEYS, ScoreCache(path), padded(calls if calls is not None else []), QUIET, 4, fixed_batches=fixed
    )


def _lines(path) -> list[str]:
    return [json.loads(line)["key"] for line in path.read_text().splitlines()]


def test_a_run_resumed_after_a_kill_scores_each_pair_in_the_batch_an_uninterrupted_run_did(tmp_path):
    whole = _scores(tmp_path / "whole.jsonl", fixed=True)
    cut = tmp_path / "cut.jsonl"
    _scores(cut, fixed=True)
    kept = cut.read_text().splitlines()[:6]  # killed after the first batch and half of the second
    cut.write_text("\n".join(kept) + "\n")
    calls: list[list[int]] = []
    assert _scores(cut, fixed=True, calls=calls) == whole
    assert calls == [[4, 5, 6, 7], [8, 9]]  # the half-done batch is computed whole, as it was at first
    assert sorted(_lines(cut)) == sorted(KEYS)  # and each key is written once


def test_without_fixed_batches_the_left_keys_are_batched_anew_and_their_numbers_move(tmp_path):
    """Why BERTScore asks for fixed batches: the default batches what is left, which a padded metric feels."""
    whole = _scores(tmp_path / "whole.jsonl", fixed=False)
    cut = tmp_path / "cut.jsonl"
    _scores(cut, fixed=False)
    cut.write_text("\n".join(cut.read_text().splitlines()[:6]) + "\n")
    calls: list[list[int]] = []
    resumed = _scores(cut, fixed=False, calls=calls)
    assert calls == [[6, 7, 8, 9]] and resumed != whole
    assert sorted(_lines(cut)) == sorted(KEYS)


def test_a_complete_cache_computes_nothing(tmp_path):
    path = tmp_path / "c.jsonl"
    first = _scores(path, fixed=True)
    calls: list[list[int]] = []
    assert _scores(path, fixed=True, calls=calls) == first and calls == []


def test_details_are_kept_as_text_and_read_back_as_the_records_they_were(tmp_path):
    details = {"supported_share": 0.5, "sentences": [{"sentence": "Cut the fig.", "support": 0.25}]}
    cache = ScoreCache(tmp_path / "cache.jsonl")
    cache.put_details([("k", details)])
    assert cache.details("k") == details and isinstance(cache.details_text("k"), str)
    assert ScoreCache(tmp_path / "cache.jsonl").details("k") == details  # and after a restart


def test_json_records_read_like_the_list_of_dicts_they_hold():
    rows = [{"a": 1}, {"b": [2.5, None]}, {"c": "é"}]
    records = JsonRecords(json.dumps(r) for r in rows)
    assert len(records) == 3 and records[1] == rows[1] and records[-1] == rows[-1]
    assert records[:2] == rows[:2] and list(records) == rows
    assert records == rows and records == JsonRecords(json.dumps(r) for r in rows)
    assert records != rows[:2]


def test_a_details_line_is_the_json_of_its_record(tmp_path):
    """Written from the text the cache holds (serialised once), the line is what ``json.dumps`` of the
    record gives: readers of other versions read it as before."""
    details = {"supported_share": 1.0, "sentences": [{"sentence": 'Say "é".', "support": 0.5}]}
    ScoreCache(tmp_path / "cache.jsonl").put_details([('k "1"', details)])
    line = (tmp_path / "cache.jsonl").read_text(encoding="utf-8")
    assert line == json.dumps({"key": 'k "1"', "details": details}) + "\n"
