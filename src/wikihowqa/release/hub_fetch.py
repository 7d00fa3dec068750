"""The QA part of a release on the Hugging Face Hub, fetched as plain files with ``huggingface_hub``.

A dataset repository may hold its QA part twice: the original JSONL on ``main`` and the Hub's Parquet
conversion on ``refs/convert/parquet`` (``default/<split>/NNNN.parquet``, or
``default/<name>-<split>.parquet`` in older conversions). Only data files are fetched, so a loading
script in the repository is never run. ``snapshot_download`` resolves the revision to its commit, lists
the files there, downloads the ones asked for into the Hub cache (``HF_HOME``/``HF_HUB_CACHE``), and
serves the cached copy when the Hub cannot be reached (offline, ``HF_HUB_OFFLINE=1``); the snapshot
folder is named after the commit it holds.

Every way the fetch can fail is one :class:`~wikihowqa.core.errors.HubError` line naming the repository, the
revision and the cause.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from wikihowqa.core.errors import HubError

#: The original QA part on the repository's main branch (the official release's file name).
QA_JSONL = "WikiHowNFQA.jsonl"
#: The Hub's Parquet conversion (``fnmatch``: ``*`` also crosses ``/``, so both layouts match).
QA_PARQUET = "default/*.parquet"
DEFAULT_REVISION = "main"


@dataclass(frozen=True)
class HubFiles:
    """The QA files of one revision, fetched: where each is in the repository and in the cache."""

    repo_id: str
    revision: str  # as asked (a branch, tag or commit)
    commit: str  # the commit it resolved to
    endpoint: str
    form: str  # "jsonl" or "parquet"
    files: tuple[tuple[str, Path], ...]  # (path in the repository, local path), in repository order


def endpoint() -> str:
    """The Hub's address: ``HF_ENDPOINT`` as set when the command runs, else huggingface_hub's default."""
    from huggingface_hub import constants

    return (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def _offline() -> bool:
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)  # what huggingface_hub itself reads (set at its import)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


#: The HTTP libraries huggingface_hub has used (httpx2 in 2.x, httpx in 1.x, requests before).
_HTTP_LIBRARIES = frozenset({"httpx2", "httpx", "httpcore", "requests", "urllib3"})


def _is_fetch_error(exc: BaseException) -> bool:
    """Is ``exc`` the Hub's answer, the network, the disk or a bad repository id (not a bug)?"""
    from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError, HFValidationError

    known = (HfHubHTTPError, EntryNotFoundError, HFValidationError, OSError, ConnectionError, TimeoutError)
    return isinstance(exc, known) or type(exc).__module__.split(".")[0] in _HTTP_LIBRARIES


def _cause(exc: BaseException, where: str, cache: str) -> str:
    """Why the fetch failed, in one clause (huggingface_hub's own messages run to several lines)."""
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        IncompleteSnapshotError,
        LocalEntryNotFoundError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    if isinstance(exc, GatedRepoError):
        return f"the repository is gated on {where}: accept its terms and log in (hf auth login)"
    if isinstance(exc, RepositoryNotFoundError):
        return f"no such dataset repository on {where} (or it is private: log in with hf auth login)"
    if isinstance(exc, RevisionNotFoundError):
        return (
            f"no such revision on {where} (a branch, tag or commit; the Parquet conversion is "
            "refs/convert/parquet)"
        )
    if isinstance(exc, IncompleteSnapshotError):
        return f"the Hub at {where} cannot be reached and the cached copy in {cache} is incomplete"
    if isinstance(exc, LocalEntryNotFoundError):
        reason = exc.__cause__
        if isinstance(reason, OfflineModeIsEnabled) or (reason is None and _offline()):
            return f"offline (HF_HUB_OFFLINE is set) and no cached copy of this revision in {cache}"
        why = _first_line(reason) if reason is not None else "the Hub cannot be reached"
        return f"cannot reach {where} ({why}) and no cached copy of this revision in {cache}"
    if isinstance(exc, HfHubHTTPError):
        status = getattr(exc.response, "status_code", None) if exc.response is not None else None
        return f"{where} answered HTTP {status}" if status else f"{where}: {_first_line(exc)}"
    return f"{where}: {_first_line(exc)}"


def fetch_qa(repo_id: str, revision: str | None = None, *, cache_dir: Path | None = None) -> HubFiles:
    """Download the QA part of ``repo_id`` at ``revision`` (default ``main``): its JSONL if the revision
    has one, else its Parquet conversion. Raises :class:`HubError` (one line) on any failure."""
    from huggingface_hub import constants, snapshot_download

    revision = revision or DEFAULT_REVISION
    where = endpoint()
    cache = str(cache_dir or constants.HF_HUB_CACHE)
    name = f"{repo_id} (revision {revision})"
    try:
        folder = Path(
            snapshot_download(
                repo_id,
                repo_type="dataset",
                revision=revision,
                allow_patterns=[QA_JSONL, QA_PARQUET],
                endpoint=where,
                cache_dir=cache_dir,
            )
        )
    except Exception as exc:
        from huggingface_hub.errors import HFValidationError

        if not _is_fetch_error(exc):
            raise  # a bug, not the network or the input: keep its traceback
        if isinstance(exc, OSError) and exc.errno is not None:
            raise  # the disk (the cache folder): the CLI names the path and the OS error
        if isinstance(exc, HFValidationError):
            raise HubError(f"{repo_id!r}: not a Hub repository id ({_first_line(exc)})") from None
        raise HubError(f"{name}: {_cause(exc, where, cache)}") from None
    commit = folder.name
    jsonl = folder / QA_JSONL
    parquet = sorted(p for p in (folder / "default").rglob("*.parquet") if p.is_file())
    if jsonl.is_file():
        form, found = "jsonl", [jsonl]
    elif parquet:
        form, found = "parquet", parquet
    else:
        raise HubError(
            f"{name}: commit {commit[:12]} holds neither {QA_JSONL} nor Parquet files under default/ "
            "(the Hub's Parquet conversion is on --revision refs/convert/parquet)"
        )
    return HubFiles(
        repo_id=repo_id,
        revision=revision,
        commit=commit,
        endpoint=where,
        form=form,
        files=tuple((p.relative_to(folder).as_posix(), p) for p in found),
    )


__all__ = ["DEFAULT_REVISION", "QA_JSONL", "QA_PARQUET", "HubFiles", "endpoint", "fetch_qa"]
