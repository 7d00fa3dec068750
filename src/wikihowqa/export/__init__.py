"""Exports of a dataset folder for the tools researchers already use: a Hugging Face Hub folder with
Croissant metadata (``hub``) and an lm-evaluation-harness task (``lm_eval``).

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
