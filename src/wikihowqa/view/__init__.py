"""The results explorer: a dataset, its systems' answers, their scores and the passages behind them, as a
static site (``wikihowqa view``).

Modules: ``sources`` (the stage outputs read into typed records: dataset, ``stats.json``, the evaluate
report's ``evaluation.json`` and ``per_question.jsonl``, predictions, the meta-evaluation), ``markdown``
(parsed Markdown as a tree of whitelisted elements, never HTML), ``shards`` (the data as small script
files loaded on demand), ``pages`` (the HTML pages, rendered by Jinja2 with autoescaping), ``site`` (the
folder, written as one set) and ``serve`` (a local server for ``--serve``).

Every text in the site is hostile (scraped pages, model outputs): the server-rendered pages escape it, and
the scripts put it into the page with ``textContent`` only, under a Content-Security-Policy that allows
scripts from the site's own files alone.
"""

from __future__ import annotations

from wikihowqa.view.site import SiteSummary, build_site

__all__ = ["SiteSummary", "build_site"]
