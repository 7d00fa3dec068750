"""Claims in answer text that grounding checks: clauses, negation scopes, quantities, sequence words."""

from __future__ import annotations

import pytest

from wikihowqa.evaluate.claims import (
    Quantity,
    clauses_of,
    contradicted,
    negation_scopes,
    order_clash,
    order_marker,
    quantities,
    stated,
)


def test_clauses_are_cut_at_punctuation_and_are_exact_substrings():
    sentence = "Rinse the filter with hot water, add the grounds, and pour just enough water to wet them."
    assert clauses_of(sentence) == [
        "Rinse the filter with hot water",
        "add the grounds",
        "and pour just enough water to wet them.",
    ]


def test_a_clause_too_short_to_align_joins_its_neighbour():
    # "pepper" alone is one content word: it joins the clause before it; "Then" joins the one after
    assert clauses_of("Add salt, pepper, and oil to the pan.") == ["Add salt, pepper", "and oil to the pan."]
    assert clauses_of("Then, place the figs on a rack.") == ["Then, place the figs on a rack."]
    assert clauses_of("Yes.") == ["Yes."]
    assert clauses_of("") == []


def test_negation_scope_runs_to_punctuation_a_conjunction_or_five_words():
    assert negation_scopes("Don't pour water onto the filter, because it tears.") == [
        "pour water onto the filter"
    ]
    assert negation_scopes("Never spray or pour liquid on it.") == ["spray"]
    assert negation_scopes("Do not let the figs touch each other on the tray.") == ["let the figs touch each"]
    assert negation_scopes("Use no oil.") == ["oil"]
    assert negation_scopes("Use oil.") == []


def _q(values, unit):
    return frozenset(float(v) for v in values), unit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Heat water to 93°C (200°F) for 30 to 45 seconds.",
            [_q([93], "°c"), _q([200], "°f"), _q([30, 45], "second")],
        ),
        (
            "Use two cups, then 1 1/2 teaspoons and ½ cup.",
            [_q([2], "cup"), _q([1.5], "teaspoon"), _q([0.5], "cup")],
        ),
        ("Stir twice and add 1,000 grams.", [_q([2], "time"), _q([1000], "gram")]),
        ("Cut them in half.", [_q([0.5], None)]),
        ("A 12-inch pan takes 10% more.", [_q([12], "inch"), _q([10], "%")]),
        ("Bake 3 batches of 2 dozen eggs.", [_q([3], "batch"), _q([24], "egg")]),
        ("Three hundred grams", [_q([300], "gram")]),
        ("Someone with nothing.", []),
    ],
)
def test_quantities_are_numbers_with_the_word_after_them_as_unit(text, expected):
    assert [(q.values, q.unit) for q in quantities(text)] == expected


def Q(values, unit):
    return Quantity(frozenset(float(v) for v in values), unit, "")


def test_a_quantity_is_stated_when_its_values_appear_with_a_compatible_unit():
    assert stated(Q([45], "second"), [Q([30, 45], "second")])
    assert stated(Q([30], "minute"), [Q([30], None)])
    assert not stated(Q([30, 45], "second"), [Q([30], "second")])
    assert not stated(Q([30], "minute"), [Q([30], "hour")])


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        ([Q([15], "minute")], True),  # another amount of the same unit
        ([Q([30], "hour")], True),  # the same amount of another unit
        ([Q([30], "minute")], False),
        ([Q([5], "cup")], False),  # about something else
        ([], False),  # not mentioned: unsupported, not contradicted
    ],
)
def test_contradiction_needs_a_different_amount_of_the_same_thing(evidence, expected):
    assert contradicted(Q([30], "minute"), evidence) is expected


def test_a_bare_number_is_never_contradicted():
    assert not contradicted(Q([3], None), [Q([4], None), Q([4], "cup")])


@pytest.mark.parametrize(
    ("clause", "marker"),
    [
        ("Finally, rinse the board.", "late"),
        ("Then add salt", "follows"),
        ("and next, stir", "follows"),
        ("First of all, wash it", "early"),
        ("Start by cutting the figs", "early"),
        ("Before that, wash the figs", "precedes"),
        ("Thenar muscles ache", None),
        ("Rinse it first", None),
    ],
)
def test_order_marker_reads_the_opening_sequence_word(clause, marker):
    assert order_marker(clause) == marker


@pytest.mark.parametrize(
    ("marker", "position", "previous", "others", "clash"),
    [
        ("early", 5, None, [1, 2], True),
        ("early", 0, None, [1, 2], False),
        ("early", 5, None, [], False),  # nothing to be first among
        ("late", 0, None, [1, 2], True),
        ("late", 3, 2, [1, 2], False),
        ("follows", 1, 3, [3], True),
        ("follows", 4, 3, [3], False),
        ("follows", 4, None, [], False),
        ("precedes", 4, 3, [3], True),
        ("precedes", 2, 3, [3], False),
    ],
)
def test_order_clash_compares_evidence_positions(marker, position, previous, others, clash):
    assert order_clash(marker, position, previous, others) is clash
