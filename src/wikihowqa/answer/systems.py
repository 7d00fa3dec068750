"""The project's systems, each registered by name: extractive rules, the oracle, the lower bounds, the
fine-tuned generator and the zero-shot LLMs. A factory turns the settings into a ready :class:`System`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from wikihowqa.answer.registry import (
    Answer,
    Context,
    Factory,
    Failed,
    Item,
    System,
    register,
    split_examples,
)
from wikihowqa.core.errors import SettingsError
from wikihowqa.generate import extractive, lower_bounds
from wikihowqa.generate.llm import DistributedChat, LLMAnswerer, LLMSettings
from wikihowqa.generate.seq2seq import (
    Generator,
    GeneratorConfig,
    GeneratorModel,
    input_retrieval,
    saved_settings,
)
from wikihowqa.generate.settings import merge
from wikihowqa.retrieve.cache import CACHE_DIR
from wikihowqa.retrieve.ranking import Ranked
from wikihowqa.runtime.device import ray_gpus

# --------------------------------------------------------------------------- extractive


def _extractive(retriever: str, method: str) -> Factory:
    def factory(ctx: Context) -> System:
        s = ctx.typed.extractive
        max_words = ctx.max_words("extractive")
        top = s.top_passages
        settings = {"extractor": method, "max_words": max_words}
        if method == "lead":
            per = s.per_passage
            settings["per_passage"] = per

            def run(item: Item) -> extractive.Extract:
                return extractive.lead(item.ranking, max_words=max_words, per_passage=per)
        else:
            threshold = s.lexrank_threshold
            settings |= {"top_passages": top, "damping": s.damping}
            if method == "lexrank":
                settings["threshold"] = threshold

            def run(item: Item) -> extractive.Extract:
                return extractive.centrality(
                    item.ranking,
                    method=method,
                    top_passages=top,
                    max_words=max_words,
                    damping=settings["damping"],
                    threshold=threshold,
                )

        def answer(items: Sequence[Item]) -> list[Answer]:
            return [Answer(x.text, x.used) for x in map(run, items)]

        return System(f"{retriever}+{method}", retriever, answer, settings)

    return factory


for _retriever in ("bm25", "dense", "hybrid"):
    register(f"{_retriever}+lead")(_extractive(_retriever, "lead"))
register("bm25+textrank")(_extractive("bm25", "textrank"))
register("bm25+lexrank")(_extractive("bm25", "lexrank"))


@register("oracle")
def _oracle(ctx: Context) -> System:
    max_sentences = ctx.typed.oracle.max_sentences

    def answer(items: Sequence[Item]) -> list[Answer]:
        out = []
        for item in items:
            in_order = [Ranked(p, 0.0, i) for i, p in enumerate(item.passages, start=1)]
            x = extractive.oracle(in_order, item.example.answer, max_sentences=max_sentences)
            out.append(Answer(x.text, x.used))
        return out

    return System(
        "oracle",
        None,
        answer,
        {
            "selection": "greedy rouge1+rouge2 F1",
            "max_sentences": max_sentences,
            "passage_rank": "document order",
        },
    )


# --------------------------------------------------------------------------- lower bounds

# The lower bounds are defined once, in wikihowqa.generate.lower_bounds (which `wikihowqa evaluate` can also
# compute on the fly); these systems write them as predictions files like any other system.


@register("copy-top-passages")
def _copy_top(ctx: Context) -> System:
    max_words = ctx.typed.lower_bounds.max_words
    articles = {e.article_id for e in split_examples(ctx.folder, ctx.split)}
    documents = ctx.folder.documents_by_article(articles, texts=False)  # it copies passages

    def answer(items: Sequence[Item]) -> list[Answer]:
        out = []
        for item in items:
            copied = lower_bounds.copy_passages(
                item.example, documents.get(item.example.article_id, []), max_words=max_words
            )
            by_place = {(p.archive_url, p.position): p for p in item.passages}
            used = tuple(
                Ranked(by_place[(u.archive_url, u.position)], u.score or 0.0, u.rank) for u in copied.passages
            )
            out.append(Answer(copied.answer, used))
        return out

    settings = {
        "lower_bound": "copy top passages",
        "retriever": lower_bounds.COPY_RETRIEVER,
        "max_words": max_words,
        "definition": "wikihowqa.generate.lower_bounds.copy_passages",
    }
    return System("copy-top-passages", None, answer, settings)


@register("random-train-answer")
def _random_train(ctx: Context) -> System:
    seed = ctx.typed.lower_bounds.seed
    train = ctx.folder.examples("train")
    if not train:
        raise SettingsError(f"{ctx.folder.path}: random-train-answer needs a train split, and there is none")
    # Drawn for the whole split at once, in its order: the same answers however the run is batched or
    # resumed, and the same as `wikihowqa evaluate --lower-bounds` computes.
    drawn = {
        p.article_id: p
        for p in lower_bounds.random_train_answer(split_examples(ctx.folder, ctx.split), train, seed=seed)
    }

    def answer(items: Sequence[Item]) -> list[Answer]:
        return [
            Answer(
                drawn[i.example.article_id].answer,
                extra={"source_article_id": drawn[i.example.article_id].settings["source_article_id"]},
            )
            for i in items
        ]

    settings = {
        "lower_bound": "random training answer",
        "seed": seed,
        "n_train": len(train),
        "definition": "wikihowqa.generate.lower_bounds.random_train_answer",
    }
    return System("random-train-answer", None, answer, settings)


# --------------------------------------------------------------------------- the fine-tuned generator


def generator_config(ctx: Context) -> GeneratorConfig:
    """The generator's settings: those saved with a model trained here, under the [generator] section."""
    s = ctx.section("generator")
    if "model" not in s:
        raise SettingsError(
            "seq2seq needs a model: --model PATH (a model trained with `wikihowqa train`) or "
            "generator.model in the settings file"
        )
    saved = saved_settings(s["model"])
    return GeneratorConfig.from_settings(merge(saved, s) if saved else s)


