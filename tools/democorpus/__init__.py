"""Authoring tools of the embedded demo corpus: YAML sources → rendered corpus (see FORMAT.md)."""
