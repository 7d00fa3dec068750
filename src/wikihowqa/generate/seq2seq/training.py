"""Fine-tuning the generator with ``transformers.Trainer``: checkpoints every ``save_steps``, resumes from
the last one, bf16 on a CUDA GPU that supports it; inputs built exactly as at answer time."""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import passages_of
from wikihowqa.generate.seq2seq.config import GeneratorConfig
from wikihowqa.generate.seq2seq.inference import Generator, input_retrieval
from wikihowqa.retrieve.factory import rank_questions
from wikihowqa.runtime.device import resolve_device


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
    from transformers import TrainingArguments

    parameters = inspect.signature(TrainingArguments.__init__).parameters
    return next((n for n in names if n in parameters), names[-1])


def _set_warmup(args: dict[str, Any], warmup: float) -> None:
    """transformers 5 takes a ratio in ``warmup_steps``; 4.x has a separate ``warmup_ratio``."""
    from transformers import TrainingArguments

    if warmup < 1 and "warmup_ratio" in inspect.signature(TrainingArguments.__init__).parameters:
        args["warmup_ratio"] = float(warmup)
    else:
        args["warmup_steps"] = float(warmup) if warmup < 1 else int(warmup)


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
