"""``wikihowqa evaluate`` as a user runs it: wrong judge settings are one line, before any work."""

from __future__ import annotations

import time

from tests.evaluate.test_judge import three_questions


def test_evaluate_refuses_a_judge_address_that_is_no_url_in_one_line_at_once(cli, tmp_path):
    ds, preds = three_questions(tmp_path)
    started = time.monotonic()
    r = cli("evaluate", ds, preds, "--judge", "j", "--judge-base-url", "not a url", "--no-bertscore")
    assert time.monotonic() - started < 5  # was: 7 attempts over some 20 seconds of the SDK's backoff
    assert r.exit_code == 2 and len(r.lines) == 1 and "--judge-base-url: 'not a url'" in r.stderr
