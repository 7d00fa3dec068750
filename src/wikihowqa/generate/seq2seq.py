"""The fine-tuned generator (the paper's BART-large row): train on the train split, then generate.

Any Hugging Face model by name or path works: an encoder-decoder (BART, T5: the input builder's string is
the encoder input, the answer the target) or a decoder-only LM (Llama, SmolLM2: the model reads the input
string, ``answer_prefix``, then learns to write the answer; only answer tokens carry loss). Training runs
through ``transformers.Trainer`` — checkpoints every ``save_steps``, resumes from the last checkpoint,
bf16 on a CUDA GPU that supports it. Every setting lives in one YAML/TOML file (:class:`GeneratorConfig`);
the trained model is saved with the settings that shaped its inputs, so generation rebuilds them exactly.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from wikihowqa.errors import SettingsError
from wikihowqa.generate.context import InputFormat, ModelInput, build_input, hf_token_counter
from wikihowqa.retrieve import Ranked, Retriever

#: Written next to a trained model: the settings its inputs were built with.
GENERATOR_SETTINGS_FILE = "wikihowqa-generator.json"
ARCHITECTURES = ("auto", "seq2seq", "causal")


def _from_mapping(cls: type, values: dict[str, Any] | None, section: str) -> Any:
    values = dict(values or {})
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        where = f" in [{section}]" if section else ""
        raise SettingsError(
            f"unknown setting(s){where}: {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    return cls(**values)


@dataclass(frozen=True)
class TrainSettings:
    epochs: float = 3.0
    max_steps: int = -1  # overrides epochs when > 0
    batch_size: int = 4
    grad_accum: int = 8
    learning_rate: float = 3e-5
    warmup: float = 0.06  # a fraction of the steps (< 1) or a number of steps
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    save_steps: int = 500
    save_total_limit: int = 2
    logging_steps: int = 50
    seed: int = 42
    bf16: str | bool = "auto"  # auto: on a CUDA GPU that supports it
    gradient_checkpointing: bool = False
    evaluate: bool = True  # validation loss at each save, when the dataset has a validation split
    max_examples: int | None = None  # cap on training examples (smoke runs)


@dataclass(frozen=True)
class GenerateSettings:
    num_beams: int = 4
    max_new_tokens: int = 256
    min_new_tokens: int = 0
    no_repeat_ngram_size: int = 3
    length_penalty: float = 1.0
    repetition_penalty: float = 1.0
    early_stopping: bool = True
    batch_size: int = 8


@dataclass(frozen=True)
class GeneratorConfig:
    """Everything about the generator; ``GeneratorConfig.from_settings(read_settings(file))``."""

    model: str = "facebook/bart-large"
    gguf_file: str | None = None
    tokenizer: str | None = None  # defaults to ``model``
    architecture: str = "auto"
    output_dir: str = "runs/generator"
    max_input_tokens: int | None = None  # default: the model's maximum input length
    max_answer_tokens: int = 256
    answer_prefix: str = "\nAnswer: "  # decoder-only models: between the input and the answer
    retriever: dict[str, Any] = field(default_factory=lambda: {"name": "bm25"})
    retrieval_mode: str = "supporting"
    input: InputFormat = field(default_factory=InputFormat)
    train: TrainSettings = TrainSettings()
    generate: GenerateSettings = GenerateSettings()

    @classmethod
    def from_settings(cls, settings: dict[str, Any] | None) -> GeneratorConfig:
        settings = dict(settings or {})
        nested = {
            "input": InputFormat.from_settings(settings.pop("input", None)),
            "train": _from_mapping(TrainSettings, settings.pop("train", None), "train"),
            "generate": _from_mapping(GenerateSettings, settings.pop("generate", None), "generate"),
        }
        config = _from_mapping(cls, settings, "")
        config = dataclasses.replace(config, **nested)
        if config.architecture not in ARCHITECTURES:
            raise SettingsError(f"architecture must be one of {', '.join(ARCHITECTURES)}")
        return config

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def saved_settings(model_path: str | Path) -> dict[str, Any]:
    """Settings stored next to a model trained here (empty for any other model)."""
    path = Path(model_path) / GENERATOR_SETTINGS_FILE
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def best_device(setting: str | None = None) -> tuple[str, Any]:
    """Where and in what precision a generator runs (``--device``, ``wikihowqa.device``): on CUDA bfloat16
    where the GPU has it, else float16; on the CPU float32. ``auto``/``None``: CUDA when there is a GPU."""
    from wikihowqa.device import dtype_for, resolve_device

    device = resolve_device(setting)
    return device, dtype_for(device, "generation")


@dataclass(frozen=True)
class GeneratorModel:
    """A generator as a model spec (``wikihowqa.executor``): its settings as JSON (hashable), the model loaded
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

        settings = dataclasses.replace(self.config.generate, **overrides)
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


