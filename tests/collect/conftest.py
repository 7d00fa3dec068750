"""Fixtures of the collector's tests: a scripted HTTP server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from scripted_server import ScriptedServer


@pytest.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    running = await ScriptedServer().start()
    yield running
    await running.stop()
