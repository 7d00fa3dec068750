"""The score cache of ``evaluate``: every computed score appended to ``scores-cache.jsonl`` as its batch ends,
so a run stopped at any point resumes without scoring anything twice."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, overload

from wikihowqa.core.files import naming
from wikihowqa.core.progress import Progress


class JsonRecords(Sequence[dict[str, Any]]):
    """Records kept as their JSON text and decoded when read: grounding's per-sentence details of every
    answer take a third of the memory so (~60 MB of text at the paper's size, ~170 MB as dicts)."""

    def __init__(self, texts: Iterable[str]) -> None:
        self._texts = list(texts)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [json.loads(t) for t in self._texts[index]]
        record: dict[str, Any] = json.loads(self._texts[index])
        return record

    def __len__(self) -> int:
        return len(self._texts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # equal to lists, so unhashable like them


class ScoreCache:
    """Append-only JSONL of computed scores; a line is written as soon as its batch is done."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._values: dict[str, list[float]] = {}
        self._details: dict[str, str] = {}  # JSON text: decoded when read (JsonRecords)
        if path is not None and path.is_file():
            with path.open(encoding="utf-8") as fh:
                for line in fh:
                    try:
                        row = json.loads(line)
                        if "details" in row:
                            self._details[row["key"]] = json.dumps(row["details"])
                            continue
                        self._values[row["key"]] = row["values"]
                    except (json.JSONDecodeError, KeyError, TypeError):
                        continue  # a line cut by a crash: recompute it

    @staticmethod
    def key(*parts: Any) -> str:
        digest = hashlib.sha1()
        for part in parts:
            digest.update(json.dumps(part, sort_keys=True, ensure_ascii=False, default=str).encode())
            digest.update(b"\x00")
        return digest.hexdigest()

    def get(self, key: str) -> list[float] | None:
        return self._values.get(key)

    def put_many(self, items: list[tuple[str, list[float]]]) -> None:
        for key, values in items:
            self._values[key] = values
        self._append([{"key": key, "values": values} for key, values in items])

    def details(self, key: str) -> dict[str, Any] | None:
        text = self.details_text(key)
        return None if text is None else dict(json.loads(text))

    def details_text(self, key: str) -> str | None:
        """The details as JSON text (what :class:`JsonRecords` holds)."""
        return self._details.get(key)

    def forget(self, keys: Iterable[str]) -> None:
        """Score these keys again (their cached values lack what the report needs)."""
        for key in keys:
            self._values.pop(key, None)

    def put_details(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        """What a score was computed from (grounding's per-sentence passages), so that a resumed run's
        ``per_question.jsonl`` has it too; a line the readers of values skip."""
        lines = []
        for key, details in items:
            text = self._details[key] = json.dumps(details)
            # the line ``json.dumps({"key": key, "details": details})`` writes, the details serialised once
            lines.append(f'{{"key": {json.dumps(key)}, "details": {text}}}')
        self._append_lines(lines)

    def _append(self, rows: list[dict[str, Any]]) -> None:
        self._append_lines([json.dumps(row) for row in rows])

    def _append_lines(self, lines: list[str]) -> None:
        if self.path is not None and lines:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with naming(self.path), self.path.open("a", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(line + "\n")


def cached_batches(
    name: str,
    keys: list[str],
    cache: ScoreCache,
    compute: Callable[[list[int]], list[list[float]]],
    progress: Progress,
    batch: int,
    compute_all: Callable[[list[list[int]]], Iterable[list[list[float]]]] | None = None,
    *,
    fixed_batches: bool = False,
) -> list[list[float]]:
    """Scores of every key, from the cache or computed batch by batch (``compute_all``: all the batches
    at once, in order — on a cluster's workers); each batch's scores are cached as soon as it is done.

    ``fixed_batches``: for a metric whose numbers depend on what shares its batch (BERTScore pads a batch to
    its longest text: ~1e-7 apart), the batches are cut from every key, not from those left to do, and a
    batch with any key left is computed whole; so a run resumed after a kill scores each pair in the batch
    an uninterrupted run would have, and writes the same bytes. Only the keys not cached are written."""
    todo = [i for i, k in enumerate(keys) if cache.get(k) is None]
    progress.phase(name, len(keys))
    progress.advance(name, len(keys) - len(todo))
    if fixed_batches:
        left = set(todo)
        every = range(len(keys))
        chunks = [c for c in (list(every[s : s + batch]) for s in every[::batch]) if left.intersection(c)]
    else:
        chunks = [todo[start : start + batch] for start in range(0, len(todo), batch)]
    results = compute_all(chunks) if compute_all is not None else map(compute, chunks)
    for chunk, values in zip(chunks, results, strict=True):
        new = [(keys[i], v) for i, v in zip(chunk, values, strict=True) if cache.get(keys[i]) is None]
        cache.put_many(new)
        progress.advance(name, len(new))
    return [cache.get(k) for k in keys]  # type: ignore[misc]
