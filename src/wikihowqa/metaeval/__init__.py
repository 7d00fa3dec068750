"""Meta-evaluation: which automatic metric agrees with the human assessors of a study?

Modules: ``join`` (a study's judgments + an evaluation's per-answer scores → typed records, and the
study's answers as predictions files), ``stats`` (tau, rho, pairwise accuracy, AUC, the bootstrap),
``agreement`` (every statistic of every metric, JSON-ready), ``report`` (Markdown, JSON, chart, the
terminal table). ``meta_evaluate_folders`` is the stage: files in, report data out.

The names below load on first use (``lazy_loader``; the list is ``__init__.pyi``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
