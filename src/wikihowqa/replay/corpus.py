"""Read a rendered corpus folder (docs/demo-corpus.md) into typed records, validating as it goes.

The whole corpus is loaded into memory once (the demo corpus is a few MB): the site then answers from
dictionaries and never touches the disk while serving, so injected latency is the only latency. A corpus
too large for memory (paper-scale pages: gigabytes of snapshots) loads with ``lazy=True``: each snapshot is
read once for its digest and length, then again from disk whenever it is served.
A malformed corpus fails here with one line naming the file (and line) to fix.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import surt as _surt

from wikihowqa.core.errors import WikihowqaError


class CorpusError(WikihowqaError):
    """The corpus folder is missing or one of its files is malformed."""


@dataclass(frozen=True, slots=True)
class Revision:
    revid: int
    parentid: int
    timestamp: str  # ISO 8601, ``2016-04-02T10:00:00Z``
    user: str
    comment: str = ""
    minor: bool = False
    wikitext: str | None = None  # the corpus stores only the current text; older revisions replay it


@dataclass(frozen=True, slots=True)
class QuickSummary:
    pageid: int
    position: str
    last_sentence: str
    content: str
    timestamp: str


@dataclass(frozen=True, slots=True)
class WikiPage:
    pageid: int
    ns: int
    title: str
    wikitext: str
    revisions: tuple[Revision, ...]
    categories: tuple[str, ...] = ()
    redirect: str | None = None
    summary: QuickSummary | None = None


@dataclass(frozen=True, slots=True)
class Capture:
    """One archived capture, with the fields the CDX server derives (SURT key, digest, length)."""

    url: str
    timestamp: str  # 14 digits
    statuscode: str
    mimetype: str
    file: str | None
    headers: tuple[tuple[str, str], ...]
    location: str | None
    urlkey: str
    digest: str
    length: int
    playback: Playback | None = None  # how the archive plays it back, where that differs from the index


@dataclass(frozen=True, slots=True)
class Playback:
    """An archive whose playback disagrees with its CDX index, as real ones sometimes do: the capture is
    played back with another ``status``, without ``Memento-Datetime`` (``memento: false``: an error or
    notice page that is no capture), or as a plain redirect to ``location`` (an access notice elsewhere)."""

    status: int | None = None
    memento: bool = True
    location: str | None = None


@dataclass(frozen=True, slots=True)
class SiteInfo:
    sitename: str = "wikiHow (demo)"
    generator: str = "MediaWiki 1.39.3"
    lang: str = "en"
    articlepath: str = "/wiki/$1"
    project_namespace: str = "wikiHow"
    top_categories: tuple[str, ...] = ()
    category_parents: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    hidden_categories: frozenset[str] = frozenset()
    summary_namespace: str = "Summary"  # the name of namespace 30 (wikiHow: "Summary")


@dataclass(frozen=True)
class Corpus:
    site: SiteInfo
    pages: tuple[WikiPage, ...]
    captures: tuple[Capture, ...]
    snapshots: Mapping[str, bytes]
    path: Path | None = None


def surt_key(url: str) -> str:
    """The CDX ``urlkey`` of a URL, canonicalised as the Internet Archive does (IA's own ``surt``)."""
    return _surt.surt(url)


def sha1_base32(data: bytes) -> str:
    """The CDX ``digest``: base32 of the SHA-1 of the payload."""
    return base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


# --------------------------------------------------------------------------- field checks


def _need(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise CorpusError(f"{where}: missing field {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise CorpusError(f"{where}: field {key!r} must be {names}, got {type(value).__name__}")
    return value


def _opt(
    obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str, default: Any = None
) -> Any:
    if obj.get(key) is None:
        return default
    return _need(obj, key, kind, where)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError(f"{path}: file not found") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorpusError(f"{path}: not valid JSON ({exc})") from None


# --------------------------------------------------------------------------- readers


def read_site(path: Path) -> SiteInfo:
    raw = _read_json(path)
    where = str(path)
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: expected a JSON object")
    parents_raw = _opt(raw, "category_parents", dict, where, {})
    parents = {}
    for name, value in parents_raw.items():
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise CorpusError(f"{where}: category_parents[{name!r}] must be a list of names")
        parents[name] = tuple(value)
    defaults = SiteInfo()
    return SiteInfo(
        sitename=_opt(raw, "sitename", str, where, defaults.sitename),
        generator=_opt(raw, "generator", str, where, defaults.generator),
        lang=_opt(raw, "lang", str, where, defaults.lang),
        articlepath=_opt(raw, "articlepath", str, where, defaults.articlepath),
        project_namespace=_opt(raw, "project_namespace", str, where, defaults.project_namespace),
        top_categories=tuple(_opt(raw, "top_categories", list, where, [])),
        category_parents=parents,
        hidden_categories=frozenset(_opt(raw, "hidden_categories", list, where, [])),
        summary_namespace=_opt(raw, "summary_namespace", str, where, defaults.summary_namespace),
    )


def read_page(path: Path) -> WikiPage:
    raw = _read_json(path)
    where = str(path)
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: expected a JSON object")
    revisions = []
    for i, rev in enumerate(_need(raw, "revisions", list, where)):
        w = f"{where}: revisions[{i}]"
        if not isinstance(rev, dict):
            raise CorpusError(f"{w}: expected an object")
        revisions.append(
            Revision(
                revid=_need(rev, "revid", int, w),
                parentid=_opt(rev, "parentid", int, w, 0),
                timestamp=_need(rev, "timestamp", str, w),
                user=_opt(rev, "user", str, w, "DemoEditor"),
                comment=_opt(rev, "comment", str, w, ""),
                minor=bool(rev.get("minor", False)),
                wikitext=_opt(rev, "wikitext", str, w),
            )
        )
    if not revisions:
        raise CorpusError(f"{where}: a page needs at least one revision")
    summary = None
    if raw.get("summary") is not None:
        s = _need(raw, "summary", dict, where)
        w = f"{where}: summary"
        summary = QuickSummary(
            pageid=_need(s, "pageid", int, w),
            position=_opt(s, "position", str, w, "bottom"),
            last_sentence=_need(s, "last_sentence", str, w),
            content=_need(s, "content", str, w),
            timestamp=_opt(s, "timestamp", str, w, revisions[-1].timestamp),
        )
    categories = _opt(raw, "categories", list, where, [])
    if not all(isinstance(c, str) for c in categories):
        raise CorpusError(f"{where}: categories must be a list of names")
    return WikiPage(
        pageid=_need(raw, "pageid", int, where),
        ns=_opt(raw, "ns", int, where, 0),
        title=_need(raw, "title", str, where),
        wikitext=_need(raw, "wikitext", str, where),
        revisions=tuple(revisions),
        categories=tuple(categories),
        redirect=_opt(raw, "redirect", str, where),
        summary=summary,
    )


class SnapshotFiles(Mapping[str, bytes]):
    """Snapshot files read from disk when asked for: a corpus's bodies without holding them in memory."""

    def __init__(self, folder: Path, names: set[str]) -> None:
        self.folder = folder
        self.names = names

    def __getitem__(self, name: str) -> bytes:
        if name not in self.names:
            raise KeyError(name)
        return (self.folder / name).read_bytes()

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.names))

    def __len__(self) -> int:
        return len(self.names)


def read_captures(
    path: Path, snapshots_dir: Path, *, lazy: bool = False
) -> tuple[tuple[Capture, ...], Mapping[str, bytes]]:
    captures: list[Capture] = []
    snapshots: dict[str, bytes] = {}
    facts: dict[str, tuple[str, int]] = {}  # file -> (digest, length), when lazy
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise CorpusError(f"{path}: file not found") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{where}: not valid JSON ({exc.msg})") from None
        if not isinstance(raw, dict):
            raise CorpusError(f"{where}: expected a JSON object")
        url = _need(raw, "url", str, where)
        timestamp = _need(raw, "timestamp", str, where)
        if not (timestamp.isdigit() and len(timestamp) == 14):
            raise CorpusError(f"{where}: timestamp must have 14 digits, got {timestamp!r}")
        status = str(_need(raw, "statuscode", (str, int), where))
        file = _opt(raw, "file", str, where)
        digest, length = sha1_base32(b""), 0
        if file is not None:
            if file not in snapshots and file not in facts:
                try:
                    body = (snapshots_dir / file).read_bytes()
                except FileNotFoundError:
                    raise CorpusError(f"{where}: snapshot file {snapshots_dir / file} not found") from None
                if lazy:
                    facts[file] = (sha1_base32(body), len(body))
                else:
                    snapshots[file] = body
            digest, length = facts[file] if lazy else (sha1_base32(snapshots[file]), len(snapshots[file]))
        headers = _opt(raw, "headers", dict, where, {})
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
            raise CorpusError(f"{where}: headers must map names to strings")
        location = _opt(raw, "location", str, where)
        if status.startswith("3") and location is None:
            raise CorpusError(f"{where}: a {status} capture needs a 'location'")
        playback = _playback(_opt(raw, "playback", dict, where), where)
        captures.append(
            Capture(
                url=url,
                timestamp=timestamp,
                statuscode=status,
                mimetype=_opt(raw, "mimetype", str, where, "unk"),
                file=file,
                headers=tuple(headers.items()),
                location=location,
                urlkey=surt_key(url),
                digest=digest,
                length=length,
                playback=playback,
            )
        )
    if lazy:
        return tuple(captures), SnapshotFiles(snapshots_dir, set(facts))
    return tuple(captures), snapshots


def _playback(raw: dict | None, where: str) -> Playback | None:
    if raw is None:
        return None
    unknown = sorted(set(raw) - {"status", "memento", "location"})
    if unknown:
        known = "status, memento, location"
        raise CorpusError(f"{where}: playback: unknown field {unknown[0]!r} (known: {known})")
    status = _opt(raw, "status", int, f"{where}: playback")
    memento = _opt(raw, "memento", bool, f"{where}: playback", True)
    location = _opt(raw, "location", str, f"{where}: playback")
    if status is not None and not 100 <= status <= 599:
        raise CorpusError(f"{where}: playback: status must be an HTTP status, got {status}")
    if location is not None and not location.startswith(("http://", "https://")):
        raise CorpusError(f"{where}: playback: location must be an absolute http(s) URL, got {location!r}")
    return Playback(status=status, memento=memento, location=location)


def load_corpus(folder: str | Path, *, lazy: bool = False) -> Corpus:
    """Load a rendered corpus folder; raises :class:`CorpusError` naming the first bad file. ``lazy``:
    snapshot bodies stay on disk until served."""
    root = Path(folder)
    if not root.is_dir():
        raise CorpusError(f"corpus folder not found: {root}")
    site = read_site(root / "site.json")
    articles = root / "articles"
    if not articles.is_dir():
        raise CorpusError(f"{articles}: folder not found")
    pages = tuple(read_page(p) for p in sorted(articles.glob("*.json")))
    archive = root / "archive"
    captures, snapshots = read_captures(archive / "cdx.jsonl", archive / "snapshots", lazy=lazy)
    return Corpus(site=site, pages=pages, captures=captures, snapshots=snapshots, path=root)
