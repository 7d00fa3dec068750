"""The typed schema layer: settings sections and dataset rows as pydantic models.

Lowest layer beside ``records`` and ``io``: it imports nothing of the stages, and the stages' settings
objects (``GeneratorConfig``, ``LLMSettings``, ...) are these models. Unknown keys are refused everywhere,
with one line naming the key: ``file:line: section.key: unknown setting (expected one of ...)``.

Import from the modules: ``schema.settings`` (the sections), ``schema.files`` (settings files and
``--set``), ``schema.rows`` (the dataset files' rows), ``schema.base`` (the base model and the one-line
error). Nothing is imported here, so ``io`` (which needs only the rows) does not build every settings model
at start-up (about 90 ms a command).
"""
