"""The split stage: questions clustered by meaning and whole clusters assigned to train/dev/test so no
paraphrase crosses a split, and the leakage audit that checks it.

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