@register("seq2seq")
def _seq2seq(ctx: Context) -> System:
    config = generator_config(ctx)
    retriever, mode = input_retrieval(config, ctx.folder.path)  # the generator's, as in training
    generator = Generator.load(config, device=ctx.device)
    generate: Callable[[list[str]], list[str]] = generator.generate
    batch = config.generate.batch_size
    if ctx.executor is not None and ctx.executor.distributed:
        # inputs are built here (the tokenizer counts them); the beams run on the workers, in the batches
        # Generator.generate makes, one batch a task
        spec = GeneratorModel.of(config, ctx.device)
        gpus = ray_gpus(ctx.device, getattr(ctx.executor, "gpus_available", 0))
        size = batch

        def generate(texts: list[str]) -> list[str]:
            parts = [texts[i : i + size] for i in range(0, len(texts), size)]
            return [t for part in ctx.executor.map_model(spec, "generate", parts, gpus=gpus) for t in part]

        batch *= ctx.executor.parallelism

    def answer(items: Sequence[Item]) -> list[Answer]:
        built = [generator.build(item.example.question, item.ranking) for item in items]
        texts = generate([b.text for b in built])
        return [Answer(t, b.kept, {"input_tokens": b.n_tokens}) for t, b in zip(texts, built, strict=True)]

    settings = {
        "model": config.model,
        "architecture": "seq2seq" if generator.encoder_decoder else "causal",
        "max_input_tokens": generator.max_input_tokens,
        "input_format": config.input.model_dump(),
        "generate": config.generate.model_dump(),
    }
    return System(
        "seq2seq",
        retriever.name,
        answer,
        settings,
        batch_size=batch,
        ranking=(retriever, mode),
    )


# --------------------------------------------------------------------------- zero-shot LLMs


def _llm(ctx: Context, with_passages: bool) -> System:
    settings = LLMSettings.from_settings(ctx.section("llm"))
    if ctx.device and not settings.local.device:
        local = settings.local.model_copy(update={"device": ctx.device})
        settings = settings.model_copy(update={"local": local})
    distributed = settings.backend == "local" and ctx.executor is not None and ctx.executor.distributed
    client = DistributedChat(settings.local, ctx.executor) if distributed else None
    cache = ctx.folder.path / CACHE_DIR / "llm-responses.sqlite"
    answerer = LLMAnswerer(settings, cache_path=cache, client=client)
    name = "llm-passages" if with_passages else "llm-question-only"
    described = answerer.metadata()

    def result(reply: Any, answer: Callable[[str], Answer]) -> Answer | Failed:
        return answer(reply) if isinstance(reply, str) else Failed(str(reply), reply.advice(settings))

    if with_passages:
        described["max_context_tokens"] = settings.prompt.max_context_tokens

        def answer(items: Sequence[Item]) -> list[Answer | Failed]:
            results = answerer.with_passages([i.example.question for i in items], [i.ranking for i in items])
            return [
                result(reply, lambda text, b=built: Answer(text, b.kept, {"prompt_tokens": b.n_tokens}))
                for reply, built in results
            ]
    else:

        def answer(items: Sequence[Item]) -> list[Answer | Failed]:
            replies = answerer.question_only([i.example.question for i in items])
            return [result(reply, Answer) for reply in replies]

    retriever = ctx.typed.retrieval.retriever if with_passages else None
    batch = settings.local.batch_size if settings.backend == "local" else 8
    if distributed:  # one batch per worker at once, each the batch LocalChat would have generated
        batch *= ctx.executor.parallelism
    return System(name, retriever, answer, described, batch_size=batch, may_fail=settings.backend == "openai")


register("llm-question-only")(lambda ctx: _llm(ctx, with_passages=False))
register("llm-passages")(lambda ctx: _llm(ctx, with_passages=True))
