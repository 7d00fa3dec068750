"""The typed schema layer: settings sections and dataset rows as pydantic models.

One layer above ``core``: it imports nothing of the stages, and the stages' settings
objects (``GeneratorConfig``, ``LLMSettings``, ...) are these models. Unknown keys are refused everywhere,
with one line naming the key: ``file:line: section.key: unknown setting (expected one of ...)``.

Import from the modules: ``schema.settings`` (the sections), ``schema.files`` (settings files and
``--set``), ``schema.rows`` (the dataset files' rows), ``schema.base`` (the base model and the one-line
error). The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``), so
``dataset`` (which needs only the rows) builds no settings model at start-up (about 90 ms a command).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
