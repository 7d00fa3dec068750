"""Passage embedding on this machine's CPUs: torch float32 (the exact path) against the faster backends.

Backends, each the project's own code path (``wikihowqa.retrieve.dense.SentenceTransformerEncoder``) on the
same passages, timed in interleaved rounds in one process (torch, openvino, ..., torch, openvino, ...) so
that the shared machine's load falls on all of them alike; the fastest round of each is kept:

* ``torch fp32``: sentence-transformers, float32 — dense retrieval's encoder before issue 27 (the peer);
* ``embed.embed (cold cache)``: ``wikihowqa.encoders.embed.embed``, the question embeddings of split and audit
  (torch float32, the same model), each call into an empty cache folder: its own overhead (hashing, the
  cache file, batching) against plain sentence-transformers on the same texts;
* ``openvino auto``: the default on the CPU (bf16 where the CPU has it, else f32);
* ``openvino f32``: OpenVINO in float32 (what grounding, a metric, runs);
* ``openvino int8``: opt-in, statically quantized with NNCF (when nncf is installed; quantized once);
* ``model2vec``: a static encoder distilled offline from the same MiniLM (``model2vec.distill``, PCA 256),
  when model2vec is installed; distilled once into the user cache.

Passages: real web pages (``../shared/data/web-extraction-dev``, human-checked main content) cut by the
parse stage's passage splitter (≤ 100 words; those of ``--min-words`` words or more kept), in page order.
Agreement with torch fp32, each backend embedding questions and passages alike:

* *pages*: each page's title is a question over the pool of all the passages; top-10 overlap with torch
  (|A ∩ B| / 10, averaged) and recall@k (share of titles whose own page has a passage in the top k);
* *synthetic*: the retrieval benchmark's corpus (``wikihowqa.synthetic.dataset``, as
  ``benchmarks/retrieval.py``):
  supporting mode (each question's own passages ranked; top-10 overlap) and open mode over all of them
  (recall@k: a passage of the question's own documents in the top k).

The projection to the paper's 1,053,704 passages uses the measured wall-clock rate (under the load shown)
and, for an idle machine, twice the rate per CPU second (2 cores).

    python -m benchmarks.embed_speed                       # 2,000 passages, 2 rounds
    python -m benchmarks.embed_speed --passages 600 --rounds 2 --synthetic-questions 6   # quick look
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

PAPER_PASSAGES = 1_053_704
#: The real pages: ../shared/data beside the checkout (a worktree one level deeper looks one level up too).
PAGES = next(
    (
        folder / "shared" / "data" / "web-extraction-dev" / "ground-truth.jsonl.gz"
        for folder in (ROOT.parent, ROOT.parent.parent)
        if (folder / "shared" / "data" / "web-extraction-dev").is_dir()
    ),
    ROOT.parent / "shared" / "data" / "web-extraction-dev" / "ground-truth.jsonl.gz",
)
KS = (1, 5, 10)


def page_passages(path: Path, n: int, min_words: int) -> tuple[list[str], list[int], list[str]]:
    """(passages, the page of each, page titles): the first ``n`` passages of ``min_words`` words or more."""
    from wikihowqa.parse.passages import split_passages

    passages: list[str] = []
    owner: list[int] = []
    titles: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            page = json.loads(line)
            kept = [p for p in split_passages(page["main_content"] or "") if len(p.split()) >= min_words]
            if not kept or not page.get("title"):
                continue
            for text in kept[: n - len(passages)]:
                passages.append(text)
                owner.append(len(titles))
            titles.append(page["title"])
            if len(passages) >= n:
                break
    return passages, owner, titles


class Model2VecEncoder:
    """The distilled static encoder, behind the dense encoder's two methods."""

    def __init__(self, folder: Path) -> None:
        from model2vec import StaticModel

        if not (folder / "model.safetensors").is_file():
            from model2vec.distill import distill

            from wikihowqa.encoders.embed import default_model_path

            print(f"distilling model2vec from the packaged MiniLM into {folder} (once) ...", flush=True)
            distill(model_name=default_model_path(), pca_dims=256, device="cpu").save_pretrained(str(folder))
        self.model = StaticModel.from_pretrained(str(folder))

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self.model.encode(list(texts)), dtype=np.float32)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    encode_passages = encode_questions = _encode


