"""The study web app (``wikihowqa serve``): assessors judge tasks in a browser, the admin follows progress
and downloads judgments in the format ``wikihowqa analyze`` reads. Formats: docs/humaneval-formats.md."""

from wikihowqa.humaneval.app.run import demo_serve, serve
from wikihowqa.humaneval.app.server import create_app
from wikihowqa.humaneval.app.state import ServerSettings, StudyService

__all__ = ["ServerSettings", "StudyService", "create_app", "demo_serve", "serve"]
