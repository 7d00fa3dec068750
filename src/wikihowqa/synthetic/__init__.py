"""Synthetic data for benchmarks and load tests (nothing here is real data): a dataset at the paper's
scale (``dataset``) and a rendered corpus a build can crawl (``corpus``).

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