class EmbedHelper:
    """``encoders.embed.embed`` (the question embeddings of split and audit), behind the dense encoder's two
    methods, with a cold cache: every call writes a new cache folder, so every text is embedded."""

    def __init__(self) -> None:
        import tempfile

        from wikihowqa.encoders.embed import load_model

        load_model("all-MiniLM-L6-v2", "cpu")  # its model loaded before the clock, as every row's is
        self.root = Path(tempfile.mkdtemp(prefix="embed-speed-"))

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        import tempfile

        from wikihowqa.encoders.embed import embed

        return embed(texts, cache_dir=Path(tempfile.mkdtemp(dir=self.root)), device="cpu")

    encode_passages = encode_questions = _encode


def encoders(with_model2vec: bool) -> dict[str, Callable[[], object]]:
    from wikihowqa.encoders.openvino_encoder import export_root
    from wikihowqa.retrieve.dense import SentenceTransformerEncoder

    made: dict[str, Callable[[], object]] = {
        "torch fp32": lambda: SentenceTransformerEncoder(device="cpu", backend="torch"),
        "embed.embed (cold cache)": EmbedHelper,
        "openvino auto": lambda: SentenceTransformerEncoder(device="cpu", backend="openvino"),
        "openvino f32": lambda: SentenceTransformerEncoder(device="cpu", backend="openvino", precision="f32"),
    }
    try:
        import nncf  # noqa: F401
    except ImportError:
        print("nncf is not installed: the int8 row is left out", flush=True)
    else:
        made["openvino int8"] = lambda: SentenceTransformerEncoder(
            device="cpu", backend="openvino", precision="int8"
        )
    if with_model2vec:
        try:
            import model2vec  # noqa: F401
        except ImportError:
            print("model2vec is not installed: its row is left out", flush=True)
        else:
            folder = export_root().parent / "model2vec" / "all-MiniLM-L6-v2-pca256"
            made["model2vec (distilled)"] = lambda: Model2VecEncoder(folder)
    return made


def top(scores: np.ndarray, k: int) -> np.ndarray:
    """Row-wise indices of the ``k`` highest scores (as sets: order inside the top does not matter here)."""
    k = min(k, scores.shape[1])
    return np.argpartition(-scores, k - 1, axis=1)[:, :k]


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    return float(
        np.mean([len(set(x) & set(y)) / len(x) for x, y in zip(a.tolist(), b.tolist(), strict=True)])
    )


def recall(scores: np.ndarray, relevant: Sequence[set[int]]) -> dict[int, float]:
    order = np.argsort(-scores, axis=1, kind="stable")
    return {
        k: float(np.mean([bool(set(row[:k]) & rel) for row, rel in zip(order, relevant, strict=True)]))
        for k in KS
    }


