"""The answer stage: a named system answers every question of a split → a predictions file.

A *system* is retrieval (or none) plus an answerer: an extractive rule, the fine-tuned generator, or an
LLM. Predictions are appended to ``<out>.partial`` as each batch finishes, so an interrupted run loses at
most one batch; a rerun skips every question already answered (in the partial file or an earlier finished
file) and, at the end, the complete file replaces ``<out>`` atomically. A question a model fails to answer
(an API that keeps failing) is reported with what to do about it, left out, and retried by the next run;
a server that cannot answer anyone (nothing listening, a wrong key or model) stops the run at once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikihowqa.errors import DatasetError, SettingsError
from wikihowqa.io import (
    DatasetFolder,
    naming,
    prediction_from_dict,
    prediction_to_dict,
    read_predictions,
    write_jsonl,
    write_predictions,
)
from wikihowqa.records import Example, Passage, Prediction, UsedPassage, passages_of
from wikihowqa.retrieve import Ranked

PREDICTIONS_DIR = "predictions"
#: The pseudo-split of every question (a dataset not split yet, e.g. a fresh crawl).
ALL = "all"


def split_examples(folder: DatasetFolder, split: str) -> list[Example]:
    """The questions of ``split`` (``all``: every question); an unknown split name is a user error."""
    try:
        return folder.examples(None if split == ALL else split)
    except ValueError as exc:
        raise SettingsError(str(exc)) from None


# --------------------------------------------------------------------------- items and systems


@dataclass(frozen=True)
class Item:
    """One question to answer: the example, its own passages (document order) and the system's ranking."""

    example: Example
    passages: tuple[Passage, ...]
    ranking: tuple[Ranked, ...] = ()


