"""``wikihowqa export-lm-eval`` and ``export-hub``: the benchmark where researchers already evaluate
models and publish datasets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import (
    Overwrite,
    deprecated_argument,
    deprecated_option,
    out_option,
    positional,
    renamed,
)

AllowEmptyAnswers = Annotated[
    bool,
    typer.Option(
        "--allow-empty-answers",
        help="Export questions whose gold answer is empty (every model scores 0 on them); without it they "
        "stop the export. Empty answers and questions without documents are counted in a warning either way.",
    ),
]


def _warn(lines: list[str]) -> None:
    for line in lines:
        console.print(f"[yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)


@app.command("export-lm-eval")
def export_lm_eval_command(
    dataset: Path = typer.Argument(..., help="Dataset folder (qa.jsonl, documents.jsonl)."),
    old_out: Annotated[Path | None, deprecated_argument("OUT", "--out")] = None,
    out_dir: Annotated[
        Path | None, out_option("the task folder (give it to lm_eval --include_path)", "DATASET/lm-eval")
    ] = None,
    split: str = typer.Option("test", "--split", help="Split whose questions the task asks."),
    task: str = typer.Option("wikihowqa", "--task", help="Task name (lm_eval --tasks NAME)."),
    passages: bool = typer.Option(
        True,
        "--passages/--question-only",
        help="Prompt with the question's top BM25 passages (as llm-passages does) or the question alone.",
    ),
    max_context_tokens: int = typer.Option(
        1500, "--max-context-tokens", help="Prompt budget (question, passages, template), ~4 chars a token."
    ),
    max_new_tokens: int = typer.Option(
        None,
        "--max-new-tokens",
        min=1,
        help="Longest answer the model may generate, in tokens (default: 256).",
    ),
    max_gen_toks: Annotated[int | None, deprecated_option("--max-gen-toks", "--max-new-tokens")] = None,
    grounding: bool = typer.Option(
        True,
        "--grounding/--no-grounding",
        help="Score grounding too (needs the question's documents in the task folder, and MiniLM).",
    ),
    allow_empty_answers: AllowEmptyAnswers = False,
    overwrite: Overwrite = False,
) -> None:
    """Write an lm-evaluation-harness task folder: YAML, the split's prompts and gold answers, and this
    project's ROUGE and grounding as the task's metrics."""
    # heavy: the prompt builder and retrieval (numpy, bm25s, httpx: ~0.25 s) load for this command only
    from wikihowqa.export.lm_eval import LmEvalSettings, export_lm_eval

    out_dir = positional(out_dir, old_out, "--out", "OUT") or dataset / "lm-eval"
    settings = LmEvalSettings(
        task=task,
        split=split,
        passages=passages,
        max_context_tokens=max_context_tokens,
        max_gen_toks=renamed(max_new_tokens, max_gen_toks, "--max-new-tokens", "--max-gen-toks") or 256,
        grounding=grounding,
        allow_empty_answers=allow_empty_answers,
    )
    summary = export_lm_eval(dataset, out_dir, settings, overwrite=overwrite)
    _warn(summary["warnings"])
    out.print(
        f"{summary['questions']} {split} questions → {out_dir} (task {task}; metrics"
        f" {', '.join(summary['metrics'])}; {summary['mean_passages_in_prompt']:.1f} passages per prompt)",
        highlight=False,
    )
    console.print(
        f"run: lm_eval run --include_path {out_dir} --tasks {task} --model hf --model_args pretrained=MODEL",
        highlight=False,
        markup=False,
    )


@app.command("export-hub")
def export_hub_command(
    dataset: Path = typer.Argument(..., help="Dataset folder (qa.jsonl, documents.jsonl, manifest.json)."),
    old_out: Annotated[Path | None, deprecated_argument("OUT", "--out")] = None,
    out_dir: Annotated[
        Path | None, out_option("the folder to upload as a Hugging Face dataset repo", "DATASET/hub")
    ] = None,
    name: str = typer.Option(None, "--name", help="Dataset name in the card (default: the folder's name)."),
    license_: str = typer.Option(
        "other", "--license", help="Licence identifier of the QA part for the card (the source wiki's terms)."
    ),
    shard_rows: int = typer.Option(10_000, "--shard-rows", help="Most rows per Parquet shard."),
    allow_empty_answers: AllowEmptyAnswers = False,
    overwrite: Overwrite = False,
) -> None:
    """Write Parquet shards per split (configs qa and documents), a dataset card from the manifest, and
    Croissant metadata (validated by mlcroissant); `datasets.load_dataset(OUT)` loads it."""
    from wikihowqa.export.hub import CROISSANT_FILE, HubSettings, export_hub  # heavy: pyarrow, the LLM client

    out_dir = positional(out_dir, old_out, "--out", "OUT") or dataset / "hub"

    with console.status("exporting…"):
        export = export_hub(
            dataset,
            out_dir,
            HubSettings(
                shard_rows=shard_rows, name=name, license=license_, allow_empty_answers=allow_empty_answers
            ),
            overwrite=overwrite,
        )
    _warn(export.warnings)
    for part, splits in export.rows.items():
        counts = ", ".join(f"{split} {n}" for split, n in splits.items())
        shards = sum(len(v) for v in export.files[part].values())
        out.print(f"{part}: {counts} ({shards} shards)", highlight=False)
    skipped = {p: c for p, c in export.skipped_columns.items() if c}
    if skipped:
        console.print(
            "not described in Croissant (no Croissant type): "
            + "; ".join(f"{p}: {', '.join(c)}" for p, c in skipped.items()),
            highlight=False,
        )
    out.print(f"→ {out_dir} (README.md, {CROISSANT_FILE}, data/)", highlight=False)