def grounding_check(rounds: int) -> str:
    """Grounding (``wikihowqa evaluate``) with its encoder run by torch and by OpenVINO (float32, as the
    metric runs it): the three real WikiHowNFQA instances' gold answers and answers copied from their
    passages, every sentence's support compared, and the time of each (interleaved, fastest kept)."""
    import tempfile

    from wikihowqa.core.records import passages_of
    from wikihowqa.demo.paths import real_examples_path
    from wikihowqa.evaluate.grounding import GroundingConfig, GroundingScorer, sentences_of
    from wikihowqa.release.importer import import_release

    src = real_examples_path()
    folder, _ = import_release(
        [src / "qa.jsonl"], [src / "documents.jsonl"], Path(tempfile.mkdtemp(prefix="embed-speed-")) / "real"
    )
    documents = folder.documents_by_article()
    items = []
    for example in folder.examples():
        passages = passages_of(documents.get(example.article_id, []))
        items.append((example.answer, passages))
        for passage in passages:  # answers copied from the passages: fully grounded
            sentences = sentences_of(passage.text)
            items += [(" ".join(sentences[k : k + 3]), passages) for k in range(0, len(sentences) - 2, 3)]
    seconds: dict[str, float] = {}
    results: dict[str, list] = {}
    for _ in range(rounds):
        for backend in ("torch", "openvino"):
            scorer = GroundingScorer(GroundingConfig(device="cpu", backend=backend))
            scorer.encoder  # noqa: B018  loaded before the clock starts
            started = time.perf_counter()
            results[backend] = scorer.score_many(items)
            took = time.perf_counter() - started
            seconds[backend] = min(seconds.get(backend, took), took)
    pairs = [
        (a, b)
        for x, y in zip(results["torch"], results["openvino"], strict=True)
        for a, b in zip(x.sentences, y.sentences, strict=True)
    ]
    delta = max(abs(a.support - b.support) for a, b in pairs)
    flips = sum(a.supported != b.supported for a, b in pairs)
    same_best = sum(a.passages[0].passage_id == b.passages[0].passage_id for a, b in pairs if a.passages)
    return (
        f"Grounding, {len(items)} answers ({len(pairs)} sentences) of the 3 real instances: torch "
        f"{seconds['torch']:.1f} s, openvino f32 {seconds['openvino']:.1f} s "
        f"({seconds['torch'] / seconds['openvino']:.2f}×); largest support difference {delta:.1e}, "
        f"{flips} supported/unsupported labels changed, best passage the same for {same_best} of "
        f"{sum(1 for a, _ in pairs if a.passages)} sentences."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=2000, help="real passages embedded per backend")
    parser.add_argument("--min-words", type=int, default=50, help="shortest passage kept (words)")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved timing rounds (fastest kept)")
    parser.add_argument(
        "--synthetic-questions", type=int, default=10, help="questions of the synthetic check"
    )
    parser.add_argument(
        "--backends", help="comma-separated rows to run (default all; 'torch fp32', the peer, is needed)"
    )
    parser.add_argument("--no-model2vec", action="store_true", help="leave the distilled static encoder out")
    parser.add_argument("--no-grounding", action="store_true", help="leave the grounding check out")
    parser.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = parser.parse_args()
    import torch

    from wikihowqa.synthetic.dataset import generate_corpus

    if not PAGES.is_file():
        sys.exit(f"{PAGES}: the real pages are not there (../shared/data/web-extraction-dev)")
    passages, owner, titles = page_passages(PAGES, args.passages, args.min_words)
    words = np.array([len(p.split()) for p in passages])
    n_synth = args.synthetic_questions
    examples, documents = generate_corpus(n_synth, n_synth * 6, seed=0)
    synth = [
        (e.question, [p for d in documents if d.article_id == e.article_id for p in d.passages])
        for e in examples
    ]
    synth_pool = [p for _, ps in synth for p in ps]
    synth_owner = [q for q, (_, ps) in enumerate(synth) for _ in ps]
    load_before = os.getloadavg()

    made = encoders(not args.no_model2vec)
    if args.backends:
        made = {name: make for name, make in made.items() if name in args.backends.split(",")}
    built = {name: make() for name, make in made.items()}
    for encoder in built.values():  # warm-up: first-call costs (allocation, shape compilation) paid by none
        encoder.encode_passages(passages[:64])  # type: ignore[attr-defined]
    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}
    vectors: dict[str, np.ndarray] = {}
    for round_ in range(args.rounds):
        for name, encoder in built.items():
            started, cpu_started = time.perf_counter(), time.process_time()
            got = encoder.encode_passages(passages)  # type: ignore[attr-defined]
            seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
            wall[name] = min(wall.get(name, seconds), seconds)
            cpu[name] = min(cpu.get(name, cpu_seconds), cpu_seconds)
            vectors.setdefault(name, got)
            print(f"round {round_ + 1}: {name}: {len(passages) / seconds:.1f} passages/s", flush=True)
    load_after = os.getloadavg()

    relevant = [set(np.flatnonzero(np.array(owner) == t).tolist()) for t in range(len(titles))]
    synth_relevant = [set(np.flatnonzero(np.array(synth_owner) == q).tolist()) for q in range(len(synth))]
    peer = "torch fp32"
    quality: dict[str, dict[str, object]] = {}
    for name, encoder in built.items():
        q_vectors = encoder.encode_questions(titles)  # type: ignore[attr-defined]
        page_scores = q_vectors @ vectors[name].T
        s_passages = encoder.encode_passages(synth_pool)  # type: ignore[attr-defined]
        s_questions = encoder.encode_questions([q for q, _ in synth])  # type: ignore[attr-defined]
        open_scores = s_questions @ s_passages.T
        supporting = [top(open_scores[q : q + 1, sorted(rel)], 10)[0] for q, rel in enumerate(synth_relevant)]
        quality[name] = {
            "page_top": top(page_scores, 10),
            "page_recall": recall(page_scores, relevant),
            "open_top": top(open_scores, 10),
            "open_recall": recall(open_scores, synth_relevant),
            "supporting_top": supporting,
            "cosine": float(np.min(np.sum(vectors[name] * vectors[peer], axis=1)))
            if name.startswith(("torch", "openvino", "embed"))
            else None,
        }

    def fmt_recall(r: dict[int, float]) -> str:
        return " / ".join(f"{r[k]:.3f}" for k in KS)

    backends = f" --backends '{args.backends}'" if args.backends else ""
    with open("/proc/cpuinfo", encoding="utf-8") as fh:
        cpu_model = next((x.split(":", 1)[1].strip() for x in fh if x.startswith("model name")), "?")
    head = (
        f"{len(passages):,} real passages ({words.mean():.0f} words on average, {words.min()}–{words.max()})"
        f" from {len(titles):,} pages of web-extraction-dev; {len(synth)} synthetic questions with "
        f"{len(synth_pool):,} passages (wikihowqa.synthetic, seed 0); {os.cpu_count()} CPUs, torch threads "
        f"{torch.get_num_threads()}, load average {load_before[0]:.1f} before and {load_after[0]:.1f} after "
        f"(the CPU is shared); {args.rounds} interleaved rounds, fastest kept. Recall@1/5/10. "
        f"`python -m benchmarks.embed_speed --passages {args.passages} --rounds {args.rounds} "
        f"--synthetic-questions {n_synth}{backends}`; CPU {cpu_model}"
    )
    header = [
        "backend",
        "passages/s",
        "× torch",
        "passages per CPU s",
        "× torch (CPU s)",
        "min cosine to torch",
        "pages: top-10 overlap",
        "pages: recall@k",
        "synthetic supporting: top-10 overlap",
        "synthetic open: top-10 overlap",
        "synthetic open: recall@k",
        "paper's 1,053,704 passages: h (now / idle 2 cores)",
    ]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    base, base_cpu = len(passages) / wall[peer], len(passages) / cpu[peer]
    for name in built:
        rate, cpu_rate = len(passages) / wall[name], len(passages) / cpu[name]
        got, ref = quality[name], quality[peer]
        supporting = float(
            np.mean(
                [
                    len(set(a.tolist()) & set(b.tolist())) / len(a)
                    for a, b in zip(got["supporting_top"], ref["supporting_top"], strict=True)  # type: ignore[call-overload]
                ]
            )
        )
        cosine = got["cosine"]
        lines.append(
            "| "
            + " | ".join(
                [
                    name,
                    f"{rate:,.1f}",
                    f"{rate / base:.2f}",
                    f"{cpu_rate:,.1f}",
                    f"{cpu_rate / base_cpu:.2f}",
                    "-" if cosine is None else f"{cosine:.5f}",
                    f"{overlap(got['page_top'], ref['page_top']):.3f}",  # type: ignore[arg-type]
                    fmt_recall(got["page_recall"]),  # type: ignore[arg-type]
                    f"{supporting:.3f}",
                    f"{overlap(got['open_top'], ref['open_top']):.3f}",  # type: ignore[arg-type]
                    fmt_recall(got["open_recall"]),  # type: ignore[arg-type]
                    f"{PAPER_PASSAGES / rate / 3600:.1f} / {PAPER_PASSAGES / (2 * cpu_rate) / 3600:.1f}",
                ]
            )
            + " |"
        )
    print(head)
    print("\n".join(lines))
    if not args.no_grounding:
        lines += ["", grounding_check(args.rounds)]
        print(lines[-1])
    if args.record:
        from benchmarks.results_md import append_run

        append_run("embedding speed (benchmarks/embed_speed.py)", "\n".join([head, "", *lines]))


if __name__ == "__main__":
    main()
