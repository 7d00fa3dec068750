"""Defaults the command line quotes in its help, kept here so that ``--help`` imports no numpy."""

#: Support at which an answer sentence counts as grounded (how it was chosen: ``grounding.GroundingConfig``).
GROUNDING_THRESHOLD = 0.37
