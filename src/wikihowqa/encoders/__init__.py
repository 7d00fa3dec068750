"""Sentence encoders: the one loader and embedding cache every stage uses (``embed``), and the OpenVINO
passage encoder that is the CPU default.

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
