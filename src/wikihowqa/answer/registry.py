"""The system registry: what a system is, what its factory may use, and the table of systems by name.

A *system* is retrieval (or none) plus an answerer; ``systems.py`` registers the project's systems here
and the run loop (``run.py``) looks them up by name, so the CLI's list of systems is this table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from wikihowqa.answer.catalogue import DESCRIPTIONS
from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Example, Passage
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.generate.extractive import DEFAULT_MAX_WORDS
from wikihowqa.retrieve.ranking import Ranked
from wikihowqa.schema.settings import AnswerSettings

#: The pseudo-split of every question (a dataset not split yet, e.g. a fresh crawl).
ALL = "all"


def split_examples(folder: DatasetFolder, split: str) -> list[Example]:
    """The questions of ``split`` (``all``: every question); an unknown split name is a user error."""
    try:
        return folder.examples(None if split == ALL else split)
    except ValueError as exc:
        raise SettingsError(str(exc)) from None


@dataclass(frozen=True)
class Item:
    """One question to answer: the example, its own passages (document order) and the system's ranking."""

    example: Example
    passages: tuple[Passage, ...]
    ranking: tuple[Ranked, ...] = ()


@dataclass(frozen=True)
class Answer:
    text: str
    used: tuple[Ranked, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # per-question settings (e.g. input token count)


@dataclass(frozen=True)
class Failed:
    """A question the system could not answer this run: why, and what the user can do about it."""

    reason: str
    advice: str = "rerun the command to retry them"


AnswerFn = Callable[[Sequence[Item]], "list[Answer | Failed]"]


@dataclass
class System:
    """A ready-to-run system: which retriever ranks passages (``None``: none) and how a batch is answered."""

    name: str
    retriever: str | None
    answer: AnswerFn
    settings: dict[str, Any]
    batch_size: int = 32
    #: a system that may fail per question (a remote API) returns ``Failed`` for those questions; a batch
    #: that fails as a whole is recorded as failed once, not asked again question by question
    may_fail: bool = False
    #: a system that ranks its own way (seq2seq: as in training) gives its ready retriever and mode;
    #: otherwise both come from the [retrieval] section
    ranking: tuple[Any, str] | None = None


@dataclass(frozen=True)
class Context:
    """What a system factory may use: the dataset, the settings, the split being answered."""

    folder: DatasetFolder
    settings: dict[str, Any]
    split: str
    #: where batches run (``wikihowqa.runtime.executor``; ``None``: here) and the neural models' ``--device``
    executor: Any = None
    device: str | None = None
    #: ``settings`` checked, with every default: what the systems read (sections read as given — the
    #: generator's, merged over a trained model's, and the retrievers' options — come from ``section``)
    typed: AnswerSettings = field(default_factory=AnswerSettings)

    def section(self, name: str) -> dict[str, Any]:
        """A section as given (checked by ``schema.settings.AnswerSettings`` before the run)."""
        return dict(self.settings.get(name) or {})

    def max_words(self, section: str) -> int:
        """The answer-length budget: a number, or ``auto`` = mean words of the train split's answers."""
        value = getattr(self.typed, section).max_words
        if value != "auto":
            return int(value)
        answers = [e.answer for e in self.folder.examples("train")]
        if not answers:
            return DEFAULT_MAX_WORDS
        return max(1, round(sum(len(a.split()) for a in answers) / len(answers)))


Factory = Callable[[Context], System]


@dataclass(frozen=True)
class SystemSpec:
    name: str
    description: str
    factory: Factory


SYSTEMS: dict[str, SystemSpec] = {}


def register(name: str, description: str | None = None) -> Callable[[Factory], Factory]:
    """Register ``factory`` as system ``name``; the description defaults to the catalogue's (a system of
    one's own gives its own)."""
    if description is None:
        if name not in DESCRIPTIONS:
            raise SettingsError(f"system {name!r}: give a description (it is not in the catalogue)")
        description = DESCRIPTIONS[name]

    def add(factory: Factory) -> Factory:
        SYSTEMS[name] = SystemSpec(name, description, factory)
        return factory

    return add


def system_names() -> list[str]:
    return list(SYSTEMS)


def system_spec(name: str) -> SystemSpec:
    """The registered system ``name``; an unknown name is a user error listing the known ones."""
    if name not in SYSTEMS:
        raise SettingsError(f"unknown system {name!r} (known: {', '.join(SYSTEMS)})")
    return SYSTEMS[name]
