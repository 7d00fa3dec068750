"""DPR's question and context encoders, loaded by path: tiny ones built here, no download.

Random weights rank nothing, so the encoders are set by hand to a bag-of-words model: every token's
embedding is a fixed random vector, attention is uniform (zero query and key weights) and copies the
values through, so the [CLS] output DPR pools is the layer-normalised mean of the text's word vectors.
A question then scores highest against the passage sharing most of its words — what a trained DPR does
for a planted passage. The context tokenizer numbers the words differently from the question tokenizer
(its embedding rows follow), so each encoder only works with its own tokenizer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.retrieve.planted_passages import DISTRACTORS, QUESTION, RELEVANT, planted
from wikihowqa.core.errors import SettingsError
from wikihowqa.retrieve.factory import get_retriever
from wikihowqa.retrieve.ranking import rank

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
HIDDEN = 128


def _words() -> list[str]:
    from tokenizers import pre_tokenizers

    split = pre_tokenizers.Whitespace().pre_tokenize_str
    texts = [QUESTION, RELEVANT, *DISTRACTORS]
    return sorted({word for text in texts for word, _ in split(text.lower())})


def _tokenizer(words: list[str]):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate([*SPECIALS, *words])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]"
    )


def _bag_of_words_dpr(cls, words: list[str], vectors: dict[str, np.ndarray], path: Path) -> Path:
    import torch
    from transformers import DPRConfig

    config = DPRConfig(
        vocab_size=len(SPECIALS) + len(words),
        hidden_size=HIDDEN,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=16,
        max_position_embeddings=128,
    )
    model = cls(config).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.zero_()  # no position or type embeddings, zero query/key (uniform attention), no FFN
        for name, parameter in model.named_parameters():
            if name.endswith("LayerNorm.weight"):
                parameter.fill_(1.0)
            elif name.endswith(("attention.self.value.weight", "attention.output.dense.weight")):
                parameter.copy_(torch.eye(HIDDEN))
            elif name.endswith("word_embeddings.weight"):
                for i, word in enumerate(words, start=len(SPECIALS)):  # specials stay zero
                    parameter[i] = torch.from_numpy(vectors[word])
    model.save_pretrained(path)
    _tokenizer(words).save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def dpr_paths(tmp_path_factory) -> tuple[str, str]:
    from transformers import DPRContextEncoder, DPRQuestionEncoder

    root = tmp_path_factory.mktemp("dpr")
    words = _words()
    rng = np.random.default_rng(0)
    vectors = {w: rng.standard_normal(HIDDEN).astype(np.float32) for w in words}
    question = _bag_of_words_dpr(DPRQuestionEncoder, words, vectors, root / "question")
    context = _bag_of_words_dpr(DPRContextEncoder, words[::-1], vectors, root / "context")
    return str(question), str(context)


@pytest.mark.parametrize("position", [0, 4, 9])
def test_dpr_encoders_loaded_by_path_rank_the_planted_passage_first(dpr_paths, position):
    question_model, context_model = dpr_paths
    retriever = get_retriever(
        "dense", question_model=question_model, context_model=context_model, device="cpu"
    )
    passages, relevant = planted(position)
    ranking = rank(retriever, QUESTION, passages)
    assert ranking[0].passage is passages[relevant]
    assert ranking[0].score > ranking[1].score
    assert retriever.settings() == {"retriever": "dense", "encoder": f"dpr:{question_model}|{context_model}"}


def test_each_dpr_encoder_reads_text_with_its_own_tokenizer(dpr_paths):
    """The two folders number words differently: the same text gets the same vector from both encoders
    only if each model reads it through the tokenizer saved with it."""
    from wikihowqa.retrieve.dense import DPREncoder

    question_model, context_model = dpr_paths

    right = DPREncoder(question_model, context_model, device="cpu")
    q, p = right.encode_questions([QUESTION]), right.encode_passages([RELEVANT, DISTRACTORS[0]])
    assert q.shape == (1, HIDDEN) and p.shape == (2, HIDDEN)
    assert (q @ p.T)[0, 0] > (q @ p.T)[0, 1]
    assert right.encode_passages([QUESTION])[0] == pytest.approx(q[0], abs=1e-4)


def test_missing_dpr_encoder_folders_are_a_user_error(dpr_paths, tmp_path):
    question_model, _ = dpr_paths
    with pytest.raises(SettingsError, match="cannot load DPR encoders"):
        get_retriever("dense", question_model=question_model, context_model=str(tmp_path / "nowhere"))
    with pytest.raises(SettingsError, match="both question_model and context_model"):
        get_retriever("dense", question_model=question_model)
