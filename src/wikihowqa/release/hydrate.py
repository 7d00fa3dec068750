"""``hydrate``: a published release's document part, rebuilt from the Wayback snapshot URLs its QA part names.

Every QA row of WikiHowNFQA names its documents exactly (``related_document_urls_wayback_snapshots``:
``http://web.archive.org/web/<timestamp>/<original url>``). Hydration is the collector's reference phase and
parse phase run on those names instead of on a wiki's citations: the same capture rule and verification
(:mod:`wikihowqa.collect.captures`, by default its ``playback`` method, which asks for the named capture's
raw bytes ``<timestamp>id_/<url>`` first and the CDX server only when that cannot tell), the same polite
client, the same resumable state store (``hydration/build.sqlite``), the same parse stage and rejection
reasons. What is its own: the archive may serve another capture than the one named (the Internet Archive
serves the closest when the named one is gone); the capture served is recorded with its distance from the
named one, and refused beyond ``max_shift_s`` (:data:`CAPTURE_TOO_FAR`). Whether a capture is refused is
decided when the output is assembled, so a rerun with another ``--max-shift`` asks the archive nothing.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikihowqa import __version__
from wikihowqa.collect.archive_queries import seconds
from wikihowqa.collect.archive_settings import ArchiveSettings
from wikihowqa.collect.documents import StoredVerdicts, make_documents
from wikihowqa.collect.funnel import UNANSWERED, final_status, parsed_document
from wikihowqa.collect.http import HttpClient, HttpSettings
from wikihowqa.collect.outcomes import (
    DEFERRED,
    EMPTY_BODY,
    FETCH_FAILED,
    FETCHED,
    KEPT,
    NON_HTML,
    NOT_CONFIRMED,
    NOT_FOUND,
    REFERENCE_REJECTIONS,
)
from wikihowqa.collect.progress import QuietReporter, Reporter
from wikihowqa.collect.references import fetch_tasks, forget_failed
from wikihowqa.collect.store import STATE_FILE, StateStore, StoredResults
from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.core.files import write_json
from wikihowqa.core.records import Document, Example
from wikihowqa.dataset.folder import MANIFEST_FILE, DatasetFolder
from wikihowqa.dataset.writers import write_documents, write_jsonl
from wikihowqa.parse import ParseSettings
from wikihowqa.release.coverage import Tally
from wikihowqa.release.plan import Plan, plan
from wikihowqa.release.snapshot_urls import NamedCapture

HYDRATION_DIR = "hydration"
STATUS_FILE = "status.jsonl"
QUESTIONS_FILE = "questions.jsonl"
#: A release value that names no capture (no ``/<timestamp>/<url>``): nothing to ask the archive for.
NOT_A_SNAPSHOT_URL = "not_a_snapshot_url"
#: The archive served another capture than the one named, further from it than ``--max-shift``.
CAPTURE_TOO_FAR = "capture_too_far"
#: Every reason a named capture yields no document, in funnel order.
_PARSED_FROM = REFERENCE_REJECTIONS.index(EMPTY_BODY)
HYDRATE_REJECTIONS = (
    NOT_A_SNAPSHOT_URL,
    *REFERENCE_REJECTIONS[:_PARSED_FROM],
    CAPTURE_TOO_FAR,
    *REFERENCE_REJECTIONS[_PARSED_FROM:],
)
#: 90 days: a page archived within a season of the named capture almost always holds the same text; the
#: Internet Archive serves captures years away when the named one is gone, which are refused.
DEFAULT_MAX_SHIFT_S = 90 * 86400.0
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "y": 365 * 86400}


def parse_shift(value: str | float) -> float:
    """``--max-shift``: seconds, or a number with a unit (``3600s``, ``12h``, ``90d``, ``1y``)."""
    if isinstance(value, (int, float)):
        number, unit = float(value), "s"
    else:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdy]?)\s*", value.lower())
        if not m:
            raise SettingsError(f"max-shift must be a duration like 0, 3600s, 12h, 90d or 1y, got {value!r}")
        number, unit = float(m.group(1)), m.group(2) or "s"
    if number < 0:
        raise SettingsError(f"max-shift must be >= 0, got {value!r}")
    return number * _UNITS[unit]


@dataclass(frozen=True)
class HydrateSettings:
    """Where the archive is, how politely to ask it, how far a served capture may be from the named one."""

    archive: ArchiveSettings = field(default_factory=ArchiveSettings)
    max_shift_s: float = DEFAULT_MAX_SHIFT_S
    retry_failed: bool = False
    http: HttpSettings = field(default_factory=HttpSettings)

    def __post_init__(self) -> None:
        if self.max_shift_s < 0:
            raise SettingsError(f"max-shift must be >= 0 seconds, got {self.max_shift_s}")
        if self.archive.lookup is None and self.archive.archive_lookup == "cdx":
            # The named capture's own playback first: one request per URL at the playback rate (8/s at
            # the Internet Archive) instead of a CDX query at 0.4/s; the CDX server decides the rest.
            object.__setattr__(self, "archive", replace(self.archive, lookup="playback"))

    @property
    def parse(self) -> ParseSettings:
        """Each named capture is parsed alone: the release names every page it used; the parser's size
        limit is the client's, so a body the client kept is never refused for its size."""
        return ParseSettings(pagination="flag", max_bytes=self.http.max_body_bytes)

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.archive.as_dict(),
            "max_shift_s": self.max_shift_s,
            "parse": self.parse.as_dict(),
            "http": self.http.as_dict(),
        }


