"""The paper's human evaluation (sections 3.3 and 5): deteriorate answers, build study tasks, analyse
judgments. Formats: docs/humaneval-formats.md."""
