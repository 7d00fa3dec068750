"""Where work runs: the local process pool or a Ray cluster (one executor interface), worker processes
that die with their parent, and the device a model runs on.

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