@dataclass(frozen=True)
class Answer:
    text: str
    used: tuple[Ranked, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # per-question settings (e.g. input token count)


@dataclass(frozen=True)
class Failed:
    """A question the system could not answer this run: why, and what the user can do about it."""

    reason: str
    advice: str = "rerun the command to retry them"


AnswerFn = Callable[[Sequence[Item]], "list[Answer | Failed]"]


@dataclass
class System:
    """A ready-to-run system: which retriever ranks passages (``None``: none) and how a batch is answered."""

    name: str
    retriever: str | None
    answer: AnswerFn
    settings: dict[str, Any]
    batch_size: int = 32
    #: a system that may fail per question (a remote API) returns ``Failed`` for those questions; a batch
    #: that fails as a whole is recorded as failed once, not asked again question by question
    may_fail: bool = False
    #: a system that ranks its own way (seq2seq: as in training) gives its ready retriever and mode;
    #: otherwise both come from the [retrieval] section
    ranking: tuple[Any, str] | None = None


@dataclass(frozen=True)
class Context:
    """What a system factory may use: the dataset, the settings, the split being answered."""

    folder: DatasetFolder
    settings: dict[str, Any]
    split: str
    #: where batches run (``wikihowqa.executor``; ``None``: here) and the neural models' ``--device``
    executor: Any = None
    device: str | None = None

    def section(self, name: str) -> dict[str, Any]:
        value = self.settings.get(name) or {}
        if not isinstance(value, dict):
            raise SettingsError(f"settings: [{name}] must be a mapping")
        return dict(value)

    def max_words(self, section: str) -> int:
        """The answer-length budget: a number, or ``auto`` = mean words of the train split's answers."""
        from wikihowqa.generate.extractive import DEFAULT_MAX_WORDS

        value = self.section(section).get("max_words", "auto")
        if value != "auto":
            if not isinstance(value, int) or value < 1:
                raise SettingsError(f"{section}.max_words must be a positive integer or 'auto'")
            return value
        answers = [e.answer for e in self.folder.examples("train")]
        if not answers:
            return DEFAULT_MAX_WORDS
        return max(1, round(sum(len(a.split()) for a in answers) / len(answers)))


Factory = Callable[[Context], System]


@dataclass(frozen=True)
class SystemSpec:
    name: str
    description: str
    factory: Factory


SYSTEMS: dict[str, SystemSpec] = {}


def register(name: str, description: str) -> Callable[[Factory], Factory]:
    def add(factory: Factory) -> Factory:
        SYSTEMS[name] = SystemSpec(name, description, factory)
        return factory

    return add


def system_names() -> list[str]:
    return list(SYSTEMS)


# --------------------------------------------------------------------------- the systems


def _extractive(retriever: str, method: str) -> Factory:
    def factory(ctx: Context) -> System:
        from wikihowqa.generate import extractive

        s = ctx.section("extractive")
        max_words = ctx.max_words("extractive")
        top = int(s.get("top_passages", 10))
        settings = {"extractor": method, "max_words": max_words}
        if method == "lead":
            per = int(s.get("per_passage", 1))
            settings["per_passage"] = per

            def run(item: Item) -> extractive.Extract:
                return extractive.lead(item.ranking, max_words=max_words, per_passage=per)
        else:
            threshold = s.get("lexrank_threshold", 0.1)
            settings |= {"top_passages": top, "damping": float(s.get("damping", 0.85))}
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
    register(
        f"{_retriever}+lead", f"first sentence of each top {_retriever} passage, up to the answer length"
    )(_extractive(_retriever, "lead"))
register("bm25+textrank", "TextRank over the sentences of the top BM25 passages")(
    _extractive("bm25", "textrank")
)
register("bm25+lexrank", "LexRank over the sentences of the top BM25 passages")(
    _extractive("bm25", "lexrank")
)


@register(
    "oracle", "extractive oracle: greedy ROUGE-1+2 against the gold answer (an upper bound; reads gold)"
)
def _oracle(ctx: Context) -> System:
    from wikihowqa.generate.extractive import oracle

    s = ctx.section("oracle")
    max_sentences = s.get("max_sentences")

    def answer(items: Sequence[Item]) -> list[Answer]:
        out = []
        for item in items:
            in_order = [Ranked(p, 0.0, i) for i, p in enumerate(item.passages, start=1)]
            x = oracle(in_order, item.example.answer, max_sentences=max_sentences)
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


# The lower bounds are defined once, in wikihowqa.evaluate.lower_bounds (which `wikihowqa evaluate` can also
# compute on the fly); these systems write them as predictions files like any other system.


@register("copy-top-passages", "lower bound: the top BM25 passages copied, cut at max_words (default 100)")
def _copy_top(ctx: Context) -> System:
    from wikihowqa.evaluate import lower_bounds

    max_words = int(ctx.section("lower_bounds").get("max_words", lower_bounds.DEFAULT_MAX_WORDS))
    documents = ctx.folder.documents_by_article()

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
        "definition": "wikihowqa.evaluate.lower_bounds.copy_passages",
    }
    return System("copy-top-passages", None, answer, settings)


@register("random-train-answer", "lower bound: the answer of a random train question (never its own)")
def _random_train(ctx: Context) -> System:
    from wikihowqa.evaluate import lower_bounds

    seed = int(ctx.section("lower_bounds").get("seed", 0))
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
        "definition": "wikihowqa.evaluate.lower_bounds.random_train_answer",
    }
    return System("random-train-answer", None, answer, settings)


def generator_config(ctx: Context) -> Any:
    """The generator's settings: those saved with a model trained here, under the [generator] section."""
    from wikihowqa.generate.seq2seq import GeneratorConfig, saved_settings
    from wikihowqa.generate.settings import merge

    s = ctx.section("generator")
    if "model" not in s:
        raise SettingsError(
            "seq2seq needs a model: --model PATH (a model trained with `wikihowqa train`) or "
            "generator.model in the settings file"
        )
    saved = saved_settings(s["model"])
    return GeneratorConfig.from_settings(merge(saved, s) if saved else s)


