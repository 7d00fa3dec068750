"""The build stage: how-to articles from a MediaWiki site and the pages they cite, from a web archive at
the snapshot closest to the article's date, into a dataset folder (``build``); the archive client that
``release.hydrate`` shares.

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
