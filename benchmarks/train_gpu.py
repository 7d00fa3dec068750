"""Fine-tuning throughput of the generator at SmolLM2-135M size, on a CUDA GPU in bf16 (or the CPU).

Self-contained: no download, no dataset. The model is a randomly initialised Llama with SmolLM2-135M's shape
(hidden 576, 30 layers, 9 heads, 3 KV heads, intermediate 1536, vocabulary 49,152, tied embeddings); the data
are synthetic token sequences whose second half repeats the first, so the loss must fall if training works.
Two ways of training are timed on the same model, batch and sequences:

* ``loop`` (needs only torch and transformers): a hand-written loop doing what ``wikihowqa train`` asks of
  transformers' Trainer with ``bf16: auto`` — bf16 autocast over fp32 weights, fused AdamW, linear warm-up
  then decay, gradient clipping at 1.0 — plus a peer run in fp32 (TF32 off) for the bf16 speed-up;
* ``trainer``: the project's own trainer, ``wikihowqa.generate.seq2seq.train`` (transformers.Trainer with
  the settings of ``wikihowqa train``, ``bf16: auto``), on (input, answer) pairs of synthetic words through
  the project's feature builder (loss on the answer half) with a word-level tokenizer built here.

    python -m benchmarks.train_gpu                  # 300 steps, batch 16 × 1024 tokens, on CUDA, both ways
    python -m benchmarks.train_gpu --mode trainer   # only the project's trainer
    python -m benchmarks.train_gpu --steps 3        # smoke run (on a CPU it shrinks the batch; see output)
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import tempfile
import time
from pathlib import Path

import torch
from transformers import LlamaConfig, LlamaForCausalLM

SMOLLM2_135M = {
    "hidden_size": 576,
    "num_hidden_layers": 30,
    "num_attention_heads": 9,
    "num_key_value_heads": 3,
    "intermediate_size": 1536,
    "vocab_size": 49152,
    "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-5,
    "rope_theta": 100000.0,
    "tie_word_embeddings": True,
}


def result_row(
    precision: str,
    params: int,
    batch: int,
    seq_len: int,
    steps: int,
    timed: int,
    elapsed: float,
    peak: float,
    losses: list[float],
) -> dict:
    """One row of the table: throughput over the timed steps (the first ones warm up)."""
    return {
        "precision": precision,
        "params": params,
        "batch": batch,
        "seq_len": seq_len,
        "steps": steps,
        "timed_steps": timed,
        "seconds": elapsed,
        "steps_per_s": timed / elapsed,
        "tokens_per_s": timed * batch * seq_len / elapsed,
        "peak_gib": peak,
        "first_loss": losses[0] if losses else float("nan"),
        "last_loss": losses[-1] if losses else float("nan"),
    }


def batches(vocab: int, batch: int, seq_len: int, device: str, seed: int):
    """Endless synthetic batches: random first half, copied second half (learnable, so loss falls)."""
    gen = torch.Generator().manual_seed(seed)
    half = seq_len // 2
    while True:
        first = torch.randint(3, vocab, (batch, half), generator=gen)
        ids = torch.cat([first, first, first[:, : seq_len - 2 * half]], dim=1)
        yield ids.to(device, non_blocking=True)


def run(args: argparse.Namespace, device: str, bf16: bool, steps: int, batch: int, seq_len: int) -> dict:
    torch.manual_seed(args.seed)
    config = LlamaConfig(**SMOLLM2_135M, attn_implementation="sdpa")
    model = LlamaForCausalLM(config).to(device)
    model.train()
    params = sum(p.numel() for p in model.parameters())
    fused = device == "cuda"
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01, fused=fused)
    warmup = max(1, min(args.warmup, steps // 10))

    def lr_at(step: int) -> float:
        return step / warmup if step < warmup else max(0.0, (steps - step) / max(1, steps - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    data = batches(config.vocab_size, batch, seq_len, device, args.seed)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    losses: list[float] = []
    timed_from = min(args.skip, steps - 1)  # the first steps warm up kernels and the allocator
    start = time.perf_counter()
    for step in range(steps):
        if step == timed_from:
            sync()
            start = time.perf_counter()
        ids = next(data)
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=bf16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        if step == 0 or step == steps - 1 or (step + 1) % max(1, steps // 10) == 0:
            losses.append(loss.item())
    sync()
    elapsed = time.perf_counter() - start
    timed = steps - timed_from
    peak = torch.cuda.max_memory_allocated() / 2**30 if device == "cuda" else float("nan")
    del model, optimizer
    if device == "cuda":
        torch.cuda.empty_cache()
    precision = "loop, bf16 autocast" if bf16 else "loop, fp32"
    return result_row(precision, params, batch, seq_len, steps, timed, elapsed, peak, losses)


def word_tokenizer(vocab: int):
    """A word-level tokenizer over ``vocab`` ids: specials, ``=`` (the answer prefix), then words ``w3``…"""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = {"<pad>": 0, "<unk>": 1, "</s>": 2, "=": 3}
    words.update({f"w{i}": i for i in range(4, vocab)})
    tok = Tokenizer(models.WordLevel(words, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>", eos_token="</s>"
    )


def trainer_clock(timed_from: int, steps: int, sync) -> tuple[object, dict[str, float], list[float]]:
    """A ``TrainerCallback`` timing steps ``timed_from``..``steps`` (``sync``: wait for the GPU first), with
    the clock it fills (``start``, ``end``) and the losses it logs."""
    from transformers import TrainerCallback

    clock: dict[str, float] = {}
    losses: list[float] = []

    class StepClock(TrainerCallback):
        def on_train_begin(self, _args, state, control, **kwargs):
            if timed_from == 0:
                clock["start"] = time.perf_counter()

        def on_step_end(self, _args, state, control, **kwargs):
            if state.global_step in (timed_from, steps):
                sync()
                clock["start" if state.global_step == timed_from else "end"] = time.perf_counter()

        def on_log(self, _args, state, control, logs=None, **kwargs):
            if logs and "loss" in logs:
                losses.append(float(logs["loss"]))

    return StepClock(), clock, losses


def run_trainer(args: argparse.Namespace, device: str, steps: int, batch: int, seq_len: int) -> dict:
    """The project's trainer on synthetic (input, answer) pairs; steps timed by a callback, as the loop."""
    from wikihowqa.generate.seq2seq import Generator, GeneratorConfig, train

    torch.manual_seed(args.seed)
    config = LlamaConfig(**SMOLLM2_135M, attn_implementation="sdpa")
    model = LlamaForCausalLM(config)
    params = sum(p.numel() for p in model.parameters())
    prompt = (seq_len - 2) // 2  # input words, then "=", then the answer words and </s>: seq_len tokens
    answer = seq_len - 2 - prompt
    gen = torch.Generator().manual_seed(args.seed)
    pairs = []
    for _ in range(min(steps * batch, 1024)):
        ids = torch.randint(4, config.vocab_size, (prompt,), generator=gen).tolist()
        pairs.append((" ".join(f"w{i}" for i in ids), " ".join(f"w{i}" for i in (ids * 2)[:answer])))
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    timed_from = min(args.skip, steps - 1)
    step_clock, clock, losses = trainer_clock(timed_from, steps, sync)

    with tempfile.TemporaryDirectory() as out:
        settings = GeneratorConfig.from_settings(
            {
                "model": "random-init SmolLM2-135M shape",
                "architecture": "causal",
                "output_dir": out,
                "max_input_tokens": prompt + 1,
                "max_answer_tokens": answer + 1,
                "answer_prefix": " =",
                "train": {
                    "max_steps": steps,
                    "batch_size": batch,
                    "grad_accum": 1,
                    "learning_rate": args.lr,
                    "warmup": max(1, min(args.warmup, steps // 10)),
                    "save_steps": steps + 1,  # no checkpoint inside the timed steps
                    "logging_steps": max(1, steps // 10),
                    "evaluate": False,
                    "seed": args.seed,
                    "bf16": "auto",  # bf16 on a CUDA GPU that has it, as `wikihowqa train` by default
                },
            }
        )
        generator = Generator(model, word_tokenizer(config.vocab_size), settings, encoder_decoder=False)
        first_row = generator.features(*pairs[0])
        assert len(first_row["input_ids"]) == seq_len, len(first_row["input_ids"])
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        train(settings, pairs, generator=generator, resume=False, callbacks=[step_clock])
        bf16 = json.loads((Path(out) / "train-summary.json").read_text())["bf16"]
    peak = torch.cuda.max_memory_allocated() / 2**30 if device == "cuda" else float("nan")
    elapsed = clock["end"] - clock["start"]
    del model, generator
    if device == "cuda":
        torch.cuda.empty_cache()
    timed = steps - timed_from
    precision = f"Trainer, {'bf16' if bf16 else 'fp32'}"
    return result_row(precision, params, batch, seq_len, steps, timed, elapsed, peak, losses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mode",
        choices=["both", "loop", "trainer"],
        default="both",
        help="the hand-written loop (and its fp32 peer), the project's trainer, or both",
    )
    parser.add_argument(
        "--steps", type=int, default=300, help="optimizer steps of the bf16 (and Trainer) run"
    )
    parser.add_argument("--peer-steps", type=int, default=40, help="steps of the fp32 peer run (0: skip it)")
    parser.add_argument("--batch-size", type=int, default=16, help="sequences per optimizer step")
    parser.add_argument("--seq-len", type=int, default=1024, help="tokens per sequence (input + answer)")
    parser.add_argument("--lr", type=float, default=3e-4, help="peak learning rate (AdamW)")
    parser.add_argument("--warmup", type=int, default=30, help="warm-up steps of the learning rate")
    parser.add_argument("--skip", type=int, default=5, help="untimed first steps (kernel, allocator warm-up)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random init and the synthetic data")
    parser.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    args = parser.parse_args()

    device = "cuda" if args.device == "auto" and torch.cuda.is_available() else args.device
    device = "cpu" if device == "auto" else device
    batch, seq_len, steps, peer_steps = args.batch_size, args.seq_len, args.steps, args.peer_steps
    notes = []
    if device == "cpu":
        # A 135M-parameter model at 16 × 1024 tokens takes minutes a step on a CPU: shrink, and say so.
        batch, seq_len = min(batch, 1), min(seq_len, 64)
        steps, peer_steps = min(steps, 3), 0  # no bf16 run to compare with fp32 on a CPU
        notes.append(
            f"no CUDA GPU: ran on the CPU with batch {batch} × {seq_len} tokens, {steps} steps "
            f"(figures say nothing about GPU speed)"
        )
        torch.set_num_threads(1)  # on a shared CPU, more threads than idle cores slow small steps down a lot
    bf16 = device == "cuda" and torch.cuda.is_bf16_supported()
    if device == "cuda" and not bf16:
        notes.append("this GPU has no bf16: the main run is fp32 too")
    if device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False  # the fp32 peer is true fp32
        torch.backends.cudnn.allow_tf32 = False
    name = torch.cuda.get_device_name() if device == "cuda" else platform.processor() or platform.machine()
    print(f"device: {device} ({name}); torch {torch.__version__}")
    rows = []
    if args.mode in ("both", "loop"):
        rows.append(run(args, device, bf16, steps, batch, seq_len))
        if peer_steps > 0:
            rows.append(run(args, device, False, max(peer_steps, args.skip + 2), batch, seq_len))
    if args.mode in ("both", "trainer"):
        rows.append(run_trainer(args, device, steps, batch, seq_len))

    header = (
        "run",
        "params",
        "batch×seq",
        "timed steps",
        "s",
        "steps/s",
        "tokens/s",
        "peak GiB",
        "loss first→last",
    )
    table = [
        (
            r["precision"],
            f"{r['params'] / 1e6:.1f}M",
            f"{r['batch']}×{r['seq_len']}",
            str(r["timed_steps"]),
            f"{r['seconds']:.1f}",
            f"{r['steps_per_s']:.2f}",
            f"{r['tokens_per_s']:,.0f}",
            "-" if math.isnan(r["peak_gib"]) else f"{r['peak_gib']:.1f}",
            f"{r['first_loss']:.2f}→{r['last_loss']:.2f}",
        )
        for r in rows
    ]
    widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(header)]
    line = " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    print(line)
    print("-" * len(line))
    for row in table:
        print(" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    by_run = {r["precision"]: r["tokens_per_s"] for r in rows}
    if "loop, bf16 autocast" in by_run and "loop, fp32" in by_run:
        print(f"bf16 / fp32 tokens/s (loop): {by_run['loop, bf16 autocast'] / by_run['loop, fp32']:.2f}×")
    trainer = next((v for k, v in by_run.items() if k.startswith("Trainer")), None)
    if trainer and rows[0]["precision"].startswith("loop"):
        print(f"Trainer / loop tokens/s: {trainer / rows[0]['tokens_per_s']:.2f}×")
    for note in notes:
        print(f"note: {note}")


if __name__ == "__main__":
    main()