@register(
    "seq2seq", "the fine-tuned generator (BART, T5, or a decoder-only LM) over the paper's input builder"
)
def _seq2seq(ctx: Context) -> System:
    from wikihowqa.generate.seq2seq import Generator, input_retrieval

    config = generator_config(ctx)
    retriever, mode = input_retrieval(config, ctx.folder.path)  # the generator's, as in training
    generator = Generator.load(config, device=ctx.device)
    generate: Callable[[list[str]], list[str]] = generator.generate
    batch = config.generate.batch_size
    if ctx.executor is not None and ctx.executor.distributed:
        # inputs are built here (the tokenizer counts them); the beams run on the workers, in the batches
        # Generator.generate makes, one batch a task
        from wikihowqa.device import ray_gpus
        from wikihowqa.generate.seq2seq import GeneratorModel

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
        "input_format": _plain(config.input),
        "generate": _plain(config.generate),
    }
    return System(
        "seq2seq",
        retriever.name,
        answer,
        settings,
        batch_size=batch,
        ranking=(retriever, mode),
    )


def _plain(obj: Any) -> dict[str, Any]:
    import dataclasses

    return dataclasses.asdict(obj)


def _llm(ctx: Context, with_passages: bool) -> System:
    import dataclasses

    from wikihowqa.generate.llm import DistributedChat, LLMAnswerer, LLMSettings
    from wikihowqa.retrieve.cache import CACHE_DIR

    settings = LLMSettings.from_settings(ctx.section("llm"))
    if ctx.device and not settings.local.device:
        settings = dataclasses.replace(settings, local=dataclasses.replace(settings.local, device=ctx.device))
    distributed = settings.backend == "local" and ctx.executor is not None and ctx.executor.distributed
    client = DistributedChat(settings.local, ctx.executor) if distributed else None
    cache = ctx.folder.path / CACHE_DIR / "llm-responses.sqlite"
    answerer = LLMAnswerer(settings, cache_path=cache, client=client)
    name = "llm-passages" if with_passages else "llm-qonly"
    described = answerer.describe()

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

    retriever = ctx.section("retrieval").get("retriever", "bm25") if with_passages else None
    batch = settings.local.batch_size if settings.backend == "local" else 8
    if distributed:  # one batch per worker at once, each the batch LocalChat would have generated
        batch *= ctx.executor.parallelism
    return System(name, retriever, answer, described, batch_size=batch, may_fail=settings.backend == "openai")


register("llm-qonly", "zero-shot LLM, question only (backend: openai-compatible API or local SmolLM2)")(
    lambda ctx: _llm(ctx, with_passages=False)
)
register("llm-passages", "zero-shot LLM, question + top retrieved passages (openai-compatible API or local)")(
    lambda ctx: _llm(ctx, with_passages=True)
)


# --------------------------------------------------------------------------- retrieval for a system


def make_retriever(name: str, ctx: Context) -> Any:
    """The ``name`` retriever, its options from the [retrieval] section (e.g. ``retrieval.dense.model``)."""
    from wikihowqa.retrieve import dataset_retriever

    options = ctx.section("retrieval").get(name) or {}
    return dataset_retriever(name, options, ctx.folder.path, executor=ctx.executor, device=ctx.device)


# --------------------------------------------------------------------------- predictions files


def default_output(folder: DatasetFolder, system: str, split: str) -> Path:
    suffix = "" if split == "test" else f".{split}"
    return folder.path / PREDICTIONS_DIR / f"{system}{suffix}.jsonl"


def partial_path(out: Path) -> Path:
    return out.with_name(out.name + ".partial")


def read_partial(path: Path) -> list[Prediction]:
    """Predictions of an interrupted run; a torn last line (the crash) is dropped, other damage reported."""
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            out.append(prediction_from_dict(json.loads(line)))
        except (json.JSONDecodeError, ValueError) as exc:
            if number >= len(lines) - 1:  # the last line: a write cut short
                break
            raise DatasetError(f"{path}:{number}: damaged partial predictions file ({exc})") from None
    return out


