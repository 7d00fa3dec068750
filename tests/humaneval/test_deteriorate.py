"""Deterioration: offsets point at the changed text, and the text differs only at recorded edits."""

from __future__ import annotations

import itertools
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.humaneval.conftest import SAMPLE_ANSWERS, make_dataset
from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.humaneval import deteriorate as det
from wikihowqa.humaneval.deteriorate import (
    EDIT_TYPES,
    DeterioratedAnswer,
    DeteriorationSettings,
    Donor,
    apply_edits,
    candidates,
    check_answer,
    deteriorate_examples,
    deteriorate_text,
    read_deteriorated,
    reconstruct_original,
    write_deteriorated,
)

DONOR = Donor(1, "Travel", "Always water the plants early in the morning.")


def _diff_outside_edits(original: str, deteriorated: str, edits) -> bool:
    """Independent check: walk both texts together, skipping each edit's old/new parts."""
    i = j = 0
    for e in sorted(edits, key=lambda e: e.original_start):
        if original[i : e.original_start] != deteriorated[j : e.start]:
            return True
        i, j = e.original_end, e.end
    return original[i:] != deteriorated[j:]


def _assert_consistent(original: str, text: str, edits) -> None:
    for e in edits:
        assert text[e.start : e.end] == e.new
        assert original[e.original_start : e.original_end] == e.old
        assert e.type in EDIT_TYPES
        assert e.new and e.new != e.old
    assert not _diff_outside_edits(original, text, edits)
    assert reconstruct_original(text, edits) == original
    starts = sorted((e.start, e.end) for e in edits)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(starts)), "edits must not touch"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, 100), seed=st.integers(0, 10_000), n=st.integers(1, 8))
def test_every_edit_points_at_changed_text_and_nothing_else_changes(real_answers, index, seed, n):
    pool = [*real_answers, *SAMPLE_ANSWERS]
    original = pool[index % len(pool)]
    text, edits = deteriorate_text(original, n, random.Random(seed), donor=DONOR)
    assert len(edits) <= n
    _assert_consistent(original, text, edits)


@settings(max_examples=40, deadline=None)
@given(
    parts=st.lists(
        st.sampled_from([s for a in SAMPLE_ANSWERS for s in a.split(". ")]), min_size=1, max_size=6
    ),
    seed=st.integers(0, 1000),
)
def test_offsets_hold_on_recombined_answers(parts, seed):
    original = ". ".join(p.rstrip(".") for p in parts) + "."
    text, edits = deteriorate_text(original, 6, random.Random(seed), donor=DONOR)
    _assert_consistent(original, text, edits)


def test_every_type_produces_edits_on_the_sample_answers():
    found = {t: 0 for t in EDIT_TYPES}
    for answer in SAMPLE_ANSWERS:
        for kind, cands in candidates(answer, random.Random(0), donor=DONOR).items():
            found[kind] += len(cands)
    assert all(found[t] > 0 for t in EDIT_TYPES), found


def _changes(text: str, kind: str) -> list[tuple[str, str]]:
    return [
        (text[ch.start : ch.end], ch.new)
        for c in candidates(text, random.Random(0), donor=DONOR)[kind]
        for ch in c.changes
    ]


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("To seal floors, use an epoxy sealer.", det.NEGATION, ("use", "do not use")),
        ("Use a soft brush on the tiles.", det.NEGATION, ("Use", "Do not use")),
        ("The sealer won't alter the color.", det.NEGATION, ("won't", "will")),
        ("Don't open the door too soon.", det.NEGATION, ("Don't open", "Open")),
        ("It takes a long time to dry.", det.NEGATION, ("takes", "does not take")),
        ("The paint is easy to apply.", det.NEGATION, ("is", "is not")),
        ("Never punish your dog.", det.NEGATION, ("Never", "Always")),
        ("Let it cool for 1 hour on a rack.", det.NUMBER, ("1 hour", r"(2|3) hours")),
        ("Rest for 10-15 minutes.", det.NUMBER, ("10-15", r"20-30|30-45")),
        ("Cut the figs in half with a knife.", det.NUMBER, ("half", r"thirds|quarters")),
        ("Use 2 cups of flour.", det.NUMBER, ("2", r"4|6|3")),
        ("Dry the figs for up to 36 hours.", det.UNIT, ("hours", r"minutes|days")),
        ("Bake it at 350°F until golden.", det.UNIT, ("°F", "°C")),
        ("Use hot water for the stain.", det.ANTONYM, ("hot", "cold")),
        ("To convince a reluctant parent, be kind.", det.ANTONYM, ("a reluctant", "an eager")),
        (
            "Use an epoxy sealer for color. Use a polyurethane sealer on old seals.",
            det.SWAP,
            ("an epoxy", "a polyurethane"),
        ),
        ("Once the figs are dry, let them cool.", det.ORDER, ("Once", "Before")),
        ("Rinse it before serving.", det.ORDER, ("before", "after")),
        ("Then, place the figs on a rack.", det.ORDER, ("Then", "Before that")),
    ],
)
def test_operators_write_grammatical_replacements(text, kind, expected):
    """``expected`` is (replaced text, replacement); numbers and units are drawn, so those are patterns."""
    got = _changes(text, kind)
    old, new = expected
    if kind in {det.NUMBER, det.UNIT}:
        assert any(o == old and re.fullmatch(new, n) for o, n in got), got
    else:
        assert (old, new) in got, got


