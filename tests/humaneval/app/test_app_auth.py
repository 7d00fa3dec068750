"""Tokens: unguessable, compared in constant time, never a way in for someone else's link."""

from __future__ import annotations

import re

from wikihowqa.humaneval.app import auth
from wikihowqa.humaneval.app.state import ApiError, StudyService


def test_tokens_carry_256_random_bits_and_do_not_repeat():
    tokens = {auth.new_token() for _ in range(2000)}
    assert len(tokens) == 2000
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{43}", t) for t in tokens)  # 32 bytes, URL-safe base64


def test_tokens_are_compared_with_hmac_compare_digest(monkeypatch):
    calls = []
    real = auth.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    assert auth.tokens_equal("abc", "abc") and not auth.tokens_equal("abc", "abd")
    assert len(calls) == 2


def test_a_token_one_character_off_is_refused(study_dir):
    service = StudyService(study_dir)
    row = service.assessors["trial_a-001"]
    assert service.authenticate(row.token).assessor_id == "trial_a-001"
    for wrong in (row.token[:-1] + ("A" if row.token[-1] != "A" else "B"), row.token + "x", "", None):
        try:
            service.authenticate(wrong)
        except ApiError as exc:
            assert exc.status == 401
        else:
            raise AssertionError(f"{wrong!r} was accepted")
    service.close()


def test_bearer_headers_are_parsed_strictly():
    assert auth.bearer("Bearer abc") == "abc"
    assert auth.bearer("bearer  abc ") == "abc"
    assert (
        auth.bearer("Basic abc") is None and auth.bearer("Bearer a b") is None and auth.bearer(None) is None
    )


def test_completion_codes_avoid_look_alike_characters():
    codes = [auth.completion_code() for _ in range(500)]
    assert all(len(c) == 8 and not set(c) & set("01OIL") for c in codes)


def test_a_crowd_assessor_id_is_a_stable_pseudonym_of_the_worker():
    a = auth.crowd_assessor_id("secret", "WORKER42", "trial_a")
    assert a == auth.crowd_assessor_id("secret", "WORKER42", "trial_a")
    assert a != auth.crowd_assessor_id("secret", "WORKER42", "trial_b")
    assert a != auth.crowd_assessor_id("other", "WORKER42", "trial_a")
    assert "WORKER42" not in a and a.startswith("crowd-trial_a-")


def test_a_weak_admin_token_is_refused():
    import pytest

    from wikihowqa.core.errors import SettingsError
    from wikihowqa.humaneval.app import ServerSettings

    with pytest.raises(SettingsError, match="at least 16"):
        ServerSettings(admin_token="short")
    with pytest.raises(SettingsError):
        ServerSettings(admin_token="has spaces in it, which is bad")
