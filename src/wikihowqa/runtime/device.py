"""Which device a neural step runs on, in what precision, with how large batches: ``--device auto|cpu|cuda``.

One rule for every neural step (sentence-transformers encoders, BERTScore, grounding, seq2seq training and
generation, the local LLM backend): ``auto`` is a CUDA GPU when torch sees one, else the CPU — so on a
CPU-only machine ``auto`` behaves as the stages always did. Precision on CUDA is chosen per kind of work:

- *retrieval* encoders run in float16 (``benchmarks/gpu.py`` checks that passage vectors keep a cosine
  above 0.999 to their float32 versions, far inside the gaps that decide a ranking);
- *generation* and training run in bfloat16 where the GPU has it (float16 otherwise);
- *metrics* (BERTScore, grounding) stay in float32, so that a score is the same number on any machine.

Batch sizes on CUDA grow with the free memory (:func:`batch_size`); on the CPU they are the stage's own.
"""

from __future__ import annotations

from typing import Any

from wikihowqa.core.errors import SettingsError

DEVICES = ("auto", "cpu", "cuda")
#: Kinds of work and their precision on CUDA (float32 everywhere on the CPU).
PRECISION = {"retrieval": "float16", "generation": "bfloat16", "metric": "float32"}


def check_device(setting: str | None) -> str:
    """``setting`` as given (``None``: ``auto``), refused with one line unless auto, cpu, cuda or cuda:N."""
    value = (setting or "auto").strip().lower()
    if value in DEVICES or (value.startswith("cuda:") and value[5:].isdigit()):
        return value
    raise SettingsError(f"--device {setting!r}: expected auto, cpu or cuda (cuda:N for one GPU)")


def cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def resolve_device(setting: str | None = "auto") -> str:
    """The device to load a model on here: ``auto`` → ``cuda`` when torch sees a GPU, else ``cpu``."""
    value = check_device(setting)
    if value == "auto":
        return "cuda" if cuda_available() else "cpu"
    if value.startswith("cuda") and not cuda_available():
        raise SettingsError(f"--device {value}: torch sees no CUDA GPU on this machine (use auto or cpu)")
    return value


def dtype_for(device: str, work: str) -> Any:
    """The torch dtype of ``work`` (retrieval, generation, metric) on ``device`` (a resolved device)."""
    import torch

    if not device.startswith("cuda"):
        return torch.float32
    wanted = PRECISION[work]
    if wanted == "bfloat16" and not torch.cuda.is_bf16_supported():
        wanted = "float16"
    return getattr(torch, wanted)


def batch_size(device: str, default: int, *, item_mb: float, ceiling: int = 4096) -> int:
    """``default`` on the CPU; on CUDA as many items as half the free memory holds (``item_mb`` each),
    never fewer than ``default`` nor more than ``ceiling``."""
    if not device.startswith("cuda"):
        return default
    import torch

    free, _ = torch.cuda.mem_get_info(torch.device(device))
    fits = int(free / 2 / (item_mb * 2**20))
    return max(default, min(ceiling, fits))


def ray_gpus(setting: str | None, cluster_gpus: float) -> float:
    """GPUs a Ray worker asks for: ``cuda`` one; ``auto`` one when the cluster has any; ``cpu`` none."""
    value = check_device(setting)
    if value == "cpu":
        return 0.0
    if value == "auto":
        return 1.0 if cluster_gpus > 0 else 0.0
    return 1.0
