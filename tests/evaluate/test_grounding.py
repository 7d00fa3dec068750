"""Grounding finds the passage a sentence comes from and scores factual changes to it lower."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from wikihowqa.evaluate.grounding import GroundingConfig, GroundingScorer, negated, sentences_of
from wikihowqa.records import Passage

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
    config = GroundingConfig(dense_weight=0.0, polarity_penalty=0.0, top_k=1)
    result = GroundingScorer(config, encoder=BagOfWords()).score("figs oven sun", passages)
    # idf = ln((n+1)/(df+1)) + 1 with n = 2: figs df 2, oven df 1, sun df 0 (unseen)
    idf = {"figs": math.log(3 / 3) + 1, "oven": math.log(3 / 2) + 1, "sun": math.log(3 / 1) + 1}
    words = (idf["figs"] + idf["oven"]) / sum(idf.values())
    bigrams = 1 / 2  # "figs oven" is in passage 0, "oven sun" is not
    assert result.sentences[0].support == pytest.approx((words + bigrams) / 2)
    assert result.sentences[0].passages[0].passage_id == "1:0:0"


def test_negation_disagreeing_with_the_passage_costs_support():
    passages = [Passage(1, 0, 0, "Keep the figs in the refrigerator.")]
    with_penalty = GroundingScorer(GroundingConfig(polarity_penalty=0.5), encoder=BagOfWords())
    without = with_penalty.with_config(GroundingConfig(polarity_penalty=0.0))
    answer = "Never keep the figs in the refrigerator."
    assert with_penalty.score(answer, passages).mean_support == pytest.approx(
        0.5 * without.score(answer, passages).mean_support
    )
    agreeing = "Keep the figs in the refrigerator."
    assert (
        with_penalty.score(agreeing, passages).mean_support == without.score(agreeing, passages).mean_support
    )


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
