"""Grounding finds the passage a sentence comes from and scores factual changes to it lower."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from wikihowqa.core.records import Passage
from wikihowqa.evaluate.grounding import GroundingConfig, GroundingScorer, negated, sentences_of

PASSAGES = [
    Passage(1, 0, 0, "Figs dry well in an oven. Set the oven to 60 degrees and leave the figs for 12 hours."),
    Passage(1, 0, 1, "Fresh figs spoil within three days, so keep them cold in the refrigerator."),
    Passage(1, 1, 0, "A concrete floor needs an epoxy sealer when cars park on it."),
]


class BagOfWords:
    """A deterministic stand-in for the sentence encoder: unit-length hashed word counts."""

    def encode(self, texts, **_kwargs):
        vectors = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                vectors[row, hash(word.strip(".,")) % 64] += 1.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)


@pytest.fixture(scope="module")
def minilm() -> GroundingScorer:
    import torch

    torch.set_num_threads(1)
    return GroundingScorer(GroundingConfig())


def test_best_passage_is_the_one_the_sentence_comes_from(minilm):
    result = minilm.score("Set the oven to 60 degrees and leave the figs for 12 hours.", PASSAGES)
    (sentence,) = result.sentences
    assert sentence.passages[0].passage_id == "1:0:0"
    assert sentence.supported and result.supported_share == 1.0
    assert len(sentence.passages) == 3 and sentence.passages[0].score >= sentence.passages[1].score


@pytest.mark.parametrize(
    "deteriorated",
    [
        "Set the oven to 90 degrees and leave the figs for 12 hours.",  # number swap
        "Do not set the oven to 60 degrees and leave the figs for 12 hours.",  # negation
        "Set the oven to 60 degrees and leave the fish for 12 hours.",  # entity swap
    ],
)
def test_a_factual_change_lowers_support(minilm, deteriorated):
    original = minilm.score("Set the oven to 60 degrees and leave the figs for 12 hours.", PASSAGES)
    worse = minilm.score(deteriorated, PASSAGES)
    assert worse.mean_support < original.mean_support


def test_an_off_topic_sentence_is_not_supported(minilm):
    result = minilm.score("Figs dry well in an oven. Paint the fence with two coats of varnish.", PASSAGES)
    assert [s.supported for s in result.sentences] == [True, False]
    assert result.supported_share == 0.5
    assert result.mean_support == pytest.approx(np.mean([s.support for s in result.sentences]))


def test_empty_answer_or_no_passages_scores_zero():
    scorer = GroundingScorer(encoder=BagOfWords())
    assert scorer.score("", PASSAGES).mean_support == 0.0
    result = scorer.score("Figs dry well.", [])
    assert (result.supported_share, result.mean_support, len(result.sentences)) == (0.0, 0.0, 1)


def test_lexical_precision_weights_words_by_idf_over_the_question_passages():
    passages = [Passage(1, 0, 0, "figs oven"), Passage(1, 0, 1, "figs")]
    config = GroundingConfig(dense_weight=0.0, align=False, checks=(), top_k=1)
    result = GroundingScorer(config, encoder=BagOfWords()).score("figs oven sun", passages)
    # idf = ln((n+1)/(df+1)) + 1 with n = 2: figs df 2, oven df 1, sun df 0 (unseen)
    idf = {"figs": math.log(3 / 3) + 1, "oven": math.log(3 / 2) + 1, "sun": math.log(3 / 1) + 1}
    words = (idf["figs"] + idf["oven"]) / sum(idf.values())
    bigrams = 1 / 2  # "figs oven" is in passage 0, "oven sun" is not
    assert result.sentences[0].support == pytest.approx((words + bigrams) / 2)
    assert result.sentences[0].passages[0].passage_id == "1:0:0"


ALIGN_PASSAGES = [
    Passage(1, 0, 0, "Sun-dried figs take days. Ovens dry figs faster."),
    Passage(1, 0, 1, "Store figs cold."),
]


def test_each_clause_is_scored_against_its_aligned_passage_sentence():
    config = GroundingConfig(dense_weight=0.0, checks=())
    result = GroundingScorer(config, encoder=BagOfWords()).score(
        "Ovens dry figs slowly, and store figs cold.", ALIGN_PASSAGES
    )
    # idf over the 2 passages: figs in both, dry/ovens/store/cold in one, slowly in none
    one, rare, unseen = 1.0, math.log(3 / 2) + 1, math.log(3) + 1
    # clause 1 aligns to "Ovens dry figs faster." (ovens, dry, figs: the largest weighted overlap)
    mass1 = 2 * rare + one + unseen
    p1 = ((2 * rare + one) / mass1 + 2 / 3) / 2  # bigrams: "ovens dry", "dry figs" of 3
    # clause 2 aligns to "Store figs cold.": every word; bigrams "store figs", "figs cold" of 3 (with "and")
    mass2 = 2 * rare + one
    p2 = (1.0 + 2 / 3) / 2
    (sentence,) = result.sentences
    assert sentence.support == pytest.approx((mass1 * p1 + mass2 * p2) / (mass1 + mass2))
    assert [e.sentence for e in sentence.evidence] == ["Ovens dry figs faster.", "Store figs cold."]
    assert [e.passage_id for e in sentence.evidence] == ["1:0:0", "1:0:1"]
    assert sentence.evidence[1].precision == pytest.approx(p2)


def test_a_word_found_elsewhere_in_the_passage_does_not_count_as_support():
    config = GroundingConfig(dense_weight=0.0, checks=())
    scorer = GroundingScorer(config, encoder=BagOfWords())
    # "sun" is in the passage, but not in the sentence the clause paraphrases
    aligned = scorer.score("Ovens dry figs in the sun.", ALIGN_PASSAGES).mean_support
    whole = scorer.with_config(GroundingConfig(dense_weight=0.0, checks=(), align=False))
    assert aligned < whole.score("Ovens dry figs in the sun.", ALIGN_PASSAGES).mean_support


NEGATION_PASSAGES = [
    Passage(
        1,
        0,
        0,
        "Rinse the paper filter with hot water. Don't pour water onto the filter paper, because it tears.",
    )
]


@pytest.mark.parametrize(
    ("answer", "clash"),
    [
        ("Rinse the paper filter with hot water.", False),
        ("Do not rinse the paper filter with hot water.", True),  # negation the passage lacks
        ("Pour water onto the filter paper.", True),  # the passage's negation dropped
        ("Never pour water onto the filter paper.", False),  # another cue, the same polarity
    ],
)
def test_negation_check_compares_what_each_cue_negates(answer, clash):
    scorer = GroundingScorer(GroundingConfig(), encoder=BagOfWords())
    (sentence,) = scorer.score(answer, NEGATION_PASSAGES).sentences
    assert ("negation" in sentence.evidence[0].clashes) is clash


def test_a_negation_about_something_else_is_no_clash():
    passages = [Passage(1, 0, 0, "Rinse the filter with hot water, but do not use soap.")]
    scorer = GroundingScorer(GroundingConfig(), encoder=BagOfWords())
    assert scorer.score("Rinse the filter with hot water.", passages).sentences[0].evidence[0].clashes == ()


def test_each_failed_check_costs_the_penalty_share_of_support():
    checked = GroundingScorer(GroundingConfig(penalty=0.75), encoder=BagOfWords())
    unchecked = checked.with_config(GroundingConfig(checks=()))
    answer = "Do not rinse the paper filter with hot water."
    assert checked.score(answer, NEGATION_PASSAGES).mean_support == pytest.approx(
        0.25 * unchecked.score(answer, NEGATION_PASSAGES).mean_support
    )
    agreeing = "Rinse the paper filter with hot water."
    assert (
        checked.score(agreeing, NEGATION_PASSAGES).mean_support
        == unchecked.score(agreeing, NEGATION_PASSAGES).mean_support
    )


@pytest.mark.parametrize(
    ("answer", "clashes"),
    [
        ("Wait 15 minutes.", ()),
        ("Wait 30 minutes.", ("quantity 30 minutes",)),  # another amount of the same unit
        ("Wait 15 hours.", ("quantity 15 hours",)),  # the same amount of another unit
        ("Wait a few minutes.", ()),
    ],
)
def test_quantity_check_finds_another_amount_or_unit(answer, clashes):
    passages = [Passage(1, 0, 0, "Wait 15 minutes, then flush with hot water.")]
    scorer = GroundingScorer(GroundingConfig(), encoder=BagOfWords())
    assert scorer.score(answer, passages).sentences[0].evidence[0].clashes == clashes


def test_a_number_the_passage_does_not_give_is_unsupported_not_contradicted():
    passages = [Passage(1, 0, 0, "Let the figs dry in the oven with the door propped open.")]
    scorer = GroundingScorer(GroundingConfig(), encoder=BagOfWords())
    result = scorer.score("Let the figs dry in the oven with the door propped open for 36 hours.", passages)
    assert all(not e.clashes for e in result.sentences[0].evidence)


STEP_PASSAGES = [
    Passage(1, 0, 0, "Wash the figs in cold water."),
    Passage(1, 0, 1, "Cut the figs in half."),
    Passage(1, 0, 2, "Dry the halves in the oven."),
]


def _order_clashes(answer: str) -> list[str]:
    scorer = GroundingScorer(GroundingConfig(), encoder=BagOfWords())
    return [c for s in scorer.score(answer, STEP_PASSAGES).sentences for e in s.evidence for c in e.clashes]


def test_steps_in_the_source_order_pass_the_order_check():
    answer = (
        "First, wash the figs in cold water. Then, cut the figs in half. Finally, dry the halves in the oven."
    )
    assert _order_clashes(answer) == []


def test_first_and_finally_swapped_fail_the_order_check():
    answer = (
        "Finally, wash the figs in cold water. Then, cut the figs in half. First, dry the halves in the oven."
    )
    assert _order_clashes(answer) == ["order (late)", "order (early)"]


def test_a_step_said_to_follow_one_that_comes_after_it_fails():
    answer = "Cut the figs in half. Then, wash the figs in cold water."
    assert _order_clashes(answer) == ["order (follows)"]


def test_steps_from_different_documents_are_not_ordered():
    passages = [Passage(1, 0, 0, "Cut the figs in half."), Passage(1, 1, 0, "Wash the figs in cold water.")]
    scorer = GroundingScorer(GroundingConfig(), encoder=BagOfWords())
    result = scorer.score("Wash the figs in cold water. Finally, cut the figs in half.", passages)
    assert all(not e.clashes for s in result.sentences for e in s.evidence)


def test_unknown_checks_and_penalties_out_of_range_are_rejected():
    with pytest.raises(ValueError, match="unknown check"):
        GroundingScorer(GroundingConfig(checks=("spelling",)), encoder=BagOfWords())
    with pytest.raises(ValueError, match="penalty"):
        GroundingScorer(GroundingConfig(penalty=1.5), encoder=BagOfWords())


def test_negation_cues():
    assert negated("Don't overheat it.") and negated("It is not hot.") and negated("Use no oil.")
    assert not negated("Note the knots in the wood.")


class FakeNLI:
    """Stands in for a sentence-transformers CrossEncoder with an NLI head."""

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []
        labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
        self.model = SimpleNamespace(config=SimpleNamespace(id2label=labels))

    def predict(self, pairs, **_kwargs):
        self.pairs.extend(pairs)
        return np.array(
            [[0.0, np.log(3.0), 0.0] if "oven" in premise else [0.0, 0.0, 0.0] for premise, _ in pairs]
        )


def test_a_cross_encoder_rescores_the_top_passages_with_entailment_probability():
    scorer = GroundingScorer(GroundingConfig(cross_encoder="fake-nli", top_k=2), encoder=BagOfWords())
    scorer._cross = FakeNLI()
    result = scorer.score("Dry figs in the oven.", PASSAGES)
    assert len(scorer._cross.pairs) == 2  # only the top_k candidates are re-scored
    assert all(hypothesis == "Dry figs in the oven." for _, hypothesis in scorer._cross.pairs)
    best = result.sentences[0].passages[0]
    assert best.passage_id == "1:0:0" and best.score == pytest.approx(3 / 5)  # softmax of (0, ln 3, 0)


def test_sentences_are_split_offline():
    text = "Cut the figs in half. Dry them for 12 hours!  "
    assert sentences_of(text) == ["Cut the figs in half.", "Dry them for 12 hours!"]


def test_a_cross_encoder_given_by_path_is_loaded_and_its_entailment_probability_is_the_support(tmp_path):
    """--grounding-cross-encoder with a real model (a tiny NLI classifier built from a config and saved
    where a user's model would be): sentence-transformers loads it by name, offline, and each top
    passage's score is the model's own entailment probability for (passage, sentence)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from tests.generate.tiny_models import tiny_nli

    sentence = "Set the oven to 60 degrees and leave the figs for 12 hours."
    path = tiny_nli(tmp_path / "nli", [p.text for p in PASSAGES] + [sentence])
    config = GroundingConfig(cross_encoder=str(path), top_k=2, device="cpu")
    result = GroundingScorer(config, encoder=BagOfWords()).score(sentence, PASSAGES)

    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    text = {p.id: p.text for p in PASSAGES}
    (grounded,) = result.sentences
    assert len(grounded.passages) == 2
    for passage in grounded.passages:
        with torch.no_grad():
            logits = model(**tokenizer(text[passage.passage_id], sentence, return_tensors="pt")).logits
        expected = torch.softmax(logits, dim=-1)[0, model.config.label2id["entailment"]].item()
        assert passage.score == pytest.approx(expected, abs=1e-5)
    assert grounded.support == grounded.passages[0].score == max(p.score for p in grounded.passages)


@pytest.mark.parametrize("name", ["no-such-owner/no-such-cross-encoder", "missing-folder"])
def test_a_cross_encoder_that_cannot_be_loaded_is_one_line_naming_the_option(name, tmp_path):
    from wikihowqa.core.errors import SettingsError

    name = str(tmp_path / name) if name == "missing-folder" else name
    scorer = GroundingScorer(GroundingConfig(cross_encoder=name, device="cpu"), encoder=BagOfWords())
    with pytest.raises(SettingsError, match=r"\(--grounding-cross-encoder\): cannot load it \(") as raised:
        scorer.score("Dry figs in the oven.", PASSAGES)
    assert repr(name) in str(raised.value) and "\n" not in str(raised.value)
