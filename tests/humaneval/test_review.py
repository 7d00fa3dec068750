"""The review file: accept, fix (edits re-derived or given) or reject each deteriorated answer."""

from __future__ import annotations

import csv
import json
import random
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.humaneval.conftest import SAMPLE_ANSWERS, make_dataset
from wikihowqa.core.errors import DatasetError
from wikihowqa.humaneval.deteriorate import DeteriorationSettings, check_answer, deteriorate_examples
from wikihowqa.humaneval.review import (
    apply_review,
    derive_edits,
    read_review,
    rederive_edits,
    write_review_template,
)


@pytest.fixture(scope="module")
def answers():
    examples, _ = make_dataset(per_category=5)
    return deteriorate_examples(examples[:10], DeteriorationSettings(seed=5))


def _fill(path, decisions: dict[int, tuple[str, str | None]]):
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    for r in rows:
        decision, text = decisions.get(int(r["article_id"]), ("accept", None))
        r["decision"] = decision
        if text is not None:
            r["deteriorated"] = text
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_accept_fix_and_reject_are_honoured(tmp_path, answers):
    path = tmp_path / "review.csv"
    assert write_review_template(path, answers) == sum(a.is_deteriorated for a in answers)
    bad = [a for a in answers if a.is_deteriorated]
    fixed_text = (
        bad[1].deteriorated.replace(bad[1].edits[0].new, bad[1].edits[0].old, 1) + " Add a pinch of salt."
    )
    _fill(path, {bad[0].article_id: ("reject", None), bad[1].article_id: ("fix", fixed_text)})
    out, counts = apply_review(answers, read_review(path))
    assert counts == {"accept": len(bad) - 2, "fix": 1, "reject": 1, "pending": 0}
    by_id = {a.article_id: a for a in out}
    assert bad[0].article_id not in by_id
    fixed = by_id[bad[1].article_id]
    assert fixed.deteriorated == fixed_text and check_answer(fixed) == []
    assert fixed.edits[-1].new.strip() == "Add a pinch of salt." and fixed.edits[-1].type == "other"
    kept, _ = apply_review(answers, read_review(path), rejected="intact")
    intact = {a.article_id: a for a in kept}[bad[0].article_id]
    assert intact.deteriorated == intact.original and not intact.edits


def test_fix_with_explicit_edits_in_jsonl_is_validated(tmp_path, answers):
    bad = next(a for a in answers if a.is_deteriorated)
    good = [e.to_dict() for e in bad.edits]
    path = tmp_path / "review.jsonl"
    path.write_text(
        json.dumps(
            {"article_id": bad.article_id, "decision": "fix", "deteriorated": bad.deteriorated, "edits": good}
        )
        + "\n"
    )
    out, _ = apply_review(answers, read_review(path), require_all=False)
    assert {a.article_id: a for a in out}[bad.article_id].edits == bad.edits
    good[0]["start"] += 1
    path.write_text(
        json.dumps(
            {"article_id": bad.article_id, "decision": "fix", "deteriorated": bad.deteriorated, "edits": good}
        )
        + "\n"
    )
    with pytest.raises(DatasetError, match=r"review.jsonl:1: edit"):
        apply_review(answers, read_review(path), require_all=False)


def test_unreviewed_answers_and_bad_decisions_are_named(tmp_path, answers):
    path = tmp_path / "review.csv"
    write_review_template(path, answers)
    with pytest.raises(DatasetError, match="have no decision yet"):
        apply_review(answers, read_review(path))
    out, counts = apply_review(answers, read_review(path), require_all=False)
    assert len(out) == len(answers) and counts["pending"] == sum(a.is_deteriorated for a in answers)
    path.write_text("article_id,decision\n1,maybe\n")
    with pytest.raises(DatasetError, match=r"review.csv:2: decision must be one of"):
        read_review(path)


@settings(max_examples=60, deadline=None)
@given(answer=st.sampled_from(SAMPLE_ANSWERS), seed=st.integers(0, 10_000))
def test_rederived_edits_reconstruct_any_hand_edit(answer, seed):
    rng = random.Random(seed)
    words = answer.split(" ")
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(words))
        action = rng.choice(["replace", "delete", "insert"])
        if action == "replace":
            words[i] = rng.choice(["never", "7", "cold", "quickly"])
        elif action == "delete" and len(words) > 3:
            del words[i]
        else:
            words.insert(i, rng.choice(["not", "very", "twice"]))
    fixed = " ".join(words)
    if fixed == answer:
        return
    from wikihowqa.humaneval.deteriorate import DeterioratedAnswer

    edits = derive_edits(answer, fixed)
    assert check_answer(DeterioratedAnswer(1, "q", None, answer, fixed, edits)) == []


