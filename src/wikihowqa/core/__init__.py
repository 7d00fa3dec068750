"""Infrastructure every layer uses: the typed records, the error classes, atomic files, progress,
sentences and Retry-After parsing. Imports nothing of the stages.

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
