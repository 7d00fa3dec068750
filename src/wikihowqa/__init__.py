"""wikihowqa: build, run and evaluate multi-document non-factoid QA benchmarks (WikiHowQA, ACL 2023)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("wikihowqa")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"
