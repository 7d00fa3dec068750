"""Answer generation: the paper's input builder, extractive baselines, a fine-tuned generator, LLMs.

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
