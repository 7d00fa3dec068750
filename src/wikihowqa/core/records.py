"""Typed records that flow one way through the pipeline.

Field names of :class:`Example` and :class:`Document` are the official WikiHowNFQA release's, so a
record serialises to exactly what the authors published; anything else a file carries is kept in
``extra`` and written back untouched, which is what makes import → export round-trip exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SPLITS: tuple[str, ...] = ("train", "validation", "test")
#: Spellings of the validation split seen in the wild; the official release used ``valid`` at one point.
SPLIT_ALIASES: Mapping[str, str] = {"valid": "validation", "val": "validation", "dev": "validation"}
#: The 19 top-level categories of wikiHow, as the site names them (the paper: "19 in total").
WIKIHOW_TOP_CATEGORIES: tuple[str, ...] = (
    "Arts and Entertainment",
    "Cars & Other Vehicles",
    "Computers and Electronics",
    "Education and Communications",
    "Family Life",
    "Finance and Business",
    "Food and Entertaining",
    "Health",
    "Hobbies and Crafts",
    "Holidays and Traditions",
    "Home and Garden",
    "Personal Care and Style",
    "Pets and Animals",
    "Philosophy and Religion",
    "Relationships",
    "Sports and Fitness",
    "Travel",
    "Work World",
    "Youth",
)
#: Cluster label of a question that HDBSCAN left unclustered (the official release's convention).
NOISE_CLUSTER = -1


def normalise_split(value: str | None) -> str | None:
    """Canonical split name, or ``None``; raises ``ValueError`` on an unknown name."""
    if value is None:
        return None
    name = SPLIT_ALIASES.get(value.strip().lower(), value.strip().lower())
    if name not in SPLITS:
        raise ValueError(f"unknown split {value!r} (expected one of {', '.join(SPLITS)} or 'valid')")
    return name


@dataclass(frozen=True, slots=True)
class Example:
    """One question with its human-written answer: the QA part of the dataset."""

    article_id: int
    question: str
    answer: str
    related_document_urls_wayback_snapshots: tuple[str, ...]
    split: str | None = None
    cluster: int | None = None
    category: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Document:
    """One cited web page as archived and parsed: the document part of the dataset."""

    article_id: int
    original_url: str
    archive_url: str
    parsed_text: str
    parsed_md: str | None = None
    title: str | None = None
    passages: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Passage:
    """A retrievable unit of a document; ``position`` is its index in the document's passages."""

    article_id: int
    doc_index: int
    position: int
    text: str
    archive_url: str = ""

    @property
    def id(self) -> str:
        return f"{self.article_id}:{self.doc_index}:{self.position}"


@dataclass(frozen=True, slots=True)
class UsedPassage:
    """A passage a system used to answer, with its rank in the system's retrieval."""

    archive_url: str
    position: int
    rank: int
    text: str
    score: float | None = None


@dataclass(frozen=True, slots=True)
class Prediction:
    """A system's answer to one question."""

    article_id: int
    system: str
    answer: str
    passages: tuple[UsedPassage, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)


def passages_of(documents: list[Document]) -> list[Passage]:
    """All passages of one question's documents, in document then page order."""
    return [
        Passage(doc.article_id, doc_index, position, text, doc.archive_url)
        for doc_index, doc in enumerate(documents)
        for position, text in enumerate(doc.passages)
    ]
