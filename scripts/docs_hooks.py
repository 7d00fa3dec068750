"""MkDocs hooks (mkdocs.yml ``hooks:``): the reference pages, generated from the code at every build.

The command-line, settings and file-format pages and the predictions JSON Schema are written by
``wikihowqa.cli._reference`` from the parser, the settings classes and the row models, so the site cannot
describe an option, a key or a field the code does not have (tests/docs checks the other direction).
"""

from __future__ import annotations

import json

from mkdocs.structure.files import File, Files

from wikihowqa.cli import _reference

PAGES = {
    "reference/cli.md": _reference.cli_reference,
    "reference/settings.md": _reference.settings_reference,
    "reference/formats.md": _reference.formats_reference,
    "reference/predictions.schema.json": lambda: json.dumps(_reference.prediction_schema(), indent=2) + "\n",
}


def on_files(files: Files, config) -> Files:
    for path, make in PAGES.items():
        files.append(File.generated(config, path, content=make()))
    return files