# --------------------------------------------------------------------------- training


class Collator:
    """Pads a batch: inputs with the pad token, labels with -100 (ignored by the loss)."""

    def __init__(self, pad_token_id: int) -> None:
        self.pad_token_id = pad_token_id

    def __call__(self, rows: list[dict[str, list[int]]]) -> dict[str, Any]:
        import torch

        width = max(len(r["input_ids"]) for r in rows)
        label_width = max(len(r["labels"]) for r in rows)
        ids = [r["input_ids"] + [self.pad_token_id] * (width - len(r["input_ids"])) for r in rows]
        mask = [[1] * len(r["input_ids"]) + [0] * (width - len(r["input_ids"])) for r in rows]
        labels = [r["labels"] + [-100] * (label_width - len(r["labels"])) for r in rows]
        return {
            "input_ids": torch.tensor(ids),
            "attention_mask": torch.tensor(mask),
            "labels": torch.tensor(labels),
        }


def use_bf16(setting: str | bool) -> bool:
    import torch

    available = torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    if setting == "auto":
        return available
    if setting and not available:
        raise SettingsError("train.bf16 is on but no CUDA GPU with bf16 support is available")
    return bool(setting)


def last_checkpoint(output_dir: Path) -> Path | None:
    from transformers.trainer_utils import get_last_checkpoint

    if not output_dir.is_dir():
        return None
    found = get_last_checkpoint(str(output_dir))
    return Path(found) if found else None


@dataclass(frozen=True)
class TrainResult:
    final_dir: Path
    resumed_from: Path | None
    global_step: int
    train_loss: float | None
    n_train: int
    n_validation: int


def training_arguments(
    config: GeneratorConfig, *, evaluate: bool, device: str | None = None
) -> dict[str, Any]:
    """Keyword arguments of the run's ``TrainingArguments``: bf16 when ``train.bf16`` says so (``auto``: on a
    CUDA GPU that supports it), the CPU when ``device`` (``--device``) says so or there is no CUDA GPU."""
    from wikihowqa.device import resolve_device

    on_cpu = resolve_device(device) == "cpu"
    t = config.train
    args: dict[str, Any] = {
        "output_dir": str(config.output_dir),
        "per_device_train_batch_size": t.batch_size,
        "per_device_eval_batch_size": t.batch_size,
        "gradient_accumulation_steps": t.grad_accum,
        "num_train_epochs": t.epochs,
        "max_steps": t.max_steps,
        "learning_rate": t.learning_rate,
        "weight_decay": t.weight_decay,
        "max_grad_norm": t.max_grad_norm,
        "save_strategy": "steps",
        "save_steps": t.save_steps,
        "save_total_limit": t.save_total_limit,
        "logging_steps": t.logging_steps,
        "seed": t.seed,
        "bf16": False if on_cpu and t.bf16 == "auto" else use_bf16(t.bf16),
        "eval_strategy": "steps" if evaluate else "no",
        "eval_steps": t.save_steps if evaluate else None,
        "report_to": "none",
        "remove_unused_columns": False,
        "disable_tqdm": True,
        "use_cpu": on_cpu,
    }
    _set_warmup(args, t.warmup)
    if t.gradient_checkpointing:  # renamed activation_checkpointing in transformers 5
        args[_supported("activation_checkpointing", "gradient_checkpointing")] = True
    return args


