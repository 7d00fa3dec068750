"""``wikihowqa import``: official release files → a dataset folder."""

from __future__ import annotations

from pathlib import Path

import typer

from wikihowqa.cli._app import app, out
from wikihowqa.cli._options import Overwrite


@app.command("import")
def import_command(
    out_dir: Path = typer.Argument(..., help="Dataset folder to create (must not exist, or be empty)."),
    qa: list[Path] = typer.Option(
        ..., "--qa", help="QA part of the release: a .jsonl or .parquet file; repeat for per-split files."
    ),
    documents: list[Path] = typer.Option(
        [], "--documents", help="Document part of the release (.jsonl or .parquet); repeat for several files."
    ),
    fmt: str = typer.Option("jsonl", "--format", help="File format to write: jsonl or parquet."),
    overwrite: Overwrite = False,
) -> None:
    """Import the official WikiHowNFQA release files (QA part and document part) into a dataset folder.

    Field values are kept exactly; a split named ``valid`` becomes ``validation``; a row without a split
    takes it from its file name; documents without passages are cut into passages. The document-enriched
    form (each related_document_urls_wayback_snapshots value a JSON document whose parsed_text is
    {title, passages}) is recognised: its documents are imported too. Parquet timestamps, decimals and
    binary values are kept as text (ISO 8601, digits, base64).
    """
    from wikihowqa.importer import import_release  # heavy: lxml, pydantic (start-up time)

    folder, manifest = import_release(qa, documents, out_dir, fmt=fmt, overwrite=overwrite)
    counts = manifest["counts"]
    out.print(
        f"imported {counts['questions']} questions and {counts['documents']} documents into {folder.path}",
        markup=False,
    )
