"""Describe a dataset: the paper's Tables 1–2, categories, coverage/density/compression, figures."""