# --------------------------------------------------------------------------- a fix keeps the generated edits


@pytest.fixture(scope="module")
def generated() -> list:
    """Every deteriorated answer of the synthetic dataset under three seeds (over 200 answers, all types)."""
    examples, _ = make_dataset(per_category=5)
    return [
        a
        for seed in (0, 5, 11)
        for a in deteriorate_examples(examples, DeteriorationSettings(seed=seed))
        if a.is_deteriorated
    ]


def _fix(answer, text: str):
    path_rows = [{"article_id": answer.article_id, "decision": "fix", "deteriorated": text, "_line": 2}]
    out, _ = apply_review([answer], path_rows)
    return out[0]


def test_a_fix_that_changes_nothing_gives_back_exactly_the_generated_edits(generated):
    assert len(generated) > 200 and {e.type for a in generated for e in a.edits} >= {"unsupported", "swap"}
    for answer in generated:
        assert rederive_edits(answer, answer.deteriorated) == answer.edits, answer.article_id
        assert _fix(answer, answer.deteriorated).edits == answer.edits


def test_rewording_one_negation_keeps_every_other_edit_and_its_type(generated):
    answer = next(  # the audit's case: the untouched inserted sentence came back as "other"
        a
        for a in generated
        if any(e.new.startswith("do not ") for e in a.edits) and any(e.type == "unsupported" for e in a.edits)
    )
    target = next(e for e in answer.edits if e.new.startswith("do not "))
    text = answer.deteriorated[: target.start] + "never " + target.new[7:] + answer.deteriorated[target.end :]
    fixed = _fix(answer, text)
    assert check_answer(fixed) == []
    shift = len(text) - len(answer.deteriorated)
    others = [
        replace(e, start=e.start + shift, end=e.end + shift) if e.start > target.start else e
        for e in answer.edits
        if e is not target
    ]
    assert [e for e in fixed.edits if e in others] == others
    (changed,) = [e for e in fixed.edits if e not in others]
    assert changed.type == "negation" and changed.new.strip() == "never"
    assert fixed.deteriorated[changed.start : changed.end] == changed.new


def test_rewording_an_inserted_sentence_keeps_it_unsupported(generated):
    answer = next(a for a in generated if any(e.type == "unsupported" for e in a.edits))
    target = next(e for e in answer.edits if e.type == "unsupported")
    reworded = target.new.replace(" ", "  ", 1).rstrip(".") + " at once."
    text = answer.deteriorated[: target.start] + reworded + answer.deteriorated[target.end :]
    fixed = _fix(answer, text)
    assert check_answer(fixed) == []
    assert [e.type for e in fixed.edits] == [e.type for e in answer.edits]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_one_word_fix_keeps_the_generated_edits_it_does_not_reach(generated, data):
    """A reviewer replaces, deletes or inserts one word anywhere: the offsets are exact in both texts,
    and every generated edit more than a word away from the change is kept as it was, shifted."""
    answer = data.draw(st.sampled_from(generated))
    words = [m.span() for m in re.finditer(r"\S+", answer.deteriorated)]
    s, e = data.draw(st.sampled_from(words))
    action = data.draw(st.sampled_from(["replace", "delete", "insert"]))
    word = data.draw(st.sampled_from(["never", "7", "cold", "quickly"]))
    g = answer.deteriorated
    if action == "replace":
        text = g[:s] + word + g[e:]
    elif action == "delete":
        s, e = (s - 1, e) if s > 0 else (s, min(e + 1, len(g)))
        text = g[:s] + g[e:]
    else:
        e = s
        text = g[:s] + word + " " + g[s:]
    if text in (answer.original, g) or not text.strip():
        return
    fixed = _fix(answer, text)
    assert check_answer(fixed) == []
    shift = len(text) - len(g)
    margin = len(word) + 2
    untouched = [
        x if x.end < s else replace(x, start=x.start + shift, end=x.end + shift)
        for x in answer.edits
        if x.end + margin < s or x.start > e + margin
    ]
    assert set(untouched) <= set(fixed.edits)
