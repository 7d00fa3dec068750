"""The typed schema layer: settings sections and dataset rows as pydantic models.

Lowest layer beside ``records`` and ``io``: it imports nothing of the stages, and the stages' settings
objects (``GeneratorConfig``, ``LLMSettings``, ...) are these models. Unknown keys are refused everywhere,
with one line naming the key: ``file:line: section.key: unknown setting (expected one of ...)``.
"""

from wikihowqa.schema.base import Section, check
from wikihowqa.schema.files import merge, parse_assignments, read_generator_settings, read_settings
from wikihowqa.schema.settings import SECTIONS, AnswerSettings

__all__ = [
    "SECTIONS",
    "AnswerSettings",
    "Section",
    "check",
    "merge",
    "parse_assignments",
    "read_generator_settings",
    "read_settings",
]