# --------------------------------------------------------------------------- assembling


@dataclass(frozen=True, slots=True)
class DocumentRef:
    """A recovered document, its text left in the state store (the ``document`` result ``result_key``)
    until it is written: a hydration of any size holds no texts in memory."""

    article_id: int
    archive_url: str  # as the release names it
    url: str
    result_key: str  # the served capture's address: the key of its ``document`` result
    extra: dict[str, Any]

    def document(self, result: dict[str, Any]) -> Document:
        first = {"capture": self.extra["capture"]}
        redirects = self.extra.get("redirects")
        return parsed_document(result, self.article_id, self.url, self.archive_url, redirects, first)


@dataclass(frozen=True)
class Hydration:
    """What the output files add up to; the rows themselves are written as they are decided."""

    funnel: dict[str, Any]
    tally: Tally


def _served(capture: NamedCapture, outcome: dict[str, Any]) -> dict[str, Any]:
    if not outcome.get("timestamp"):
        return {}
    shift = abs(seconds(outcome["timestamp"]) - seconds(capture.timestamp))
    return {
        "served_timestamp": outcome["timestamp"],
        "shift_s": shift,
        "served_url": outcome.get("archive_url"),
    }


def status_of(
    capture: NamedCapture, outcome: dict[str, Any], parsed: Mapping[str, dict[str, Any]], max_shift_s: float
) -> dict[str, Any]:
    """What became of one named capture: its reason (or ``kept``), the capture served and its shift.
    ``parsed`` needs only each parse's verdict (``rejection``, ``detail``); it is asked once."""
    row: dict[str, Any] = {
        "archive_url": capture.archive_url,
        "url": capture.url,
        "timestamp": capture.timestamp,
        **({"partial_timestamp": capture.named_timestamp} if capture.partial else {}),
        **_served(capture, outcome),
    }
    verdict = parsed.get(outcome["archive_url"]) if outcome["status"] == FETCHED else None
    status = final_status(outcome, {outcome["archive_url"]: verdict} if verdict is not None else {})
    if outcome["status"] == FETCHED and row["shift_s"] > max_shift_s:
        status = CAPTURE_TOO_FAR
        named = f"the middle of {capture.named_timestamp}" if capture.partial else "the named one"
        row["detail"] = f"served the capture of {outcome['timestamp']}, {_days(row['shift_s'])} from {named}"
    elif outcome["status"] == FETCHED and status != KEPT:
        doc = verdict or {}
        row["detail"] = (
            doc.get("detail")
            if doc.get("rejection") == status
            else f"{doc.get('rejection')}: {doc.get('detail')}"
        )
    elif outcome.get("detail"):
        row["detail"] = outcome["detail"]
    for key in ("failed_at", "redirects"):
        if outcome.get(key):
            row[key] = outcome[key]
    row["status"] = status
    return row


def _days(shift_s: float) -> str:
    return f"{shift_s / 86400:.1f} days" if shift_s >= 86400 else f"{shift_s:.0f} s"


