"""Answer generation: the paper's input builder, extractive baselines, a fine-tuned generator, LLMs."""