def test_unsupported_sentence_is_inserted_at_a_sentence_boundary():
    text = "Wash the car thoroughly. Dry it with a towel."
    text2, edits = apply_edits(text, candidates(text, random.Random(0), donor=DONOR)[det.UNSUPPORTED][:1])
    assert (
        text2 == "Wash the car thoroughly. Always water the plants early in the morning. Dry it with a towel."
    )
    assert edits[0].old == "" and edits[0].original_start == edits[0].original_end == len(
        "Wash the car thoroughly."
    )


def test_protocol_picks_five_per_category_and_deteriorates_four_with_about_four_and_a_half_edits():
    examples, _ = make_dataset(per_category=7)
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=3))
    by_category: dict[str, list[DeterioratedAnswer]] = {}
    for a in answers:
        by_category.setdefault(a.category, []).append(a)
    assert len(by_category) == 19
    assert all(len(v) == 5 for v in by_category.values())
    assert all(sum(a.is_deteriorated for a in v) == 4 for v in by_category.values())
    bad = [a for a in answers if a.is_deteriorated]
    mean = sum(len(a.edits) for a in bad) / len(bad)
    assert 4.0 <= mean <= 5.0
    for a in answers:
        assert check_answer(a) == []
    donors = [(a, e) for a in bad for e in a.edits if e.type == det.UNSUPPORTED]
    for a, e in donors:
        assert any(e.new.strip() in ex.answer and ex.category != a.category for ex in examples)
    assert donors, "some answer should borrow an unsupported sentence"


def test_donor_sentences_come_from_another_category_and_share_the_topic():
    donors = [
        Donor(1, "Travel", "Pack a light bag for the flight."),
        Donor(2, "Health", "Brush your teeth with a soft brush."),
        Donor(3, "Home and Garden", "Water the plant with a soft spray."),
    ]
    answer = "Use a soft brush to clean the plant leaves."
    assert det.pick_donor(answer, 9, "Home and Garden", donors, random.Random(0)) == donors[1]
    assert det.pick_donor(answer, 9, "Health", donors, random.Random(0)) == donors[2]
    assert det.pick_donor(answer, 1, None, donors[:1], random.Random(0)) is None


def test_the_same_seed_gives_the_same_study_answers():
    examples, _ = make_dataset(per_category=6)
    first = deteriorate_examples(examples, DeteriorationSettings(seed=11))
    again = deteriorate_examples(examples, DeteriorationSettings(seed=11))
    other = deteriorate_examples(examples, DeteriorationSettings(seed=12))
    assert [a.to_dict() for a in first] == [a.to_dict() for a in again]
    assert [a.to_dict() for a in first] != [a.to_dict() for a in other]


def test_deteriorated_file_round_trips_and_rejects_bad_offsets(tmp_path):
    examples, _ = make_dataset(per_category=5)
    answers = deteriorate_examples(examples[:10], DeteriorationSettings(seed=1))
    path = tmp_path / "deteriorated.jsonl"
    write_deteriorated(path, answers)
    assert [a.to_dict() for a in read_deteriorated(path)] == [a.to_dict() for a in answers]
    rows = path.read_text().splitlines()
    target = next(i for i, r in enumerate(rows) if '"start": ' in r)
    rows[target] = rows[target].replace('"start": ', '"start": 9', 1)
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(DatasetError, match=rf"deteriorated.jsonl:{target + 1}: edit \d+: deteriorated\["):
        read_deteriorated(path)


def test_settings_reject_impossible_protocols():
    with pytest.raises(SettingsError):
        DeteriorationSettings(per_category=5, deteriorated_per_category=6)
    with pytest.raises(SettingsError, match="unknown deterioration type"):
        DeteriorationSettings(types=("typo",))