#: Reasons a capture is not a verified one within the shift (the funnel's exact + shifted count the rest).
_UNVERIFIED = frozenset(
    {CAPTURE_TOO_FAR, NOT_A_SNAPSHOT_URL, FETCH_FAILED, DEFERRED, *NOT_FOUND, *NOT_CONFIRMED}
)


@dataclass
class _FunnelCounts:
    """The funnel's running counts, fed one status row and one question row at a time."""

    values: Counter[str] = field(default_factory=Counter)
    lookup_failed: int = 0
    exact: int = 0
    shifted: int = 0
    questions: Counter[str] = field(default_factory=Counter)

    def add_url(self, row: dict[str, Any]) -> None:
        self.values[row["status"]] += 1
        self.lookup_failed += row["status"] in UNANSWERED and row.get("failed_at") in ("cdx", "memento")
        if row["status"] not in _UNVERIFIED and "shift_s" in row:
            self.exact += row["shift_s"] == 0
            self.shifted += row["shift_s"] > 0

    def add_question(self, row: dict[str, Any]) -> None:
        self.questions["total"] += 1
        self.questions["all_recovered"] += row["recovered"] == row["named"]
        self.questions["some_recovered"] += 0 < row["recovered"] < row["named"]
        self.questions["none_recovered"] += row["recovered"] == 0


def assemble(
    examples: Sequence[Example],
    the_plan: Plan,
    outcomes: Mapping[str, dict[str, Any]],
    parsed: Mapping[str, dict[str, Any]],
    max_shift_s: float,
    folder: Path,
) -> tuple[Hydration, dict[str, str]]:
    """Write the status of each release URL (``folder/status.jsonl``) and the recovered count of each
    question (``questions.jsonl``) as each is decided, counting the funnel and the coverage on the way;
    deterministic for the same inputs. Returns those counts and each release value's status (a shared
    constant: the one thing held per URL), which :func:`document_refs` places the documents by."""
    counts, tally = _FunnelCounts(), Tally()
    status: dict[str, str] = {}
    first: dict[str, str] = {}  # capture identity → the first value naming it: only that one is counted

    def counted(row: dict[str, Any]) -> dict[str, Any]:
        row["cited_by"] = the_plan.cited_by[row["archive_url"]]
        status[row["archive_url"]] = row["status"]
        identity = the_plan.identity(row["archive_url"])
        if first.setdefault(identity, row["archive_url"]) != row["archive_url"]:
            row["same_capture_as"] = first[identity]
            return row
        counts.add_url(row)
        tally.add_url(row)
        return row

    def rows() -> Iterator[dict[str, Any]]:
        for capture in the_plan.named:
            yield counted(status_of(capture, outcomes[capture.task.key], parsed, max_shift_s))
        for value in the_plan.unusable:
            row = {
                "archive_url": value,
                "status": NOT_A_SNAPSHOT_URL,
                "detail": "no /<timestamp>/<url> in it",
            }
            yield counted(row)

    def questions() -> Iterator[dict[str, Any]]:
        for example in examples:
            recovered = 0
            lost: dict[str, int] = {}
            values = the_plan.cited(example)
            for value in values:
                if status[value] != KEPT:
                    lost[status[value]] = lost.get(status[value], 0) + 1
                else:
                    recovered += 1
            row = {
                "article_id": example.article_id,
                "named": len(values),
                "recovered": recovered,
                "lost": lost,
            }
            counts.add_question(row)
            tally.add_question(row)
            yield row

    write_jsonl(folder / STATUS_FILE, rows())
    write_jsonl(folder / QUESTIONS_FILE, questions())
    return Hydration(funnel(the_plan, counts), tally), status


