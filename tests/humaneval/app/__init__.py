"""Tests of the study web app (a package, so its conftest does not shadow tests/humaneval/conftest.py)."""
