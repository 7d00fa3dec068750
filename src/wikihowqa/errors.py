"""Errors a user can cause and fix: the CLI prints them as one line, never as a traceback."""


class WikihowqaError(Exception):
    """Base class of every error that is the user's input, not the program's fault."""


class DatasetError(WikihowqaError):
    """A dataset file is missing, malformed, or violates the schema; the message names file and line."""


class SettingsError(WikihowqaError):
    """A setting or option value is invalid."""
