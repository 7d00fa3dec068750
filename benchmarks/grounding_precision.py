"""Grounding with its encoder in bf16 against float32: may grounding use dense retrieval's passage vectors?

Issue 34: dense retrieval embeds passages in bf16 where the CPU computes in it (OpenVINO, the default), while
grounding ran float32, so ``evaluate`` embedded again every passage ``answer`` had cached. The rule: one
passage precision for both, bf16 if grounding's per-sentence support stays within 0.01 of float32's and its
supported/unsupported decisions agree on at least 99 % of sentences, else float32 for both.

Answers scored: every question's gold answer and, per question, the human-evaluation generator's "paper
mix" deterioration of it (4-5 edits: negations, numbers, swaps, an unsupported sentence), so that the
sentences span supported and unsupported support values around the threshold. Both scorers share
everything but the encoder.

bf16 encoder: OpenVINO in bf16 where this CPU has BF16 (the real thing: what dense retrieval runs); on a CPU
without it OpenVINO silently runs f32, so the bf16 arithmetic is *emulated* in torch: every Linear's weights,
inputs and outputs and every LayerNorm's and embedding's outputs rounded to bfloat16, the sums inside the
matrix products in float32 (as oneDNN's and AMX's bf16 kernels accumulate). The float32 reference is
OpenVINO f32, what grounding ran before.

    python -m benchmarks.grounding_precision --dataset DEMO/dataset --record
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402  (after the environment above)


def emulated_bf16_model() -> object:
    """The packaged MiniLM in torch, its arithmetic rounded to bfloat16 as a bf16 CPU kernel rounds it."""
    import torch
    from sentence_transformers import SentenceTransformer

    from wikihowqa.encoders.embed import default_model_path

    model = SentenceTransformer(default_model_path(), device="cpu")

    def rounded(x: object) -> object:
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            return x.to(torch.bfloat16).to(torch.float32)
        return x

    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            with torch.no_grad():
                module.weight.copy_(rounded(module.weight))
            module.register_forward_pre_hook(lambda _m, args: tuple(rounded(a) for a in args))
        if isinstance(module, torch.nn.Linear | torch.nn.LayerNorm | torch.nn.Embedding):
            module.register_forward_hook(lambda _m, _args, out: rounded(out))
    return model


def items_of(dataset: Path | None) -> tuple[str, list[tuple[str, list]]]:
    from wikihowqa.core.records import passages_of
    from wikihowqa.dataset.folder import DatasetFolder
    from wikihowqa.humaneval import deteriorate as det

    if dataset is None:
        import tempfile

        from wikihowqa.demo.paths import real_examples_path
        from wikihowqa.release.importer import import_release

        src = real_examples_path()
        tmp = Path(tempfile.mkdtemp(prefix="grounding-precision-")) / "real"
        folder, _ = import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp)
        name = "the 3 real WikiHowNFQA instances"
    else:
        folder, name = DatasetFolder(dataset), f"{dataset}"
    documents = folder.documents_by_article()
    examples = [e for e in folder.examples() if documents.get(e.article_id) and e.answer.strip()]
    donors = det.donor_sentences(examples)
    items = []
    for e in examples:
        passages = passages_of(documents[e.article_id])
        items.append((e.answer, passages))
        rng = random.Random(f"0:{e.article_id}:paper mix")
        donor = det.pick_donor(e.answer, e.article_id, e.category, donors, rng)
        n = rng.choice([4, 5])
        text, edits = det.deteriorate_text(e.answer, n, rng, donor=donor, types=det.EDIT_TYPES)
        if edits and text != e.answer:
            items.append((text, passages))
    return f"{name}: {len(examples)} questions", items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, help="a dataset folder (the demo's); default: the real ones")
    parser.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = parser.parse_args()
    from wikihowqa.encoders.embed import load_model
    from wikihowqa.encoders.openvino_encoder import cpu_precision
    from wikihowqa.evaluate.grounding import GroundingConfig, GroundingScorer

    what, items = items_of(args.dataset)
    native = cpu_precision("auto") == "bf16"
    encoders = {
        "f32": load_model("all-MiniLM-L6-v2", "cpu", backend="openvino", precision="f32"),
        "bf16": load_model("all-MiniLM-L6-v2", "cpu", backend="openvino", precision="bf16")
        if native
        else emulated_bf16_model(),
    }
    results, seconds = {}, {}
    for name, encoder in encoders.items():
        started = time.perf_counter()
        results[name] = GroundingScorer(GroundingConfig(device="cpu"), encoder=encoder).score_many(items)
        seconds[name] = time.perf_counter() - started
        print(f"{name}: {seconds[name]:.0f} s", flush=True)
    pairs = [
        (a, b)
        for x, y in zip(results["f32"], results["bf16"], strict=True)
        for a, b in zip(x.sentences, y.sentences, strict=True)
    ]
    delta = np.array([abs(a.support - b.support) for a, b in pairs])
    agree = float(np.mean([a.supported == b.supported for a, b in pairs]))
    answer_delta = max(abs(x.mean_support - y.mean_support) for x, y in zip(*results.values(), strict=True))
    near = sum(abs(a.support - GroundingConfig().threshold) <= 0.01 for a, _ in pairs)
    passes = float(delta.max()) <= 0.01 and agree >= 0.99
    decision = "bf16 for both" if passes else "float32 for both"
    import openvino

    head = (
        f"Grounding, bf16 against float32 encoder ({what}; {len(items)} answers: gold and paper-mix "
        f"deteriorated, {len(pairs)} sentences); bf16 "
        + ("OpenVINO bf16 (native)" if native else "emulated in torch (no BF16 here: OpenVINO would run f32)")
        + f", f32 OpenVINO {openvino.__version__}; CPU {cpu_model()}. "
        f"`python -m benchmarks.grounding_precision{' --dataset DATASET' if args.dataset else ''}`"
    )
    lines = [
        "| sentences | max abs support diff | share within 0.01 | mean abs diff | decisions agree "
        "| sentences within 0.01 of the threshold | max answer mean-support diff | rule (≤ 0.01, ≥ 99 %) |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
        f"| {len(pairs)} | {delta.max():.4f} | {np.mean(delta <= 0.01):.4f} | {delta.mean():.5f} "
        f"| {agree:.4f} | {near} | {answer_delta:.4f} | {decision} |",
    ]
    print(head)
    print("\n".join(lines))
    if args.record:
        from benchmarks.results_md import append_run

        title = "grounding precision (python -m benchmarks.grounding_precision)"
        append_run(title, "\n".join([head, "", *lines]))


def cpu_model() -> str:
    with open("/proc/cpuinfo", encoding="utf-8") as fh:
        return next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), "?")


if __name__ == "__main__":
    main()