def train(
    config: GeneratorConfig,
    train_pairs: Iterable[tuple[str, str]],
    validation_pairs: Iterable[tuple[str, str]] = (),
    *,
    generator: Generator | None = None,
    resume: bool = True,
    log: Callable[[str], None] = lambda _: None,
    callbacks: Sequence[Any] = (),
    device: str | None = None,
) -> TrainResult:
    """Fine-tune on (built input, gold answer) pairs; resumes from the last checkpoint in ``output_dir``.

    ``callbacks``: ``transformers.TrainerCallback`` objects (``benchmarks/train_gpu.py`` times steps thus).
    """
    from transformers import Trainer, TrainingArguments

    generator = generator or Generator.load(config, device="cpu")  # Trainer moves it to the GPU itself
    train_rows = [generator.features(text, answer) for text, answer in train_pairs]
    eval_rows = (
        [generator.features(text, answer) for text, answer in validation_pairs]
        if config.train.evaluate
        else []
    )
    if not train_rows:
        raise SettingsError("no training examples: the dataset has no train split")
    output_dir = Path(config.output_dir)
    args = training_arguments(config, evaluate=bool(eval_rows), device=device)
    bf16 = bool(args["bf16"])
    resumed_from = last_checkpoint(output_dir) if resume else None
    trainer = Trainer(
        model=generator.model,
        args=TrainingArguments(**args),
        train_dataset=train_rows,  # a list is a map-style dataset
        eval_dataset=eval_rows or None,
        data_collator=Collator(generator.tokenizer.pad_token_id),
        callbacks=list(callbacks) or None,
    )
    log(
        f"training on {len(train_rows)} examples"
        + (f", resuming from {resumed_from}" if resumed_from else "")
    )
    output = trainer.train(resume_from_checkpoint=str(resumed_from) if resumed_from else None)
    final_dir = output_dir / "final"
    generator.model = trainer.model
    generator.save(final_dir)
    loss = output.training_loss if math.isfinite(output.training_loss) else None
    summary = {
        "global_step": output.global_step,
        "train_loss": loss,
        "n_train": len(train_rows),
        "n_validation": len(eval_rows),
        "bf16": bf16,
        "resumed_from": str(resumed_from) if resumed_from else None,
    }
    (output_dir / "train-summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return TrainResult(final_dir, resumed_from, output.global_step, loss, len(train_rows), len(eval_rows))


def _supported(*names: str) -> str:
    """The first of ``names`` that this version's ``TrainingArguments`` accepts."""
    import inspect

    from transformers import TrainingArguments

    parameters = inspect.signature(TrainingArguments.__init__).parameters
    return next((n for n in names if n in parameters), names[-1])


def _set_warmup(args: dict[str, Any], warmup: float) -> None:
    """transformers 5 takes a ratio in ``warmup_steps``; 4.x has a separate ``warmup_ratio``."""
    import inspect

    from transformers import TrainingArguments

    if warmup < 1 and "warmup_ratio" in inspect.signature(TrainingArguments.__init__).parameters:
        args["warmup_ratio"] = float(warmup)
    else:
        args["warmup_steps"] = float(warmup) if warmup < 1 else int(warmup)


def input_retrieval(config: GeneratorConfig, dataset: Path) -> tuple[Retriever, str]:
    """The retriever and mode whose rankings feed the generator's inputs, in training and answering alike.

    Both come from the generator's settings (``retriever``, ``retrieval_mode``) — saved with a trained model —
    so a model is answered with inputs built as the ones it was trained on.
    """
    from wikihowqa.retrieve import MODES, dataset_retriever

    if config.retrieval_mode not in MODES:
        raise SettingsError(
            f"generator.retrieval_mode {config.retrieval_mode!r}: expected {' or '.join(MODES)}"
        )
    options = dict(config.retriever)
    return dataset_retriever(str(options.pop("name", "bm25")), options, dataset), config.retrieval_mode


def fine_tune(
    dataset: Any,
    config: GeneratorConfig,
    *,
    resume: bool = True,
    log: Callable[[str], None] = lambda _: None,
    device: str | None = None,
) -> TrainResult:
    """Train the generator on a dataset folder's train split (validation split for eval loss).

    Inputs are built exactly as at answer time: passages ranked by :func:`input_retrieval` (in open mode over
    every passage of the split), then the input builder with this model's tokenizer and length limit.
    """
    from wikihowqa.records import passages_of
    from wikihowqa.retrieve import rank_questions

    generator = Generator.load(config, device="cpu")
    retriever, mode = input_retrieval(config, Path(dataset.path))
    documents = dataset.documents_by_article()

    def pairs(split: str, limit: int | None) -> list[tuple[str, str]]:
        every = dataset.examples(split)
        examples = every[:limit] if limit else every
        if not examples:  # e.g. no validation split: nothing to rank (an open pool would be empty)
            return []
        questions = [(e.question, passages_of(documents.get(e.article_id, []))) for e in examples]
        pool = (
            [p for e in every for p in passages_of(documents.get(e.article_id, []))] if mode == "open" else ()
        )
        rankings = rank_questions(retriever, questions, mode=mode, pool=pool)
        return [
            (generator.build(e.question, r).text, e.answer) for e, r in zip(examples, rankings, strict=True)
        ]

    log(f"building training inputs ({retriever.name} retrieval, {mode} mode)")
    train_pairs = pairs("train", config.train.max_examples)
    validation_pairs = pairs("validation", config.train.max_examples) if config.train.evaluate else []
    return train(
        config, train_pairs, validation_pairs, generator=generator, resume=resume, log=log, device=device
    )
