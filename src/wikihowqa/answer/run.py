"""The answer stage: a named system answers every question of a split → a predictions file.

The system comes from the registry (``registry.py``, filled by ``systems.py``). Predictions are appended
to ``<out>.partial`` as each batch finishes, so an interrupted run loses at most one batch; a rerun skips
every question already answered (in the partial file or an earlier finished file) and, at the end, the
complete file replaces ``<out>`` atomically. A question a model fails to answer (an API that keeps
failing) is reported with what to do about it, left out, and retried by the next run; a server that
cannot answer anyone (nothing listening, a wrong key or model) stops the run at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikihowqa.answer import systems as _systems  # noqa: F401  (registers the systems)
from wikihowqa.answer.predictions import (
    append_predictions,
    default_output,
    partial_path,
    read_partial,
)
from wikihowqa.answer.record import check_resume, forget, run_record, save_record
from wikihowqa.answer.registry import (
    Answer,
    Context,
    Failed,
    Item,
    System,
    split_examples,
    system_spec,
)
from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.core.progress import QUIET, Progress
from wikihowqa.core.records import Example, Passage, Prediction, UsedPassage, passages_of
from wikihowqa.dataset.codecs import prediction_to_dict
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.readers import read_predictions
from wikihowqa.dataset.writers import write_jsonl, write_predictions
from wikihowqa.generate.llm import GenerationError, ServiceUnavailable
from wikihowqa.retrieve.factory import dataset_retriever, rank_questions
from wikihowqa.schema.base import check
from wikihowqa.schema.settings import AnswerSettings


def make_retriever(name: str, ctx: Context) -> Any:
    """The ``name`` retriever, its options from the [retrieval] section (e.g. ``retrieval.dense.model``)."""
    options = ctx.section("retrieval").get(name) or {}
    return dataset_retriever(name, options, ctx.folder.path, executor=ctx.executor, device=ctx.device)


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

    def summary(self) -> str:
        """One line: how many were answered now and before, and where the file is."""
        written = f"→ {self.out}" if self.out.is_file() else "(no predictions file written)"
        return (
            f"{self.system}: {self.answered_now} answered now, {self.answered_before} earlier, "
            f"of {self.total} {self.split} questions {written}"
        )

    def failure(self, shown: int = 3) -> str | None:
        """One line on the questions that failed (the first ``shown`` with their reasons) and what to do."""
        if not self.failed:
            return None
        listed = "; ".join(f"{aid}: {why}" for aid, why in list(self.failed.items())[:shown])
        more = f" (and {len(self.failed) - shown} more)" if len(self.failed) > shown else ""
        return (
            f"{len(self.failed)} of {self.total} questions failed and are left out: {listed}{more}. "
            f"To fix: {'; '.join(self.advice)}"
        )


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
    progress: Progress = QUIET,
    log: Callable[[str], None] = lambda _: None,
    fresh: bool = False,
    warn: Callable[[str], None] | None = None,
) -> AnswerReport:
    """Answer the questions of ``split`` (the first ``limit``) with a system; resumable (see module doc).

    ``executor`` (``wikihowqa.runtime.executor``) runs the neural work — passage embeddings, local
    generation — on
    its workers; this process still writes every file. ``device``: ``--device`` of the neural models.
    ``progress`` follows the questions in a phase named after the system (those answered before count).
    A resume must run under the record of the earlier answers (``record.py``); ``fresh`` starts over;
    ``warn``: where a one-line warning goes (default ``log``)."""
    spec = system_spec(system_name)
    settings = dict(settings or {})
    typed = check(AnswerSettings, settings, "settings")  # every section, before any work: a typo is one line
    examples = split_examples(folder, split)
    if not examples:
        raise DatasetError(f"{folder.path}: no questions in the {split} split")
    if limit is not None:
        if limit < 1:
            raise SettingsError("--limit must be at least 1")
        examples = examples[:limit]
    out = Path(out) if out else default_output(folder, system_name, split)
    if fresh:
        forget(out)
    partial = partial_path(out)
    recovered = read_partial(partial)
    if partial.is_file():  # drop a torn last line before appending after it
        write_jsonl(partial, map(prediction_to_dict, recovered))
    earlier = (read_predictions(out) if out.is_file() else []) + recovered
    for p in earlier:
        if p.system != system_name:
            raise DatasetError(f"{out}: holds predictions of system {p.system!r}, not {system_name!r}")
    record = run_record(folder, system_name, split, typed, device)
    check_resume(out, bool(earlier), record, warn or log)
    done = {p.article_id: p for p in earlier}
    todo = [e for e in examples if e.article_id not in done]
    before = len(examples) - len(todo)
    progress.phase(system_name, len(examples))
    progress.advance(system_name, before)
    failed: dict[int, str] = {}
    advice: list[str] = []
    if todo:
        try:
            save_record(out, record)  # before the first answer: a crash leaves the partial file with it
            ctx = Context(folder, settings, split, executor, device, typed)
            log(f"loading {system_name}")
            system = spec.factory(ctx)
            failed, advice = _run(ctx, system, todo, partial, progress, system_name, log)
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
        save_record(out, record)
    partial.unlink(missing_ok=True)
    answered_now = len([e for e in todo if e.article_id in done])
    return AnswerReport(
        out, system_name, split, len(examples), before, answered_now, failed, tuple(dict.fromkeys(advice))
    )


def _run(
    ctx: Context,
    system: System,
    todo: list[Example],
    partial: Path,
    progress: Progress,
    phase: str,
    log: Callable[[str], None],
) -> tuple[dict[int, str], list[str]]:
    folder, split = ctx.folder, ctx.split
    articles = {e.article_id for e in split_examples(folder, split)}
    documents = folder.documents_by_article(articles, texts=False)  # the systems read passages alone
    items_passages = [tuple(passages_of(documents.get(e.article_id, []))) for e in todo]
    mode: str = ctx.typed.retrieval.mode
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
        append_predictions(partial, kept)
        progress.advance(phase, len(batch))
    return failed, advice
