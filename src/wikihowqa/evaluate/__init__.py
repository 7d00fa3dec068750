"""The evaluate stage: ROUGE and BERTScore as their references compute them, grounding against the
question's documents, an LLM judge, paired significance tests, and the report (the lower-bound systems it
can score on the fly are ``generate.lower_bounds``).

Modules: ``rouge``, ``bertscore``, ``grounding``, ``judge``, ``significance`` (metrics, pure functions);
``pipeline`` (files in, per-question scores out, cached); ``report`` (files); ``stage`` (the two in one call).

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
