"""The paper's input builder (section 4): ranked passages → one generator input string.

Passages are ranked by relevance to the question; the largest number of *complete* passages, taken in
rank order, that fits the generator's maximum input length (counted in the generator's own tokens, the
question, separators and special tokens included) is kept; the kept passages are put back in source order
(document, then position in the document) and joined with the question.

The paper's format string is damaged in the OCR text of section 4 (``question … doc 1 pas ~lp> doc sage 1
. 2 pas``). Our reconstruction, the default :class:`InputFormat`, is
``question </s> doc 1 passage 1 <p> doc 1 passage 2 </s> doc 2 passage 1 …``: BART's ``</s>`` between the
question and each document, ``<p>`` between passages of one document. Every separator is a setting.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wikihowqa.core.errors import SettingsError
from wikihowqa.retrieve.ranking import Ranked
from wikihowqa.schema.settings import InputFormat  # the [generator] input section's model

TokenCounter = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class ModelInput:
    """The built input: ``kept`` in rank order (a prefix of the ranking), ``n_tokens`` of ``text``."""

    text: str
    kept: tuple[Ranked, ...]
    n_tokens: int
    n_ranked: int


def source_order(kept: Sequence[Ranked]) -> list[Ranked]:
    """Kept passages grouped by source document (in the documents' order), each in page order."""
    return sorted(kept, key=lambda r: (r.passage.article_id, r.passage.doc_index, r.passage.position))


def render_passages(kept: Sequence[Ranked], fmt: InputFormat = InputFormat()) -> str:
    """Kept passages in source order: passages of a document joined by ``passage_sep``, documents by
    ``document_sep``, each document opened by ``document_prefix``."""
    documents: list[list[str]] = []
    last: tuple[int, int] | None = None
    for r in source_order(kept):
        key = (r.passage.article_id, r.passage.doc_index)
        if key != last:
            documents.append([])
            last = key
        documents[-1].append(r.passage.text)
    return fmt.document_sep.join(
        fmt.document_prefix.format(n=n) + fmt.passage_sep.join(texts)
        for n, texts in enumerate(documents, start=1)
    )


def render(question: str, kept: Sequence[Ranked], fmt: InputFormat = InputFormat()) -> str:
    """The input string of ``question`` with ``kept`` passages, reordered to source order."""
    if not kept:
        return question
    return question + fmt.question_sep + render_passages(kept, fmt)


Renderer = Callable[[str, Sequence[Ranked], InputFormat], str]


def build_input(
    question: str,
    ranking: Sequence[Ranked],
    count_tokens: TokenCounter,
    max_tokens: int,
    fmt: InputFormat = InputFormat(),
    renderer: Renderer = render,
) -> ModelInput:
    """Keep the longest prefix of ``ranking`` whose rendered input has at most ``max_tokens`` tokens.

    A per-passage estimate finds the candidate prefix in one pass; the rendered string is then counted
    exactly and the prefix adjusted, so the limit holds for any tokenizer, even one that is not additive.
    If the question alone is over the limit, no passage is kept (the generator's tokenizer truncates).
    ``renderer`` turns question and kept passages into the final string (e.g. an LLM prompt template).
    """
    if max_tokens < 1:
        raise SettingsError("max_tokens must be at least 1")

    def exact(n: int) -> tuple[str, int]:
        text = renderer(question, ranking[:n], fmt)
        return text, count_tokens(text)

    empty = count_tokens("")
    base = count_tokens(renderer(question, (), fmt))
    total, n = base, 0
    for r in ranking:
        total += count_tokens(fmt.document_sep + r.passage.text) - empty
        if total > max_tokens:
            break
        n += 1
    text, used = exact(n)
    while n > 0 and used > max_tokens:
        n -= 1
        text, used = exact(n)
    while n < len(ranking):
        bigger, bigger_used = exact(n + 1)
        if bigger_used > max_tokens:
            break
        n, text, used = n + 1, bigger, bigger_used
    return ModelInput(text=text, kept=tuple(ranking[:n]), n_tokens=used, n_ranked=len(ranking))


def hf_token_counter(tokenizer: Any, *, special_tokens: bool = True) -> TokenCounter:
    """Counts tokens as ``tokenizer`` encodes the input (with its BOS/EOS when ``special_tokens``)."""

    def count(text: str) -> int:
        return len(
            tokenizer(text, add_special_tokens=special_tokens, truncation=False, verbose=False)["input_ids"]
        )

    return count


def approximate_token_counter(chars_per_token: float = 4.0) -> TokenCounter:
    """For APIs whose tokenizer is not at hand: ~4 characters per English token (OpenAI's rule)."""

    def count(text: str) -> int:
        return int(-(-len(text) // chars_per_token))

    return count
