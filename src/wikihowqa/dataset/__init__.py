"""The dataset folder on disk: ``qa`` and ``documents`` (JSONL or Parquet) and ``manifest.json``, its
row codecs, readers and writers, and the archived snapshots a build stores.

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
