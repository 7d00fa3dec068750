"""The collector's demo step: build the demo dataset from the replay site serving the embedded corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: A local site answers in milliseconds and never throttles: pace generously, retry quickly.
LOCAL_RATE = 200.0
#: The demo's dataset folder, under the demo's output folder.
DATASET = "dataset"


class FunnelMismatch(RuntimeError):
    """The build's funnel differs from the one the corpus was written to produce: a collector bug."""


def demo_step(ctx: Any) -> None:
    """Serve the corpus (``ctx.settings["corpus"]`` or the embedded one) and build ``ctx.out/"dataset"``."""
    from wikihowqa.collect.build import BuildSettings, build, parked_state
    from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, HttpSettings
    from wikihowqa.demo import corpus_path
    from wikihowqa.demo.run import fresh_folder, owned_folders
    from wikihowqa.replay import ReplaySite

    corpus = Path(ctx.settings.get("corpus") or corpus_path())
    expected = json.loads((corpus / "expected.json").read_text(encoding="utf-8"))
    http = HttpSettings(
        concurrency=8,
        rates={MEDIAWIKI: LOCAL_RATE, CDX: LOCAL_RATE, PLAYBACK: LOCAL_RATE},
        timeout_s=10.0,
        retries=3,
        backoff_s=0.05,
        backoff_max_s=1.0,
        throttle_backoff_s=0.1,
        throttle_pause_s=1.0,
        contact="wikihowqa demo (local replay site)",
    )
    # A rerun rebuilds from scratch: an earlier run's dataset also holds what later steps added (the
    # split's audit.json and cache/), which a build refuses to write over, and its build state may come
    # from another corpus. A dataset folder the demo did not create is left to the build's own checks.
    ours = DATASET in owned_folders(Path(ctx.out))
    target = fresh_folder(Path(ctx.out), DATASET)
    if ours:
        parked_state(target).unlink(missing_ok=True)  # left by a run killed while publishing
    with ReplaySite(corpus) as site:
        settings = BuildSettings(api_url=site.mediawiki_url, wayback_url=site.wayback_url, http=http)
        result = build(target, settings)
    manifest = result.manifest
    got = {**manifest["funnel"], "rejections": manifest["rejections"]}
    want = {key: expected[key] for key in ("articles", "references", "rejections")}
    if got != want:
        raise FunnelMismatch(f"the build's funnel {got} differs from {corpus / 'expected.json'}: {want}")
    counts = manifest["counts"]
    refs = manifest["funnel"]["references"]
    ctx.record(
        "dataset built from the replay site (wikihowqa build)",
        result.folder.path,
        f"{counts['questions']} questions, {counts['documents']} documents "
        f"({refs['kept']} of {refs['unique_urls']} cited pages kept; funnel = expected.json)",
    )
