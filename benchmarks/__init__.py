"""Benchmarks: each prints a table with a fair peer measured in the same run (``python -m benchmarks.NAME``);
results go to ``RESULTS.md``, newest first."""
