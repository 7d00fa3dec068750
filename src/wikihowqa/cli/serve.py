"""``wikihowqa serve`` and ``export-judgments``: the study web app."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import PORT_DEFAULT, Overwrite, Port, out_option


@app.command("serve")
def serve_command(
    study_dir: Path = typer.Argument(..., help="Study folder made by `wikihowqa tasks`."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: Port = PORT_DEFAULT,
    admin_token: str = typer.Option(
        None,
        "--admin-token",
        envvar="WIKIHOWQA_ADMIN_TOKEN",
        help="Admin token (default: $WIKIHOWQA_ADMIN_TOKEN, else a random one per start). Its link is "
        "shown only on a terminal; otherwise it is written to STUDY/admin-link.txt (owner-only).",
    ),
    base_url: str = typer.Option(
        None, "--base-url", help="Public address for links, e.g. https://study.example.org (behind a proxy)."
    ),
    crowd: bool = typer.Option(
        False, "--crowd", help="Let crowd workers join with /join?part=PART&worker_id=ID (Prolific, MTurk)."
    ),
    items_per_assessor: int = typer.Option(
        None, "--items-per-assessor", help="Tasks per crowd or added assessor (default: the study's setting)."
    ),
    completion_url: str = typer.Option(
        None,
        "--completion-url",
        help="Where finished crowd workers go; {code} becomes their completion code.",
    ),
    durable: bool = typer.Option(
        False, "--durable", help="Sync every judgment to disk (survives a power loss, not just a crash)."
    ),
    open_browser: bool = typer.Option(False, "--open", help="Open the admin page in a browser."),
) -> None:
    """Serve a study to assessors in the browser and collect their judgments (in STUDY/server.sqlite).

    Shows the admin link on a terminal (else writes it to STUDY/admin-link.txt, readable by you only,
    so that tokens stay out of logs); the admin page lists every assessor's link, shows progress and
    downloads judgments.jsonl for `wikihowqa analyze`. Stop with Ctrl+C; starting again resumes the study.
    """
    from wikihowqa.humaneval.app import ServerSettings, serve  # heavy: FastAPI, uvicorn and pydantic

    settings = ServerSettings(
        admin_token=admin_token or None,
        base_url=base_url,
        crowd=crowd,
        items_per_assessor=items_per_assessor,
        completion_url=completion_url,
        durable=durable,
    )
    serve(
        study_dir,
        host=host,
        port=port,
        settings=settings,
        open_browser=open_browser,
        say=lambda line: out.print(line, soft_wrap=True, highlight=False),  # links must stay whole
    )


@app.command("export-judgments")
def export_command(
    study_dir: Path = typer.Argument(..., help="Study folder the server ran on."),
    out_file: Annotated[Path | None, out_option("the judgments", "STUDY/judgments.jsonl")] = None,
    overwrite: Overwrite = False,
) -> None:
    """Write the judgments collected by `wikihowqa serve` as judgments.jsonl (what `analyze` reads)."""
    from wikihowqa.humaneval.app.export import export_judgments  # heavy: numpy, pydantic

    target = out_file or study_dir / "judgments.jsonl"
    n = export_judgments(study_dir, target, overwrite=overwrite)
    console.print(f"{n} judgments → {target}")
