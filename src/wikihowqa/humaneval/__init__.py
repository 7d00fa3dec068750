"""The paper's human evaluation (sections 3.3 and 5): deteriorate answers, build study tasks, analyze
judgments. Formats: docs/humaneval-formats.md.

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
