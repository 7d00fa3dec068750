"""``wikihowqa replay-site``: serve a corpus folder as a local wikiHow + Wayback Machine."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import PORT_DEFAULT, Port, seed_option
from wikihowqa.cli._signals import stopped_by_signals
from wikihowqa.core.errors import SettingsError
from wikihowqa.demo.paths import corpus_path

_YES = {"yes", "true", "on", "1"}
_NO = {"no", "false", "off", "0"}


def _yes_no(value: str) -> bool:
    word = value.lower()
    if word not in _YES | _NO:
        raise ValueError(value)
    return word in _YES


# option name -> (EndpointFaults field, converter)
_FLAGS = {
    "latency": ("latency_s", float),
    "jitter": ("jitter_s", float),
    "throttle": ("throttle_p", float),
    "throttle_every": ("throttle_every", int),
    "retry_after": ("retry_after_s", lambda v: None if v.lower() == "none" else int(v)),
    "error": ("error_p", float),
    "error_every": ("error_every", int),
    "error_status": ("error_status", int),
    "drop": ("drop_p", float),
    "drop_every": ("drop_every", int),
    "truncate": ("truncate_p", float),
    "truncate_every": ("truncate_every", int),
    "rate_limit": ("rate_limit", float),
    "burst": ("burst", int),
    "rate_limit_retry_after": ("rate_limit_retry_after", _yes_no),
}


def _announce(site: Any, folder: Path, settings: dict[str, dict[str, object]]) -> None:
    """Where the site serves, its faults, and how to stop it."""
    # Paths and the "[cdx]" group labels are text, not rich markup.
    out.print(f"[bold]replay site[/] serving {escape(str(folder))}", highlight=False)
    lines = [
        f"  MediaWiki API   {site.mediawiki_url}",
        f"  Wayback CDX     {site.cdx_url}",
        f"  Wayback base    {site.wayback_url}   (playback: /web/<timestamp>id_/<url>)",
        f"  Memento         TimeGate {site.url}/web/<url>, TimeMap {site.url}/web/timemap/link/<url>",
        f"  counters        {site.url}/__stats",
    ]
    lines += [
        f"  faults [{scope}]  " + ", ".join(f"{k}={v}" for k, v in values.items())
        for scope, values in sorted(settings.items())
    ]
    for line in lines:
        out.print(line, markup=False, highlight=False)
    out.print("Press Ctrl-C to stop.", highlight=False)


def _opt(help_text: str) -> list[str]:
    return typer.Option([], help=help_text, metavar="[GROUP=]V", show_default=False, rich_help_panel="Faults")


#: The shared ``--seed`` (one meaning in every command), shown among the fault options it seeds.
_SEED = seed_option("the random faults")
_SEED.rich_help_panel = "Faults"


@app.command("replay-site")
def replay_site_command(
    corpus: Path = typer.Option(
        None, "--corpus", help="Rendered corpus folder to serve (default: the embedded demo corpus)."
    ),
    port: Port = PORT_DEFAULT,
    archive_style: str = typer.Option(
        "ia",
        "--archive-style",
        help="Answer as the Internet Archive ('ia') or as pywb 2.10 ('pywb': CDX at /web/cdx in pywb's "
        "dialect, fuzzy non-200 rows, redirect captures pointing at the live web).",
    ),
    latency: list[str] = _opt("Seconds of delay added to every response."),
    jitter: list[str] = _opt("Up to this many extra seconds of uniformly random delay."),
    throttle: list[str] = _opt("Probability of answering 429 Too Many Requests."),
    throttle_every: list[str] = _opt("Answer 429 to every Nth request."),
    retry_after: list[str] = _opt(
        "Retry-After seconds sent with injected 429s ('none': no header, the default)."
    ),
    error: list[str] = _opt("Probability of answering a 5xx error."),
    error_every: list[str] = _opt("Answer a 5xx error to every Nth request."),
    error_status: list[str] = _opt("Status code of injected errors (default 503)."),
    drop: list[str] = _opt("Probability of closing the connection without any response."),
    drop_every: list[str] = _opt("Close the connection without a response on every Nth request."),
    truncate: list[str] = _opt(
        "Probability of sending half the body under the full Content-Length, then closing."
    ),
    truncate_every: list[str] = _opt("Truncate the body of every Nth response."),
    rate_limit: list[str] = _opt("Token-bucket rate limit in requests/s; requests above it get 429."),
    burst: list[str] = _opt("Token-bucket size (requests allowed at once) of the rate limit (default 1)."),
    rate_limit_retry_after: list[str] = _opt(
        "Send Retry-After (seconds until a token is free) with rate-limit 429s: yes (the default) or no."
    ),
    lag: float = typer.Option(
        0.0, "--lag", help="Replica lag (s) /api.php reports to maxlag.", rich_help_panel="Faults"
    ),
    seed: Annotated[int, _SEED] = 0,
) -> None:
    """Serve a corpus as wikiHow's MediaWiki API (/api.php) and the Wayback Machine (/cdx/search/cdx,
    /web/<timestamp>id_/<url>) on 127.0.0.1 until Ctrl-C.

    Fault options take V for every endpoint group, or GROUP=V for one of mediawiki, cdx, playback;
    repeat them to set several groups. Example: --rate-limit cdx=0.4 --latency 0.2 --throttle-every cdx=10
    """
    # heavy: aiohttp and surt, through the replay site's server and corpus (~0.5 s on every command's
    # start-up if global)
    from wikihowqa.replay import Faults, ReplaySite
    from wikihowqa.replay.faults import parse_scoped

    given = dict(locals())
    if archive_style not in ("ia", "pywb"):
        raise SettingsError(f"--archive-style must be ia or pywb, got {archive_style!r}")
    settings: dict[str, dict[str, object]] = {}
    for option, (field_name, convert) in _FLAGS.items():
        for scope, value in parse_scoped(f"--{option.replace('_', '-')}", given[option], convert).items():
            settings.setdefault(scope, {})[field_name] = value
    if lag:
        settings.setdefault("mediawiki", {})["lag_s"] = lag
    faults = Faults.from_settings(settings, seed=seed)
    folder = corpus or corpus_path()
    with (
        stopped_by_signals(),
        ReplaySite(folder, faults=faults, port=port, archive_style=archive_style) as site,
    ):
        try:  # from here on, Ctrl-C stops the site cleanly (also while the lines below are printed)
            _announce(site, folder, settings)
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            stats = site.stats()
            served = ", ".join(f"{g} {stats[g]['requests']}" for g in ("mediawiki", "cdx", "playback"))
            console.print(f"stopped; requests served: {served}", markup=False, highlight=False)
