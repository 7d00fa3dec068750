"""``hydrate`` against a hostile archive: a gzip bomb is stopped at the size cap as its bytes arrive and filed
as ``too_large`` for good; a ``Retry-After`` of a day defers one capture instead of stalling the run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import wikihowqa
from tests.collect.playback_stub import Answer, PlaybackStub, gzip_bomb, page
from wikihowqa.release.importer import import_release

#: The child imports the same wikihowqa the tests do (a worktree's PYTHONPATH, or the installed package).
SOURCE = Path(wikihowqa.__file__).resolve().parents[1]
TS = "20200101000000"
OK, BOMB, LATER = "https://ok.example/beans", "https://bomb.example/beans", "https://later.example/beans"
#: 1,500 MiB of zeros as a 1.5 MB gzip member: what the hostile test served.
BOMB_MIB = 1500

#: Hydrates ``argv[1]`` from the stub at ``argv[2]`` in a process of its own and prints its own peak RSS
#: (``VmHWM``: this process's, not the parent's that ``ru_maxrss`` carries across exec) and the statuses.
CHILD = """
import json, re, sys
from pathlib import Path
from wikihowqa.collect.archive_settings import ArchiveSettings
from wikihowqa.collect.http import HttpSettings
from wikihowqa.release.hydrate import HydrateSettings, hydrate
http = HttpSettings(concurrency=2, rates={}, retries=1, backoff_s=0.01, timeout_s=120.0)
archive = ArchiveSettings(playback_url=sys.argv[2], cdx_url=sys.argv[3])
hydrate(Path(sys.argv[1]), HydrateSettings(archive, http=http))
status = Path("/proc/self/status").read_text()
peak_kb = int(re.search(r"^VmHWM:\\s+(\\d+) kB", status, re.MULTILINE).group(1))
print(json.dumps({"peak_rss_mb": peak_kb / 1024}))
"""


def dataset(folder: Path, *urls: str) -> Path:
    qa = folder.parent / f"{folder.name}-qa.jsonl"
    row = {
        "article_id": 1,
        "question": "How to Cook Beans",
        "answer": "Soak them, then simmer.",
        "related_document_urls_wayback_snapshots": [f"http://web.archive.org/web/{TS}/{u}" for u in urls],
        "split": "test",
    }
    qa.write_text(json.dumps(row) + "\n", encoding="utf-8")
    import_release([qa], [], folder)
    return folder


def statuses(folder: Path) -> dict[str, dict]:
    lines = (folder / "hydration" / "status.jsonl").read_text().splitlines()
    return {row["url"]: row for row in map(json.loads, lines)}


def hydrate_in_a_process(folder: Path, stub: PlaybackStub) -> float:
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), stub.playback_url, stub.cdx_url],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    print(done.stdout)
    return float(json.loads(done.stdout.strip().splitlines()[-1])["peak_rss_mb"])


@pytest.mark.slow
def test_a_gzip_bomb_is_stopped_at_the_cap_as_it_arrives_filed_too_large_and_never_fetched_again(tmp_path):
    bomb = gzip_bomb(BOMB_MIB)
    assert len(bomb) < 2_000_000  # 1.5 MB on the wire ...
    headers = {"Content-Encoding": "gzip"}
    with PlaybackStub() as stub:
        stub.script(OK, Answer(200, page("Beans")))
        stub.script(BOMB, Answer(200, bomb, headers))
        folder = dataset(tmp_path / "ds", OK, BOMB)
        peak_mb = hydrate_in_a_process(folder, stub)
        assert peak_mb < 300, f"hydrate peaked at {peak_mb:.0f} MB"  # ... 1,573 MB inflated
        rows = statuses(folder)
        assert rows[OK]["status"] == "kept"
        assert rows[BOMB]["status"] == "too_large", rows[BOMB]
        assert "gzip-decoded body past the 20,000,000-byte cap" in rows[BOMB]["detail"]
        funnel = json.loads((folder / "manifest.json").read_text())["hydrate"]["funnel"]
        assert funnel["rejections"]["too_large"] == 1 and funnel["rejections"]["empty_text"] == 0
        assert stub.hits[BOMB] == 1  # stopped, not retried
        hydrate_in_a_process(folder, stub)  # a rerun resumes: the bomb is an answer, not a failure
        assert stub.hits[BOMB] == 1 and statuses(folder)[BOMB]["status"] == "too_large"


def test_a_retry_after_of_a_day_defers_its_capture_and_the_next_run_asks_again(tmp_path):
    from wikihowqa.collect.archive_settings import ArchiveSettings
    from wikihowqa.collect.http import HttpSettings
    from wikihowqa.release.hydrate import HydrateSettings, hydrate

    events: list[str] = []

    class Recording:
        def phase(self, name: str, total: int | None) -> None:
            pass

        def advance(self, name: str, n: int = 1) -> None:
            pass

        def event(self, message: str) -> None:
            events.append(message)

    with PlaybackStub() as stub:
        stub.script(OK, Answer(200, page("Beans")))
        stub.script(LATER, Answer(503, b"busy", {"Retry-After": "100000"}), Answer(200, page("Later")))
        folder = dataset(tmp_path / "ds", OK, LATER)
        archive = ArchiveSettings(playback_url=stub.playback_url, cdx_url=stub.cdx_url)
        # Retries allowed: the old client slept min(100000, 3600) s here before asking again.
        settings = HydrateSettings(archive, http=HttpSettings(rates={}, retries=2, backoff_s=0.01))
        done: list = []
        worker = threading.Thread(
            target=lambda: done.append(hydrate(folder, settings, reporter=Recording())), daemon=True
        )
        worker.start()
        worker.join(60)
        assert done, "hydrate still waiting after 60 s on one capture's Retry-After"
        first = done[0]
        row = statuses(folder)[LATER]
        assert row["status"] == "deferred" and "Retry-After 100000 s, over the 300 s cap" in row["detail"]
        assert first.hydration.funnel["rejections"]["deferred"] == 1 and stub.hits[LATER] == 1
        assert any("deferred to a later run" in e and LATER in e for e in events), events
        again = hydrate(folder, settings)  # the archive answers now: no --retry-failed needed
        assert statuses(folder)[LATER]["status"] == "kept" and stub.hits[LATER] == 2
        assert again.hydration.funnel["urls"]["kept"] == 2 and stub.hits[OK] == 1
