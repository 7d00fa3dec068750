"""The paper's human evaluation (sections 3.3 and 5): deteriorate answers, build study tasks, analyze
judgments. Formats: docs/humaneval-formats.md."""
