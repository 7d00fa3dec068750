"""The published WikiHowNFQA release: import its QA part (from files or the Hugging Face Hub) into a
dataset folder, and hydrate its documents from the archive (``hydrate``: the plan, the WARC files, the
coverage report and the comparison with released documents).

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
