"""Loading a generator (any Hugging Face encoder-decoder or decoder-only model), building its inputs and
generating answers with beam search; the retrieval that feeds its inputs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import SettingsError
from wikihowqa.generate.context import ModelInput, build_input, hf_token_counter
from wikihowqa.generate.seq2seq.config import GENERATOR_SETTINGS_FILE, GeneratorConfig
from wikihowqa.retrieve.factory import dataset_retriever
from wikihowqa.retrieve.ranking import Ranked, Retriever
from wikihowqa.runtime.device import dtype_for, resolve_device


def best_device(setting: str | None = None) -> tuple[str, Any]:
    """Where and in what precision a generator runs (``--device``, ``wikihowqa.runtime.device``): on CUDA
    bfloat16
    where the GPU has it, else float16; on the CPU float32. ``auto``/``None``: CUDA when there is a GPU."""
    device = resolve_device(setting)
    return device, dtype_for(device, "generation")


@dataclass(frozen=True)
class GeneratorModel:
    """A generator as a model spec (``wikihowqa.runtime.executor``): its settings as JSON (hashable), the
    model loaded
    once per worker process on ``device`` (``--device``)."""

    settings: str
    device: str | None = None

    @classmethod
    def of(cls, config: GeneratorConfig, device: str | None = None) -> GeneratorModel:
        return cls(json.dumps(config.to_dict(), sort_keys=True), device)

    def build(self) -> Generator:
        return Generator.load(GeneratorConfig.from_settings(json.loads(self.settings)), device=self.device)


class Generator:
    """A loaded model and tokenizer that builds inputs and generates answers."""

    def __init__(self, model: Any, tokenizer: Any, config: GeneratorConfig, *, encoder_decoder: bool) -> None:
        self.model, self.tokenizer, self.config = model, tokenizer, config
        self.encoder_decoder = encoder_decoder
        if (
            tokenizer.pad_token_id is None
        ):  # decoder-only tokenizers often have none; EOS is the usual stand-in
            tokenizer.pad_token = tokenizer.eos_token
        self._count = hf_token_counter(tokenizer)

    # ------------------------------------------------------------------ loading

    @classmethod
    def load(
        cls, config: GeneratorConfig, *, model: str | None = None, device: str | None = None
    ) -> Generator:
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

        name = model or config.model
        gguf = {"gguf_file": config.gguf_file} if config.gguf_file else {}
        device, dtype = best_device(device)
        try:
            hf_config = AutoConfig.from_pretrained(name, **gguf)
            tokenizer = AutoTokenizer.from_pretrained(config.tokenizer or name, **gguf)
            encoder_decoder = _is_encoder_decoder(hf_config, config.architecture)
            auto = AutoModelForSeq2SeqLM if encoder_decoder else AutoModelForCausalLM
            loaded = auto.from_pretrained(name, dtype=dtype, **gguf)
        except OSError as exc:
            raise SettingsError(f"cannot load generator model {name!r}: {str(exc).splitlines()[0]}") from None
        if gguf:
            drop_gguf_quantization(loaded)
        return cls(loaded.to(device).eval(), tokenizer, config, encoder_decoder=encoder_decoder)

    # ------------------------------------------------------------------ inputs

    @property
    def max_input_tokens(self) -> int:
        if self.config.max_input_tokens:
            return self.config.max_input_tokens
        limit = _model_max_length(self.model.config, self.tokenizer)
        if self.encoder_decoder:
            return limit
        # a decoder-only model reads input and answer in one window
        return max(16, limit - self.config.generate.max_new_tokens)

    def count_tokens(self, text: str) -> int:
        """Tokens of the model input for ``text`` (for a decoder-only model, the answer prefix included)."""
        return self._count(text if self.encoder_decoder else text + self.config.answer_prefix)

    def build(self, question: str, ranking: Sequence[Ranked]) -> ModelInput:
        return build_input(question, ranking, self.count_tokens, self.max_input_tokens, self.config.input)

    # ------------------------------------------------------------------ training features

    def features(self, text: str, answer: str) -> dict[str, list[int]]:
        tok = self.tokenizer
        if self.encoder_decoder:
            source = tok(text, truncation=True, max_length=self.max_input_tokens)["input_ids"]
            target = tok(text_target=answer, truncation=True, max_length=self.config.max_answer_tokens)[
                "input_ids"
            ]
            return {"input_ids": source, "labels": target}
        prompt = tok(text + self.config.answer_prefix, truncation=True, max_length=self.max_input_tokens)[
            "input_ids"
        ]
        target = tok(answer, add_special_tokens=False)["input_ids"][: self.config.max_answer_tokens - 1]
        target = [*target, tok.eos_token_id]
        return {"input_ids": prompt + target, "labels": [-100] * len(prompt) + target}

    # ------------------------------------------------------------------ generation

    def generate(self, texts: Sequence[str], **overrides: Any) -> list[str]:
        """Answers for built input strings, in batches (beam search per ``config.generate``)."""
        import torch

        settings = self.config.generate.model_copy(update=overrides)
        kwargs = {
            "num_beams": settings.num_beams,
            "max_new_tokens": settings.max_new_tokens,
            "min_new_tokens": settings.min_new_tokens,
            "no_repeat_ngram_size": settings.no_repeat_ngram_size,
            "length_penalty": settings.length_penalty,
            "repetition_penalty": settings.repetition_penalty,
            "early_stopping": settings.early_stopping if settings.num_beams > 1 else False,
            "do_sample": False,
            "pad_token_id": self.tokenizer.pad_token_id,
        }
        tok = self.tokenizer
        answers: list[str] = []
        for start in range(0, len(texts), settings.batch_size):
            batch = list(texts[start : start + settings.batch_size])
            if not self.encoder_decoder:
                batch = [t + self.config.answer_prefix for t in batch]
                tok.padding_side = "left"  # generation continues after the last real token
            enc = tok(
                batch, return_tensors="pt", padding=True, truncation=True, max_length=self.max_input_tokens
            )
            enc = {k: v.to(self.model.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
            with torch.inference_mode():
                out = self.model.generate(**enc, **kwargs)
            if not self.encoder_decoder:
                out = out[:, enc["input_ids"].shape[1] :]
            answers.extend(t.strip() for t in tok.batch_decode(out, skip_special_tokens=True))
        return answers

    def save(self, path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(path)
        self.tokenizer.save_pretrained(path)
        settings = self.config.to_dict()
        settings.update(
            model=str(path),
            gguf_file=None,
            tokenizer=None,
            architecture="seq2seq" if self.encoder_decoder else "causal",
        )
        (path / GENERATOR_SETTINGS_FILE).write_text(json.dumps(settings, indent=2), encoding="utf-8")


def drop_gguf_quantization(model: Any) -> None:
    """Unflag a model loaded from a GGUF file as quantized: its weights are already dequantized floats.

    transformers keeps the GGUF "quantizer" on the model, so ``Trainer`` refuses to fine-tune it ("purely
    quantized models") and the saved model's config would still declare a GGUF quantization.
    """
    model.hf_quantizer = None
    model.is_quantized = False
    vars(model).pop("quantization_method", None)
    vars(model.config).pop("quantization_config", None)


def _is_encoder_decoder(hf_config: Any, architecture: str) -> bool:
    if architecture == "seq2seq":
        return True
    if architecture == "causal":
        return False
    return bool(getattr(hf_config, "is_encoder_decoder", False))


def _model_max_length(hf_config: Any, tokenizer: Any) -> int:
    for candidate in (
        getattr(hf_config, "max_position_embeddings", None),
        getattr(hf_config, "n_positions", None),
    ):
        if isinstance(candidate, int) and candidate > 0:
            return candidate
    limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(limit, int) and 0 < limit < 1_000_000:  # "no limit" is a huge sentinel value
        return limit
    return 1024


def input_retrieval(config: GeneratorConfig, dataset: Path) -> tuple[Retriever, str]:
    """The retriever and mode whose rankings feed the generator's inputs, in training and answering alike.

    Both come from the generator's settings (``retriever``, ``retrieval_mode``) — saved with a trained model —
    so a model is answered with inputs built as the ones it was trained on.
    """
    options = dict(config.retriever)
    return dataset_retriever(str(options.pop("name", "bm25")), options, dataset), config.retrieval_mode
