"""The project's answer systems by name, with what each does.

The command line lists this table without loading the answerers (numpy, httpx, the row models: ~0.45 s
that every command's start-up would pay); ``systems.py`` registers a factory for each name, taking the
description from here, and a test holds the two tables equal.
"""

from __future__ import annotations

#: System name -> what it does, in the order ``wikihowqa answer --help`` lists them.
DESCRIPTIONS: dict[str, str] = {
    **{
        f"{retriever}+lead": f"first sentence of each top {retriever} passage, up to the answer length"
        for retriever in ("bm25", "dense", "hybrid")
    },
    "bm25+textrank": "TextRank over the sentences of the top BM25 passages",
    "bm25+lexrank": "LexRank over the sentences of the top BM25 passages",
    "oracle": "extractive oracle: greedy ROUGE-1+2 against the gold answer (an upper bound; reads gold)",
    "copy-top-passages": "lower bound: the top BM25 passages copied, cut at max_words (default 100)",
    "random-train-answer": "lower bound: the answer of a random train question (never its own)",
    "seq2seq": "the fine-tuned generator (BART, T5, or a decoder-only LM) over the paper's input builder",
    "llm-question-only": "zero-shot LLM, question only (backend: openai-compatible API or local SmolLM2)",
    "llm-passages": "zero-shot LLM, question + top retrieved passages (openai-compatible API or local)",
}
