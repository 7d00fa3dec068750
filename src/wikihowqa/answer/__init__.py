"""The answer stage: a named system answers every question of a split → a predictions file.

Modules: ``registry`` (what a system is; the table of systems by name), ``systems`` (the project's
systems, registered on import), ``predictions`` (the files and their resumable ``.partial``), ``run``
(the stage: rank passages, answer in batches, write), ``options`` (the command line's choices as
settings).

The package loads its modules when one of its names is first read (PEP 562), so that ``catalogue`` (the
systems' names, for ``wikihowqa answer --help``) imports without the answerers: importing them all took
~0.45 s of every command's start-up. Reading any name registers every system first.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wikihowqa.answer.predictions import PREDICTIONS_DIR, default_output, partial_path, read_partial
    from wikihowqa.answer.registry import (
        ALL,
        SYSTEMS,
        Answer,
        Context,
        Failed,
        Item,
        System,
        SystemSpec,
        register,
        split_examples,
        system_names,
        system_spec,
    )
    from wikihowqa.answer.run import AnswerReport, answer_split, make_retriever
    from wikihowqa.answer.systems import generator_config

_HOMES = {
    name: module
    for module, names in (
        ("predictions", ("PREDICTIONS_DIR", "default_output", "partial_path", "read_partial")),
        (
            "registry",
            (
                "ALL",
                "SYSTEMS",
                "Answer",
                "Context",
                "Failed",
                "Item",
                "System",
                "SystemSpec",
                "register",
                "split_examples",
                "system_names",
                "system_spec",
            ),
        ),
        ("run", ("AnswerReport", "answer_split", "make_retriever")),
        ("systems", ("generator_config",)),
    )
    for name in names
}

__all__ = [
    "ALL",
    "PREDICTIONS_DIR",
    "SYSTEMS",
    "Answer",
    "AnswerReport",
    "Context",
    "Failed",
    "Item",
    "System",
    "SystemSpec",
    "answer_split",
    "default_output",
    "generator_config",
    "make_retriever",
    "partial_path",
    "read_partial",
    "register",
    "split_examples",
    "system_names",
    "system_spec",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    importlib.import_module("wikihowqa.answer.systems")  # the table is read whole: every system registered
    value = getattr(importlib.import_module(f"wikihowqa.answer.{home}"), name)
    globals()[name] = value
    return value