def _append(path: Path, predictions: Sequence[Prediction]) -> None:
    with naming(path), path.open("a", encoding="utf-8") as fh:
        for p in predictions:
            fh.write(json.dumps(prediction_to_dict(p), ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


# --------------------------------------------------------------------------- the stage


@dataclass(frozen=True)
class AnswerReport:
    out: Path
    system: str
    split: str
    total: int  # questions asked for
    answered_before: int  # found in the file(s) of an earlier run
    answered_now: int
    failed: dict[int, str]  # article_id → reason
    advice: tuple[str, ...] = ()  # what to do about the failures, one line per kind


def _prediction(system: System, item: Item, answer: Answer, run: dict[str, Any]) -> Prediction:
    used = tuple(
        UsedPassage(r.passage.archive_url, r.passage.position, r.rank, r.passage.text, r.score)
        for r in answer.used
    )
    return Prediction(item.example.article_id, system.name, answer.text, used, {**run, **answer.extra})


def answer_split(
    folder: DatasetFolder,
    system_name: str,
    *,
    split: str = "test",
    limit: int | None = None,
    out: Path | None = None,
    settings: dict[str, Any] | None = None,
    executor: Any = None,
    device: str | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
    log: Callable[[str], None] = lambda _: None,
) -> AnswerReport:
    """Answer the questions of ``split`` (the first ``limit``) with a system; resumable (see module doc).

    ``executor`` (``wikihowqa.executor``) runs the neural work — passage embeddings, local generation — on
    its workers; this process still writes every file. ``device``: ``--device`` of the neural models."""
    if system_name not in SYSTEMS:
        raise SettingsError(f"unknown system {system_name!r} (known: {', '.join(SYSTEMS)})")
    settings = dict(settings or {})
    examples = split_examples(folder, split)
    if not examples:
        raise DatasetError(f"{folder.path}: no questions in the {split} split")
    if limit is not None:
        if limit < 1:
            raise SettingsError("--limit must be at least 1")
        examples = examples[:limit]
    out = Path(out) if out else default_output(folder, system_name, split)
    partial = partial_path(out)
    recovered = read_partial(partial)
    if partial.is_file():  # drop a torn last line before appending after it
        write_jsonl(partial, map(prediction_to_dict, recovered))
    earlier = (read_predictions(out) if out.is_file() else []) + recovered
    for p in earlier:
        if p.system != system_name:
            raise DatasetError(f"{out}: holds predictions of system {p.system!r}, not {system_name!r}")
    done = {p.article_id: p for p in earlier}
    todo = [e for e in examples if e.article_id not in done]
    before = len(examples) - len(todo)
    failed: dict[int, str] = {}
    advice: list[str] = []
    if todo:
        from wikihowqa.generate.llm import ServiceUnavailable

        try:
            ctx = Context(folder, settings, split, executor, device)
            failed, advice = _run(ctx, system_name, todo, partial, progress, before, len(examples), log)
        except ServiceUnavailable as exc:
            kept = len(read_partial(partial))
            if not kept:
                raise
            raise ServiceUnavailable(
                f"{exc}; the {kept} answered so far are kept in {partial}: rerun the same command to resume"
            ) from None
        for p in read_partial(partial):
            done[p.article_id] = p
    ordered = [done[e.article_id] for e in split_examples(folder, split) if e.article_id in done]
    in_split = {p.article_id for p in ordered}
    extra = [p for aid, p in done.items() if aid not in in_split]
    if ordered or extra or out.is_file():  # nothing answered at all: no empty file to mistake for results
        write_predictions(out, [*ordered, *extra])
    partial.unlink(missing_ok=True)
    answered_now = len([e for e in todo if e.article_id in done])
    return AnswerReport(
        out, system_name, split, len(examples), before, answered_now, failed, tuple(dict.fromkeys(advice))
    )


def _run(
    ctx: Context,
    system_name: str,
    todo: list[Example],
    partial: Path,
    progress: Callable[[int, int], None],
    before: int,
    total: int,
    log: Callable[[str], None],
) -> tuple[dict[int, str], list[str]]:
    from wikihowqa.generate.llm import GenerationError, ServiceUnavailable
    from wikihowqa.retrieve import rank_questions

    folder, split = ctx.folder, ctx.split
    log(f"loading {system_name}")
    system = SYSTEMS[system_name].factory(ctx)
    documents = folder.documents_by_article()
    items_passages = [tuple(passages_of(documents.get(e.article_id, []))) for e in todo]
    mode = ctx.section("retrieval").get("mode", "supporting")
    run_settings: dict[str, Any] = {"split": split, **system.settings}
    rankings: Any = iter(())
    if system.retriever:
        if system.ranking:
            retriever, mode = system.ranking
        else:
            retriever = make_retriever(system.retriever, ctx)
        run_settings["retrieval"] = {"mode": mode, **retriever.settings()}
        pool: list[Passage] = []
        if mode == "open":  # every passage of the split is a candidate for every question
            pool = [
                p for e in split_examples(folder, split) for p in passages_of(documents.get(e.article_id, []))
            ]
        log(f"ranking passages with {system.retriever} ({mode} mode)")
        rankings = rank_questions(
            retriever,
            [(e.question, ps) for e, ps in zip(todo, items_passages, strict=True)],
            mode=mode,
            pool=pool,
        )
    failed: dict[int, str] = {}
    advice: list[str] = []
    done = before
    partial.parent.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(todo), system.batch_size):
        batch = [
            Item(e, ps, tuple(next(rankings)) if system.retriever else ())
            for e, ps in zip(
                todo[start : start + system.batch_size],
                items_passages[start : start + system.batch_size],
                strict=True,
            )
        ]
        try:
            answers: list[Answer | Failed] = list(system.answer(batch))
        except GenerationError as exc:
            if not system.may_fail or isinstance(exc, ServiceUnavailable):
                raise
            # the batch failed as a whole after its retries: recorded once, not asked again one by one
            answers = [Failed(str(exc), exc.advice()) for _ in batch]
        if len(answers) != len(batch):
            raise RuntimeError(f"{system.name} returned {len(answers)} answers for {len(batch)} questions")
        kept = []
        for item, a in zip(batch, answers, strict=True):
            if isinstance(a, Failed):
                failed[item.example.article_id] = a.reason
                advice.append(a.advice)
                log(f"question {item.example.article_id} failed: {a.reason}")
            else:
                kept.append(_prediction(system, item, a, run_settings))
        _append(partial, kept)
        done += len(batch)
        progress(done, total)
    return failed, advice


# --------------------------------------------------------------------------- demo


def demo_step(ctx: Any) -> None:
    """``wikihowqa demo``: answer the demo test split with BM25 + lead sentences (every question) and with
    SmolLM2 + passages (the first ``answer_llm_limit`` questions, 3 by default, short answers)."""
    from rich.console import Console

    source = next(
        (ctx.out / n for n in ("dataset", "real-examples") if (ctx.out / n / "qa.jsonl").is_file()), None
    )
    if source is None:
        raise DatasetError(f"{ctx.out}: no dataset/ (or real-examples/) folder to answer")
    folder = DatasetFolder(source)
    # the test split; a dataset not split yet (a fresh crawl) is answered whole
    split = next((name for name in ("test", "validation") if folder.examples(name)), ALL)
    console = Console(stderr=True)
    runs: list[tuple[str, int | None, dict[str, Any]]] = [("bm25+lead", None, {})]
    if ctx.settings.get("answer_llm", True):
        llm = {
            "backend": "local",
            "local": {"max_new_tokens": int(ctx.settings.get("answer_llm_tokens", 48))},
            "prompt": {"max_context_tokens": 512},
        }
        runs.append(("llm-passages", int(ctx.settings.get("answer_llm_limit", 3)), {"llm": llm}))
    for system, limit, settings in runs:
        out = ctx.out / PREDICTIONS_DIR / f"{system}.jsonl"
        report = answer_split(folder, system, split=split, limit=limit, out=out, settings=settings)
        failed = f", {len(report.failed)} failed" if report.failed else ""
        n = report.answered_now + report.answered_before
        console.print(f"  {system}: {n} answer(s) ({split} questions) → {out}")
        ctx.record(f"predictions: {system}", out, f"{n} answer(s){failed}")
