"""``wikihowqa import``: official release files (or the release's Hub repository) → a dataset folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import Overwrite
from wikihowqa.cli._outputs import writes
from wikihowqa.core.errors import SettingsError


def _warn(message: str) -> None:
    console.print(f"[yellow]warning:[/] {escape(message)}", highlight=False, soft_wrap=True)


def _rows(n: int) -> str:
    return f"{n} question" if n == 1 else f"{n} questions"


def _report(manifest: dict[str, Any]) -> None:
    """What the import found and changed, on stderr; the counts are in the manifest too."""
    counts = manifest["counts"]
    if counts.get("repeated_citations_removed"):
        _warn(
            f"{_rows(counts['questions_with_repeated_citations'])} cited a document URL more than once: "
            f"{counts['repeated_citations_removed']} repeated citations removed (each URL is kept where it "
            "was first cited)"
        )
    escaped = manifest.get("release_artefacts", {}).get("escaped_quotes", {})
    if escaped.get("rows"):
        what = f"{escaped['escapes']} backslash-escaped quotes (\\' for ')"
        if escaped.get("cleaned"):
            console.print(
                f"cleaned: {what} in {_rows(escaped['rows'])}", highlight=False, markup=False, soft_wrap=True
            )
        else:
            _warn(
                f"{what} in {_rows(escaped['rows'])}, an artefact of the release: kept as released "
                "(--clean repairs them)"
            )


@app.command("import")
@writes("out_dir", "qa", "documents")
def import_command(
    out_dir: Path = typer.Argument(..., help="Dataset folder to create (must not exist, or be empty)."),
    qa: list[Path] = typer.Option(
        [],
        "--qa",
        help="QA part of the release: a .jsonl or .parquet file; repeat for per-split files. "
        "Give --qa or --hub.",
    ),
    hub: str = typer.Option(
        None,
        "--hub",
        help="Fetch the QA part from this Hugging Face dataset repository instead of --qa (e.g. "
        "Lurunchik/WikiHowNFQA): its WikiHowNFQA.jsonl, or else its Parquet conversion's default/*.parquet; "
        "the loading script is never run. Uses HF_ENDPOINT, HF_TOKEN and the Hub cache (HF_HOME); offline "
        "(HF_HUB_OFFLINE=1) it uses a cached copy or fails naming the repository.",
    ),
    revision: str = typer.Option(
        None,
        "--revision",
        help="With --hub: the branch, tag or commit to fetch (default: main, which holds the JSONL; the "
        "Parquet conversion is refs/convert/parquet). The commit it resolves to is recorded in the manifest.",
    ),
    documents: list[Path] = typer.Option(
        [], "--documents", help="Document part of the release (.jsonl or .parquet); repeat for several files."
    ),
    clean: bool = typer.Option(
        False,
        "--clean",
        help="Repair the release's backslash-escaped quotes (friend\\'s → friend's) in questions and answers "
        "and record how many in the manifest; without it they are only counted and kept as released.",
    ),
    fmt: str = typer.Option("jsonl", "--format", help="File format to write: jsonl or parquet."),
    overwrite: Overwrite = False,
) -> None:
    """Import the official WikiHowNFQA release (QA part, from files or the Hub, and document part) into a
    dataset folder.

    Field values are kept exactly (but for --clean); a split named ``valid`` becomes ``validation``; a row
    without a split takes it from its file name (or, from the Hub, its folder); documents without passages
    are cut into passages. An empty question, a blank gold answer or a repeated article_id stops the import
    with file:line; a document URL one question cites twice is kept once, with a counted warning. The
    document-enriched form (each related_document_urls_wayback_snapshots value a JSON document whose
    parsed_text is {title, passages}) is recognised: its documents are imported too. Parquet timestamps,
    decimals and binary values are kept as text (ISO 8601, digits, base64).
    """
    if bool(qa) == bool(hub):
        raise SettingsError("give the QA part either as --qa FILE or as --hub REPOSITORY, not both")
    if revision is not None and not hub:
        raise SettingsError("--revision applies to --hub only")
    # heavy: lxml, pydantic, huggingface_hub (start-up time)
    from wikihowqa.release.importer import import_hub, import_release

    if hub:
        folder, manifest = import_hub(
            hub,
            out_dir,
            revision=revision,
            document_paths=documents,
            fmt=fmt,
            overwrite=overwrite,
            clean=clean,
        )
        origin = manifest["origin"]["hub"]
        console.print(
            f"fetched {origin['repo_id']} at {origin['revision']} (commit {origin['commit']}): "
            + ", ".join(origin["files"]),
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    else:
        folder, manifest = import_release(qa, documents, out_dir, fmt=fmt, overwrite=overwrite, clean=clean)
    _report(manifest)
    counts = manifest["counts"]
    out.print(
        f"imported {counts['questions']} questions and {counts['documents']} documents into {folder.path}",
        markup=False,
    )
