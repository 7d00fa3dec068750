"""Local process pools vs a Ray cluster on this machine: the engine's overhead and throughput per worker.

Workloads, on the paper-scale synthetic corpus (``wikihowqa.synthetic.dataset``) or a subset of it:

* *embed*: every passage embedded with all-MiniLM-L6-v2 (the dense retriever's chunks of 2048, no cache);
* *score*: answers scored — each passage taken as a candidate answer to its question, against the gold
  answer — with ROUGE (the project's rouge-score-equal implementation) and BERTScore (bundled MiniLM).

Each workload runs here (``--executor local``: 1 and 2 workers — one torch thread / ROUGE process each)
and on a real Ray cluster on 127.0.0.1 with 1 and 2 worker nodes of one CPU each (the head node gets no
CPU, so all work runs on the worker nodes), in the same run. *cold* includes Ray's worker processes
starting and loading the model, as a user's first command pays (here: the model loaded in this process);
*warm* is a second pass on the same workers with the model loaded (the engine alone). Local and Ray passes
alternate (local cold, Ray cold, local warm, Ray warm), so both meet the same load on a shared machine.
Overhead = Ray time / local time with as many workers − 1 (target ≤ 15 %). Passages are embedded in batches
of ``CHUNK``.
Outputs must be identical: passage vectors (max |Δ|) and every ROUGE and BERTScore value.

    python -m benchmarks.scale                  # 20 questions, 125 documents (≈ 1,800 passages)
    python -m benchmarks.scale --questions 11746 --documents 74527   # the paper's scale (hours here)
    python -m benchmarks.scale --record         # also add the tables to benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

# Before Ray is imported: keep the benchmark's driver on loopback, like the cluster (tests/ray_cluster.py).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np

from wikihowqa.synthetic.dataset import PAPER_DOCUMENTS, PAPER_QUESTIONS, generate_corpus

ROOT = Path(__file__).resolve().parents[1]

#: One token for the run's clusters: Ray's driver keeps the first token it reads.
TOKEN = secrets.token_hex(32)
PAPER_PASSAGES = 1_053_704  # the retrieval benchmark's passages at the paper's scale (issue 16)


def workload(n_questions: int, n_documents: int) -> tuple[list[str], list[str], list[str]]:
    """(passages, candidate answers, references): every passage, and each passage against its gold answer."""
    examples, documents = generate_corpus(n_questions, n_documents, seed=0)
    gold = {e.article_id: e.answer for e in examples}
    passages = [p for d in documents for p in d.passages]
    references = [gold[d.article_id] for d in documents for _ in d.passages]
    return passages, passages, references


#: Passages per embedding batch: the dense retriever's 2,048 would give a subset this small only a couple
#: of batches to spread over the workers; at the paper's scale there are hundreds either way.
CHUNK = 256


def embed_all(executor, passages: list[str]) -> np.ndarray:
    from wikihowqa.retrieve.dense import DenseRetriever, EncoderSpec

    retriever = DenseRetriever(EncoderSpec(device="cpu"), None, executor=executor, chunk=CHUNK)
    return retriever.passage_vectors(passages)


def score_all(executor, answers: list[str], references: list[str], workers: int) -> np.ndarray:
    from wikihowqa.evaluate import rouge
    from wikihowqa.evaluate.bertscore import BertScoreConfig, BertScoreModel

    rows = rouge.score_pairs(answers, references, workers=workers, executor=executor)
    flat = [[x[t][f] for t in rouge.ROUGE_TYPES for f in rouge.FIELDS] for x in rows]
    config = BertScoreConfig(model="minilm", device="cpu", batch_size=64)
    chunks = [(answers[i : i + 512], references[i : i + 512]) for i in range(0, len(answers), 512)]
    results = list(executor.map_model(BertScoreModel(config), "score_batch", chunks))
    bert = [v for r in results for v in zip(r.precision, r.recall, r.f1, strict=True)]
    return np.hstack([np.array(flat), np.array(bert)])


def timed(fn: Callable[[], np.ndarray]) -> tuple[float, np.ndarray]:
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, out


def side_by_side(workers: int, passages, answers, references) -> tuple[dict, dict]:
    """Each workload here and on a fresh cluster of ``workers`` worker nodes, passes interleaved (local,
    Ray, local, Ray) so that both see the same load of this shared machine."""
    import torch

    from wikihowqa.encoders import embed
    from wikihowqa.runtime.executor import MODELS, LocalExecutor, RayExecutor
    from wikihowqa.runtime.ray_cluster import start_cluster

    torch.set_num_threads(workers)
    MODELS.clear()
    embed._load.cache_clear()  # cold: the model is loaded in the timed run, here as on the workers
    here = LocalExecutor(workers)
    cluster = start_cluster(workers, head_cpus=0, token=TOKEN)
    os.environ.update({k: cluster.env[k] for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")})
    local: dict[str, tuple[float, np.ndarray]] = {}
    ray: dict[str, tuple[float, np.ndarray]] = {}
    try:
        there = RayExecutor(cluster.address)
        try:
            for name, run in (
                ("embed", lambda ex: embed_all(ex, passages)),
                ("score", lambda ex: score_all(ex, answers, references, workers)),
            ):
                for when in ("cold", "warm"):
                    local[f"{name} {when}"] = timed(lambda run=run: run(here))
                    ray[f"{name} {when}"] = timed(lambda run=run: run(there))
        finally:
            there.close()
    finally:
        cluster.stop()
    return local, ray


def tables(n_q: int, n_d: int, passages: list[str], local: dict, ray: dict) -> str:
    n = len(passages)
    lines = [
        f"Synthetic corpus (wikihowqa.synthetic, seed 0): {n_q:,} questions, {n_d:,} documents, {n:,} "
        f"passages — a {n / PAPER_PASSAGES:.2%} subset of the paper's scale ({PAPER_QUESTIONS:,} questions, "
        f"{PAPER_DOCUMENTS:,} documents, {PAPER_PASSAGES:,} passages), run on this machine's "
        f"{os.cpu_count()} shared cores. Score: {n:,} answer/reference pairs (ROUGE + BERTScore MiniLM).",
        "",
        "| workload | workers | local cold s | Ray cold s | overhead cold | local warm s | Ray warm s "
        "| overhead warm | Ray warm items/s per worker | identical |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    extrapolate = []
    for name in ("embed", "score"):
        for workers in (1, 2):
            here, there = local[workers], ray[workers]
            (lc, v1), (lw, v2) = here[f"{name} cold"], here[f"{name} warm"]
            (rc, v3), (rw, v4) = there[f"{name} cold"], there[f"{name} warm"]
            diff = max(float(np.abs(v1 - v).max()) for v in (v2, v3, v4))
            same = "yes (bitwise)" if diff == 0 else f"max abs diff {diff:.1e}"
            lines.append(
                f"| {name} | {workers} | {lc:.1f} | {rc:.1f} | {rc / lc - 1:+.0%} | {lw:.1f} | {rw:.1f} | "
                f"{rw / lw - 1:+.0%} | {n / rw / workers:.1f} | {same} |"
            )
            if name == "embed":
                extrapolate.append((workers, n / rw / workers))
    lines += [
        "",
        "Paper scale, from the Ray warm throughput per worker measured above (MiniLM, one core):",
        "",
    ]
    lines += ["| worker CPUs | passages embedded (1,053,704) |", "|---:|---:|"]
    per_worker = min(rate for _, rate in extrapolate)
    for cpus in (2, 16, 64, 256):
        hours = PAPER_PASSAGES / (per_worker * cpus) / 3600
        lines.append(f"| {cpus} | {hours:.1f} h |" if hours >= 1 else f"| {cpus} | {hours * 60:.0f} min |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--documents", type=int, default=125)
    parser.add_argument("--record", action="store_true", help="add the tables to benchmarks/RESULTS.md")
    args = parser.parse_args()
    passages, answers, references = workload(args.questions, args.documents)
    print(f"{len(passages):,} passages", flush=True)
    local, ray = {}, {}
    for workers in (1, 2):
        local[workers], ray[workers] = side_by_side(workers, passages, answers, references)
        print(f"{workers} worker(s): done", flush=True)
    body = tables(args.questions, args.documents, passages, local, ray)
    print(body)
    if args.record:
        from benchmarks.results_md import append_run

        append_run("scale: local vs Ray (benchmarks/scale.py)", body)


if __name__ == "__main__":
    main()