def document_refs(
    examples: Sequence[Example],
    the_plan: Plan,
    outcomes: Mapping[str, dict[str, Any]],
    status: Mapping[str, str],
    max_shift_s: float,
) -> Iterator[DocumentRef]:
    """The recovered documents, per question, in the order its row names them, one at a time; a capture
    the row names twice (or spells two ways) is one document."""
    for example in examples:
        for value in the_plan.cited(example):
            capture = the_plan.capture(value)
            if status[value] != KEPT or capture is None:
                continue
            outcome = outcomes[capture.task.key]
            served = _served(capture, outcome)
            extra: dict[str, Any] = {
                "capture": {
                    "timestamp": served["served_timestamp"],
                    "shift_s": served["shift_s"],
                    "archive_url": served["served_url"],
                    **({"partial_timestamp": capture.named_timestamp} if capture.partial else {}),
                }
            }
            if outcome.get("redirects"):
                extra["redirects"] = outcome["redirects"]
            yield DocumentRef(example.article_id, value, capture.url, outcome["archive_url"], extra)


def funnel(the_plan: Plan, counts: _FunnelCounts) -> dict[str, Any]:
    """URLs named → unique → snapshot URLs → captured → verified → within the shift → parsed → kept; the
    captures served exactly, shifted (accepted), refused and missing; every rejection reason counted."""
    values = counts.values
    lookup_failed = counts.lookup_failed
    unique = sum(values.values())
    snapshot_urls = unique - values[NOT_A_SNAPSHOT_URL]
    captured = snapshot_urls - sum(values[r] for r in NOT_FOUND) - lookup_failed
    unanswered = values[FETCH_FAILED] + values[DEFERRED]
    verified = captured - (unanswered - lookup_failed) - sum(values[r] for r in NOT_CONFIRMED)
    within = verified - values[CAPTURE_TOO_FAR]
    non_empty = within - values[EMPTY_BODY]
    html = non_empty - values[NON_HTML]
    return {
        "urls": {
            "named": the_plan.citations,
            "unique": unique,
            "snapshot_urls": snapshot_urls,
            "captured": captured,
            "verified": verified,
            "within_max_shift": within,
            "non_empty": non_empty,
            "html": html,
            "kept": values[KEPT],
        },
        "captures": {
            "exact": counts.exact,
            "shifted": counts.shifted,
            "refused": values[CAPTURE_TOO_FAR],
            "missing": sum(values[r] for r in NOT_FOUND),
        },
        "questions": {
            k: counts.questions[k] for k in ("total", "all_recovered", "some_recovered", "none_recovered")
        },
        "rejections": {reason: values[reason] for reason in HYDRATE_REJECTIONS},
    }


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class HydrateResult:
    folder: DatasetFolder
    hydration: Hydration
    manifest: dict[str, Any]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def _fetch(
    settings: HydrateSettings, store: StateStore, the_plan: Plan, reporter: Reporter, *, network: bool
) -> tuple[Mapping[str, dict[str, Any]], Mapping[str, dict[str, Any]], dict[str, Any]]:
    workers = settings.http.concurrency
    async with HttpClient(settings.http, cache=store, on_event=reporter.event) as http:
        finder = settings.archive.finder(http)
        tasks = the_plan.tasks
        outcomes: Mapping[str, dict[str, Any]]
        if network:
            outcomes = await fetch_tasks(finder, store, tasks, 2 * workers, reporter) if tasks else {}
        else:
            absent = {"status": FETCH_FAILED, "failed_at": "warc", "detail": "not in the WARC files"}
            outcomes = StoredResults(store, "reference", (t.key for t in tasks), missing=absent)
        # Each capture is parsed alone (pagination flagged, never fetched): the finder asks nothing here.
        stored = await make_documents(finder, store, outcomes, settings.parse, 2 * workers, reporter)
        # each verdict read from the store when a capture is placed: neither texts nor verdicts held
        return outcomes, StoredVerdicts(stored), http.stats_dict()


def _parse_of(store: StateStore, key: str) -> dict[str, Any]:
    result = store.get_result("document", key)
    if not isinstance(result, dict):
        raise DatasetError(f"{store.path}: the parse of {key} is missing; run the same command again")
    return result


def state_path(out: Path) -> Path:
    return Path(out) / HYDRATION_DIR / STATE_FILE


