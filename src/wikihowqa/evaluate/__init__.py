"""The evaluate stage: ROUGE and BERTScore as their references compute them, grounding against the
question's documents, an LLM judge, paired significance tests, and the report (the lower-bound systems it
can score on the fly are ``generate.lower_bounds``).

Modules: ``rouge``, ``bertscore``, ``grounding``, ``judge``, ``significance`` (metrics, pure functions);
``pipeline`` (files in, per-question scores out, cached); ``report`` (files).
"""

from __future__ import annotations

#: Support at which an answer sentence counts as grounded (how it was chosen: ``grounding.GroundingConfig``).
#: Here, not in ``grounding``, so the CLI's help can quote it without importing numpy at startup.
GROUNDING_THRESHOLD = 0.37
