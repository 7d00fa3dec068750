"""The answer stage: a named system answers every question of a split → a predictions file.

Modules: ``registry`` (what a system is; the table of systems by name), ``systems`` (the project's
systems, registered on import), ``predictions`` (the files and their resumable ``.partial``), ``run``
(the stage: rank passages, answer in batches, write), ``options`` (the command line's choices as
settings).
"""

from __future__ import annotations

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
