"""wikihowqa: build, run and evaluate multi-document non-factoid QA benchmarks (WikiHowQA, ACL 2023).

The public Python API: the records, one door to a dataset folder (:func:`open_dataset`) and its readers,
each stage's entry point and the error base class. Every name loads on first use (``lazy_loader``; the
list is ``__init__.pyi``), so ``import wikihowqa`` and the command line start without torch.
"""

import lazy_loader as _lazy

_lazy_getattr, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
__all__ = [*__all__, "__version__"]


def __getattr__(name: str) -> object:
    """A name of the API, imported on first use; ``__version__`` read from the installed metadata, once."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("wikihowqa")
        except PackageNotFoundError:  # a source tree that is not installed
            value = "0.0.0+unknown"
        globals()["__version__"] = value
        return value
    return _lazy_getattr(name)
