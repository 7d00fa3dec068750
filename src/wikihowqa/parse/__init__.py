"""Parse stage: archived HTML → clean text, Markdown and passages."""
