"""What a release asks hydrate for: each distinct value it cites, who cites it, and the capture it names.

Its own module so that ``hydrate`` and ``warc_files`` (which writes the planned captures) both import it
and neither imports the other.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from wikihowqa.collect.references import ReferenceTask
from wikihowqa.core.records import Example
from wikihowqa.release.snapshot_urls import NamedCapture, named_capture


@dataclass(frozen=True)
class Plan:
    """The release's values: each distinct one, in order of first mention, with who cites it. The named
    captures and the unusable values are read off it when walked, never held a second time. Spellings
    of one capture (:attr:`NamedCapture.identity`) are asked for as the first of them was written."""

    cited_by: dict[str, list[int]]  # release value (as named) → article ids
    citations: int  # per question, each capture once however often or however spelled
    spellings: dict[str, str] = field(default_factory=dict)  # capture identity → its first original URL

    @staticmethod
    def identity(value: str) -> str:
        """What a release value names: its capture's identity, or the value itself when it names none."""
        capture = named_capture(value)
        return capture.identity if capture is not None else value.strip()

    def capture(self, value: str) -> NamedCapture | None:
        """The capture ``value`` names, its original URL spelled as the first value naming it spelled it."""
        capture = named_capture(value)
        if capture is None:
            return None
        url = self.spellings.get(capture.identity, capture.url)
        return capture if url == capture.url else replace(capture, url=url)

    def cited(self, example: Example) -> list[str]:
        """The values ``example`` cites, one per capture (the first spelling), in its order."""
        seen: dict[str, str] = {}
        for value in example.related_document_urls_wayback_snapshots:
            seen.setdefault(self.identity(value), value)
        return list(seen.values())

    @property
    def named(self) -> Iterator[NamedCapture]:
        return (c for v in self.cited_by if (c := self.capture(v)) is not None)

    @property
    def unusable(self) -> Iterator[str]:
        """Values that name no capture."""
        return (v for v in self.cited_by if named_capture(v) is None)

    @property
    def tasks(self) -> list[ReferenceTask]:
        return list({n.task.key: n.task for n in self.named}.values())


def plan(examples: Sequence[Example]) -> Plan:
    cited_by: dict[str, list[int]] = {}
    spellings: dict[str, str] = {}
    citations = 0
    for example in examples:
        cited: set[str] = set()
        for value in example.related_document_urls_wayback_snapshots:
            capture = named_capture(value)
            identity = capture.identity if capture is not None else value.strip()
            if capture is not None:
                spellings.setdefault(identity, capture.url)
            citations += identity not in cited  # one URL twice in a question is one citation
            cited.add(identity)
            ids = cited_by.setdefault(value, [])
            if example.article_id not in ids:
                ids.append(example.article_id)
    return Plan(cited_by, citations, spellings)
