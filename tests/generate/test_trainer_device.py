"""Where the trainer runs and in what precision, decided without a GPU (torch.cuda is stubbed)."""

from __future__ import annotations

import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.generate.seq2seq import GeneratorConfig, training_arguments, use_bf16


@pytest.fixture
def gpu(monkeypatch):
    """Pretend to have a CUDA GPU; ``gpu(bf16=False)`` an older one without bf16, ``gpu(None)`` none."""
    import torch

    def install(bf16: bool | None = True) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: bf16 is not None)
        monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bool(bf16))

    return install


def test_auto_uses_bf16_on_a_cuda_gpu_that_supports_it(gpu):
    gpu(bf16=True)
    assert use_bf16("auto") is True
    assert use_bf16(True) is True
    assert use_bf16(False) is False  # switched off on purpose: fp32 even on the GPU


def test_auto_stays_in_fp32_without_bf16_support_and_without_cuda(gpu):
    for bf16 in (False, None):
        gpu(bf16=bf16)
        assert use_bf16("auto") is False
        assert use_bf16(False) is False
        with pytest.raises(SettingsError, match="no CUDA GPU with bf16"):
            use_bf16(True)


def test_training_arguments_on_cuda_ask_for_bf16_on_the_gpu(gpu, tmp_path):
    gpu(bf16=True)
    config = GeneratorConfig(output_dir=str(tmp_path))
    args = training_arguments(config, evaluate=False)
    assert args["bf16"] is True and args["use_cpu"] is False
    gpu(bf16=None)
    args = training_arguments(config, evaluate=False)
    assert args["bf16"] is False and args["use_cpu"] is True


def test_training_arguments_without_a_gpu_are_accepted_by_transformers(gpu, tmp_path):
    from transformers import TrainingArguments

    gpu(bf16=None)
    built = TrainingArguments(**training_arguments(GeneratorConfig(output_dir=str(tmp_path)), evaluate=True))
    assert built.bf16 is False and built.use_cpu is True and built.eval_strategy == "steps"
