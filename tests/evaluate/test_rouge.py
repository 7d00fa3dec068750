"""ROUGE must equal rouge-score's numbers: its published ROUGE-1.5.5 values, and rouge-score itself.

Golden values and test texts come from rouge-score's own tests (google-research/google-research,
``rouge/rouge_scorer_test.py`` and ``rouge/testdata/``, Apache-2.0), whose "ground truth" scores were
taken from manual runs of the original ROUGE-1.5.5 Perl script; the package on PyPI ships neither.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from wikihowqa.evaluate import rouge

TESTDATA = Path(__file__).parent / "data" / "rouge_score_testdata"
FIELDS = ("precision", "recall", "fmeasure")


def _reference_scores(prediction: str, reference: str) -> dict[str, rouge_scorer.scoring.Score]:
    """rouge-score as a user calls it: raw texts for 1/2/L, one sentence per line for Lsum."""
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    raw = scorer.score(reference, prediction)
    lines = scorer.score(rouge.lsum_text(reference), rouge.lsum_text(prediction))
    return {**{k: raw[k] for k in ("rouge1", "rouge2", "rougeL")}, "rougeLsum": lines["rougeLsum"]}


def _assert_equal_to_reference(prediction: str, reference: str, ours: dict) -> None:
    expected = _reference_scores(prediction, reference)
    for rouge_type, score in expected.items():
        for field in FIELDS:
            assert ours[rouge_type][field] == pytest.approx(getattr(score, field), abs=1e-9), (
                rouge_type,
                field,
            )


# --------------------------------------------------------------------------- ROUGE-1.5.5 golden values


def _lines(name: str) -> list[str]:
    return (TESTDATA / name).read_text(encoding="utf-8").splitlines(keepends=True)


@pytest.mark.parametrize(
    ("index", "rouge_type", "recall", "precision", "fmeasure"),
    [
        # testRouge1AgainstRouge155WithStemming
        (0, "rouge1", 0.40741, 0.68750, 0.51163),
        (1, "rouge1", 0.42857, 0.69231, 0.52941),
        # testRouge2AgainstRouge155WithStemming
        (0, "rouge2", 0.30769, 0.53333, 0.39024),
        (1, "rouge2", 0.29268, 0.48000, 0.36364),
    ],
)
def test_rouge_n_matches_rouge_155_with_stemming(index, rouge_type, recall, precision, fmeasure):
    target, prediction = _lines("target.txt")[index], _lines("prediction.txt")[index]
    result = rouge.score(prediction, target)[rouge_type]
    assert result["recall"] == pytest.approx(recall, abs=5e-6)
    assert result["precision"] == pytest.approx(precision, abs=5e-6)
    assert result["fmeasure"] == pytest.approx(fmeasure, abs=5e-6)


def test_rouge_lsum_matches_rouge_155_on_multi_sentence_summaries():
    # testRougeLSumAgainstRouge155WithStemming: sentences are the files' lines.
    target = (TESTDATA / "target_multi.0.txt").read_text(encoding="utf-8")
    prediction = (TESTDATA / "prediction_multi.0.txt").read_text(encoding="utf-8")
    result = rouge.score(prediction, target, split_sentences=False)["rougeLsum"]
    assert result["recall"] == pytest.approx(0.36538, abs=5e-6)
    assert result["precision"] == pytest.approx(0.66667, abs=5e-6)
    assert result["fmeasure"] == pytest.approx(0.47205, abs=5e-6)


# --------------------------------------------------------------------------- rouge-score's hand-worked cases


def test_rouge1_counts_unigram_overlap():
    result = rouge.score("testing", "testing one two")["rouge1"]
    assert (result["precision"], result["recall"]) == pytest.approx((1, 1 / 3))
    assert result["fmeasure"] == pytest.approx(1 / 2)


def test_rouge2_counts_bigram_overlap():
    result = rouge.score("testing one", "testing one two")["rouge2"]
    assert (result["precision"], result["recall"], result["fmeasure"]) == pytest.approx((1, 1 / 2, 2 / 3))


@pytest.mark.parametrize("prediction", ["testing one", "testing two"])
def test_rouge_l_uses_longest_common_subsequence_consecutive_or_not(prediction):
    result = rouge.score(prediction, "testing one two")["rougeL"]
    assert (result["precision"], result["recall"], result["fmeasure"]) == pytest.approx((1, 2 / 3, 4 / 5))


def test_rouge_lsum_takes_union_of_sentence_lcs():
    # testRougeLsum: union LCS of Lin (2004), section 3.2: recall 4/5, precision 4/10.
    result = rouge.score("w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5", "w1 w2 w3 w4 w5")["rougeLsum"]
    assert result["recall"] == pytest.approx(0.8)
    assert result["precision"] == pytest.approx(0.4)
    assert result["fmeasure"] == pytest.approx(0.5333, abs=1e-4)


def test_rouge_lsum_ignores_sentence_order():
    # testRougeLSumSentenceSplitting: one sentence per line gives 1.0; one line gives 0.5.
    assert rouge.score("Second sentence.\nFirst Sentence.", "First sentence.\nSecond Sentence.")["rougeLsum"][
        "fmeasure"
    ] == pytest.approx(1.0)
    assert rouge.score("Second sentence. First Sentence.", "First sentence. Second Sentence.")["rougeLsum"][
        "fmeasure"
    ] == pytest.approx(1.0)
    assert rouge.score(
        "Second sentence. First Sentence.", "First sentence. Second Sentence.", split_sentences=False
    )["rougeLsum"]["fmeasure"] == pytest.approx(0.5)


@pytest.mark.parametrize(("prediction", "reference"), [("", "testing one two"), ("w1", ""), ("/", "w1 w2")])
def test_empty_or_tokenless_text_scores_zero(prediction, reference):
    for rouge_type, result in rouge.score(prediction, reference).items():
        assert result == {"precision": 0.0, "recall": 0.0, "fmeasure": 0.0}, rouge_type


def test_stemming_matches_inflected_forms():
    assert rouge.score("Sealing floors", "Seal the floor")["rouge1"]["precision"] == 1.0


# --------------------------------------------------------------------------- the union-LCS read-out


def _dp_table(ref: list[int], cand: list[int]) -> list[list[int]]:
    table = [[0] * (len(cand) + 1) for _ in range(len(ref) + 1)]
    for i in range(1, len(ref) + 1):
        for j in range(1, len(cand) + 1):
            if ref[i - 1] == cand[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    return table


def _backtrack(table: list[list[int]], ref: list[int], cand: list[int]) -> list[int]:
    # The read-out rule of rouge-score's _backtrack_norec, written out independently.
    i, j, out = len(ref), len(cand), []
    while i > 0 and j > 0:
        if ref[i - 1] == cand[j - 1]:
            out.insert(0, i - 1)
            i, j = i - 1, j - 1
        elif table[i][j - 1] > table[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return out


token_lists = st.lists(st.integers(0, 6), max_size=30)


@given(ref=token_lists, cand=token_lists)
def test_bit_parallel_rows_give_every_cell_of_the_lcs_table(ref, cand):
    rows = rouge._lcs_rows(ref, rouge._masks(cand), len(cand))
    table = _dp_table(ref, cand)
    for i in range(len(ref) + 1):
        for j in range(len(cand) + 1):
            assert j - (rows[i] & ((1 << j) - 1)).bit_count() == table[i][j]


@given(ref=token_lists, cand=token_lists)
def test_lcs_read_out_is_the_one_rouge_score_picks(ref, cand):
    expected = _backtrack(_dp_table(ref, cand), ref, cand)
    assert rouge._lcs_indices(ref, cand, rouge._masks(cand)) == expected
    assert expected == rouge_scorer.lcs_ind(ref, cand)


# --------------------------------------------------------------------------- against rouge-score, randomized

WORDS = [
    "the",
    "a",
    "to",
    "of",
    "and",
    "use",
    "using",
    "used",
    "water",
    "waters",
    "heat",
    "heating",
    "oven",
    "ovens",
    "dry",
    "drying",
    "dried",
    "fig",
    "figs",
    "seal",
    "sealer",
    "sealing",
    "floor",
    "floors",
    "3",
    "30",
    "1/2",
    "2.5",
    "minutes",
    "hours",
    "don't",
    "isn't",
    "café",
    "naïve",
    "Ünïcödé",
    "日本語",
    "ﬁsh",
    "İstanbul",
    "straße",
    "K",
    "e.g.",
    "Dr.",
    "U.S.",
    "x",
    "--",
    "...",
    "(",
    ")",
    "'s",
    "I",
    "it's",
    "ok",
]
SEPARATORS = [" ", " ", " ", ", ", ". ", "! ", "? ", "\n", "  ", "\t", ". \n", "; "]


@st.composite
def texts(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 9)) == 0:  # arbitrary Unicode now and then
        return draw(st.text(max_size=60))
    words = draw(st.lists(st.sampled_from(WORDS), max_size=40))
    parts = []
    for word in words:
        if draw(st.booleans()) and draw(st.booleans()):
            word = word.capitalize()
        parts.append(word + draw(st.sampled_from(SEPARATORS)))
    return "".join(parts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prediction=texts(), reference=texts())
def test_equals_rouge_score_on_random_texts(prediction, reference):
    _assert_equal_to_reference(prediction, reference, rouge.score(prediction, reference))


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS[:12]), min_size=1, max_size=15), repeat=st.integers(2, 6))
def test_equals_rouge_score_on_repeated_words_and_sentences(words, repeat):
    sentence = " ".join(words).capitalize() + "."
    prediction = " ".join([sentence] * repeat)
    reference = " ".join(reversed(words)) + ". " + sentence
    _assert_equal_to_reference(prediction, reference, rouge.score(prediction, reference))


def test_paper_like_answers_equal_rouge_score():
    prediction = (
        "To dry figs, cut them in half. Place them on a rack with the cut side up, and set the oven to "
        "140 F (60 C). Dry them for 8 to 12 hours, turning them every 2 hours. Don't let them burn!"
    )
    reference = (
        "To dry figs, start by cutting them in half with a knife. Then, place the figs on an oven-safe "
        "rack with ventilation holes so the cut sides are facing up. Next, set your oven to the lowest "
        "temperature and leave the figs in for 8-12 hours."
    )
    _assert_equal_to_reference(prediction, reference, rouge.score(prediction, reference))


# --------------------------------------------------------------------------- the batch API


def test_score_pairs_returns_one_score_per_pair_in_order():
    predictions = ["testing", "testing one", ""]
    references = ["testing one two"] * 3
    results = rouge.score_pairs(predictions, references, workers=1)
    assert [r["rouge1"]["recall"] for r in results] == pytest.approx([1 / 3, 2 / 3, 0.0])
    assert set(results[0]) == set(rouge.ROUGE_TYPES)
    assert set(results[0]["rougeLsum"]) == set(FIELDS)


def test_score_pairs_in_worker_processes_equals_one_process(monkeypatch):
    import random

    monkeypatch.setattr(rouge, "PARALLEL_MIN_PAIRS", 10)
    monkeypatch.setattr(rouge, "_CHUNK", 16)
    rng = random.Random(7)
    sentences = [" ".join(rng.choices(WORDS, k=rng.randint(3, 20))) + "." for _ in range(80)]
    n = 64
    predictions = [" ".join(rng.choices(sentences, k=rng.randint(1, 4))) for _ in range(n)]
    references = [" ".join(rng.choices(sentences, k=rng.randint(1, 4))) for _ in range(n)]
    assert rouge.score_pairs(predictions, references, workers=2) == rouge.score_pairs(
        predictions, references, workers=1
    )


def test_workers_fork_only_when_no_torch_threads_could_be_copied(monkeypatch):
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert rouge._context().get_start_method() == "fork"
    monkeypatch.setitem(sys.modules, "torch", object())
    assert rouge._context().get_start_method() == "spawn"


def test_score_pairs_rejects_unequal_lengths():
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        rouge.score_pairs(["a", "b"], ["a"])
