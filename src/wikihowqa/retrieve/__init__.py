"""Passage retrieval: rank passages by relevance to a question.

Two modes share one interface. In the paper's *supporting* mode a question's own documents are the whole
collection (an index per question); in *open* mode one index holds every passage of a split. A retriever
builds an :class:`Index` over passages; an index ranks them for a batch of questions.

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
