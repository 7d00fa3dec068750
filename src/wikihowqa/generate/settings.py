"""Settings files and ``--set``: moved to :mod:`wikihowqa.schema.files` (the names stay importable here)."""

from wikihowqa.schema.files import merge, parse_assignments, read_generator_settings, read_settings

__all__ = ["merge", "parse_assignments", "read_generator_settings", "read_settings"]
