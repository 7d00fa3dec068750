"""Exports of a dataset folder for the tools researchers already use: a Hugging Face Hub folder with
Croissant metadata (``hub``) and an lm-evaluation-harness task (``lm_eval``)."""
