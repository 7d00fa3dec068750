"""Fixtures of the docs tests: the command runner, one demo run shared by the session, the built site."""

from __future__ import annotations

from ..cli.conftest import cli  # noqa: F401  the command runner
from ..view.conftest import axe_source  # noqa: F401  axe-core from the npm registry, as the explorer's test