def hydrate(
    dataset: Path,
    settings: HydrateSettings,
    *,
    out: Path | None = None,
    warc_dir: Path | None = None,
    from_warc: Path | None = None,
    overwrite: bool = False,
    reporter: Reporter | None = None,
) -> HydrateResult:
    """Hydrate ``dataset``'s QA part into ``out`` (default: the dataset itself); rerunning after an
    interruption resumes from ``hydration/build.sqlite``."""
    from wikihowqa.release import coverage, warc_files  # warcio and matplotlib only where used

    reporter = reporter or QuietReporter()
    source = DatasetFolder(Path(dataset))
    examples = source.examples()
    target = Path(out) if out is not None else source.path
    _check_target(source, target, overwrite)
    the_plan = plan(examples)
    store = StateStore(state_path(target))
    try:
        runs = int(store.get_meta("runs") or 0) + 1
        store.set_meta("runs", str(runs))
        started = store.get_meta("started") or _now()
        store.set_meta("started", started)
        if from_warc is not None:
            files = warc_files.warc_paths(from_warc)
            store.forget_other_archive("warc:" + ",".join(f"{p.name}:{p.stat().st_size}" for p in files))
            warc_files.load_warc(store, files, reporter)
        else:
            store.forget_other_archive(settings.archive.key)
            if settings.retry_failed:
                forget_failed(store)
        outcomes, parsed, http_stats = asyncio.run(
            _fetch(settings, store, the_plan, reporter, network=from_warc is None)
        )
        hydration, status = assemble(
            examples, the_plan, outcomes, parsed, settings.max_shift_s, target / HYDRATION_DIR
        )
        if warc_dir is not None:
            playback = settings.archive.endpoints.playback_url
            warc_files.write_warc(store, the_plan, outcomes, Path(warc_dir), playback)
        refs = document_refs(examples, the_plan, outcomes, status, settings.max_shift_s)
        documents = (ref.document(_parse_of(store, ref.result_key)) for ref in refs)
        target.mkdir(parents=True, exist_ok=True)
        write_documents(target / f"documents{source.qa_path.suffix}", documents)
    finally:
        store.close()
    report = coverage.write_report(target / HYDRATION_DIR, hydration.tally, hydration.funnel)
    manifest = {
        **source.manifest(),
        "hydrate": {
            "tool": {"name": "wikihowqa", "version": __version__},
            "dataset": str(source.path.resolve()),
            "source": {"warc": str(from_warc)}
            if from_warc is not None
            else {"archive": settings.archive.as_dict()},
            "settings": settings.as_dict(),
            "funnel": hydration.funnel,
            "coverage": report,
            "files": {
                "status": f"{HYDRATION_DIR}/{STATUS_FILE}",
                "questions": f"{HYDRATION_DIR}/{QUESTIONS_FILE}",
                "state": f"{HYDRATION_DIR}/{STATE_FILE}",
                **({"warc": str(warc_dir)} if warc_dir is not None else {}),
            },
            "dates": {"started": started, "finished": _now()},
            "run": {"http": http_stats, "runs": runs},
        },
    }
    folder = _publish(source, target, manifest)
    return HydrateResult(folder, hydration, manifest)


def _check_target(source: DatasetFolder, target: Path, overwrite: bool) -> None:
    """Refuse to replace documents a hydration did not write, and a folder of other files."""
    if target == source.path:
        # a hydration's own documents: its manifest says so, or (killed while publishing) its state is there
        hydrated = "hydrate" in source.manifest() or state_path(source.path).exists()
        try:
            has_documents = source.documents_path.stat().st_size > 0
        except DatasetError:
            has_documents = False
        if has_documents and not hydrated and not overwrite:
            raise DatasetError(
                f"{source.path}: already holds a document part; hydrate into --out FOLDER or pass --overwrite"
            )
        return
    if target.exists() and not target.is_dir():
        raise DatasetError(f"{target}: exists and is not a folder")
    if target.is_dir():
        ours = {HYDRATION_DIR, MANIFEST_FILE, source.qa_path.name, f"documents{source.qa_path.suffix}"}
        foreign = sorted(p.name for p in target.iterdir() if p.name not in ours)
        if foreign:
            raise DatasetError(f"{target}: holds files hydrate did not write ({', '.join(foreign[:5])})")


def _publish(source: DatasetFolder, target: Path, manifest: dict[str, Any]) -> DatasetFolder:
    """The status and question rows are written as they are decided (:func:`assemble`)."""
    if target != source.path:
        shutil.copyfile(source.qa_path, target / source.qa_path.name)
    write_json(target / MANIFEST_FILE, manifest)
    return DatasetFolder(target)
