"""``--device auto|cpu|cuda``: decided without a GPU (torch.cuda is faked where a GPU is needed)."""

from __future__ import annotations

import pytest
import torch

from wikihowqa.core.errors import SettingsError
from wikihowqa.runtime.device import batch_size, check_device, dtype_for, ray_gpus, resolve_device


@pytest.fixture
def gpu(monkeypatch):
    """``gpu(bf16=True, free_gib=...)``: pretend to have a CUDA GPU; ``gpu(None)``: none."""

    def install(bf16: bool | None = True, free_gib: float = 40.0) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: bf16 is not None)
        monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bool(bf16))
        monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (int(free_gib * 2**30), 80 * 2**30))

    return install


def test_auto_is_the_gpu_when_there_is_one_else_the_cpu(gpu):
    gpu(None)
    assert resolve_device("auto") == resolve_device(None) == "cpu"
    assert resolve_device("cpu") == "cpu"
    gpu(True)
    assert resolve_device("auto") == "cuda" and resolve_device("cuda:1") == "cuda:1"
    assert resolve_device("cpu") == "cpu"  # asked for: the GPU stays unused


def test_cuda_without_a_gpu_and_unknown_devices_are_one_line_errors(gpu):
    gpu(None)
    with pytest.raises(SettingsError, match="torch sees no CUDA GPU"):
        resolve_device("cuda")
    for wrong in ("gpu", "cuda:x", "tpu"):
        with pytest.raises(SettingsError, match="expected auto, cpu or cuda"):
            check_device(wrong)
    assert check_device(" CUDA ") == "cuda"


def test_precision_per_kind_of_work(gpu):
    gpu(True)
    assert dtype_for("cuda", "retrieval") is torch.float16
    assert dtype_for("cuda", "generation") is torch.bfloat16
    assert dtype_for("cuda", "metric") is torch.float32  # scores are the same numbers on any machine
    gpu(False)  # an older GPU without bf16
    assert dtype_for("cuda", "generation") is torch.float16
    for work in ("retrieval", "generation", "metric"):
        assert dtype_for("cpu", work) is torch.float32


def test_batch_sizes_grow_with_free_gpu_memory_and_stay_put_on_the_cpu(gpu):
    assert batch_size("cpu", 64, item_mb=4) == 64
    gpu(True, free_gib=8.0)
    assert batch_size("cuda", 64, item_mb=4) == 1024  # half of 8 GiB in 4 MiB items
    gpu(True, free_gib=0.1)
    assert batch_size("cuda", 64, item_mb=4) == 64  # never below the stage's own
    gpu(True, free_gib=1000.0)
    assert batch_size("cuda", 64, item_mb=4, ceiling=4096) == 4096


def test_ray_workers_ask_for_a_gpu_only_where_the_cluster_has_one():
    assert ray_gpus("cpu", 8) == 0
    assert ray_gpus("auto", 0) == 0 and ray_gpus("auto", 2) == 1
    assert ray_gpus("cuda", 0) == 1  # and the executor refuses it with one line


def test_generators_follow_the_device_setting(gpu):
    from wikihowqa.generate.seq2seq import GeneratorConfig, best_device, training_arguments

    gpu(None)
    assert best_device("auto") == ("cpu", torch.float32)
    gpu(True)
    assert best_device("auto") == ("cuda", torch.bfloat16)
    assert best_device("cpu") == ("cpu", torch.float32)
    args = training_arguments(GeneratorConfig(), evaluate=False, device="cpu")
    assert args["use_cpu"] is True and args["bf16"] is False  # --device cpu on a GPU machine
    args = training_arguments(GeneratorConfig(), evaluate=False, device="auto")
    assert args["use_cpu"] is False and args["bf16"] is True
