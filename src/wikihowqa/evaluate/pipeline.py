"""The evaluate stage: prediction files + a dataset split → per-question scores for every system.

Scores are cached in the output folder, keyed by what they depend on (metric settings, prediction,
reference, passages), so an interrupted run resumes where it stopped and a rerun with one more system
only scores that system.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError, SettingsError
from wikihowqa.core.progress import QUIET, Progress
from wikihowqa.core.records import SPLITS, Document, Example, Prediction, normalise_split, passages_of
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.readers import read_predictions
from wikihowqa.evaluate import judge_spread, pairwise, rouge
from wikihowqa.evaluate.bertscore import BertScoreConfig, BertScoreModel, BertScorer
from wikihowqa.evaluate.grounding import GroundingConfig, GroundingModel, GroundingScorer
from wikihowqa.evaluate.judge import Judge, JudgeConfig
from wikihowqa.evaluate.judge_cost import Tokens, total
from wikihowqa.evaluate.score_cache import JsonRecords, ScoreCache, cached_batches
from wikihowqa.generate import lower_bounds
from wikihowqa.retrieve.cache import EmbeddingCache, default_cache_path
from wikihowqa.runtime.device import ray_gpus
from wikihowqa.runtime.executor import Executor

ROUGE_COLUMNS = tuple(
    f"{t}_{f}" for t in ("rouge1", "rouge2", "rougeL", "rougeLsum") for f in ("p", "r", "f")
)
BERT_COLUMNS = ("bertscore_p", "bertscore_r", "bertscore_f")
GROUNDING_COLUMNS = ("grounding_support", "grounding_supported_share")
#: The LLM judge's two scores (1–5; NaN where its reply was unparseable) and whether it parsed (0/1).
JUDGE_COLUMNS = ("judge_consistency", "judge_usefulness", "judge_parsed")
CACHE_FILE = "scores-cache.jsonl"
#: The judge's API responses, with the dataset (DATASET/cache/), so another report folder reuses them.
JUDGE_RESPONSES = Path("cache") / "judge-responses.sqlite"
GOLD_SYSTEM = "gold answer (human)"
#: The details of a grounding score cached before details were (an older cache).
FROM_CACHE = json.dumps({"from_cache": True})

#: (label, column, scale) of the leaderboard, in order.
LEADERBOARD: tuple[tuple[str, str, float], ...] = (
    ("R-1", "rouge1_f", 100.0),
    ("R-2", "rouge2_f", 100.0),
    ("R-L", "rougeL_f", 100.0),
    ("R-Lsum", "rougeLsum_f", 100.0),
    ("BERTScore", "bertscore_f", 1.0),
    ("Grounding", "grounding_support", 1.0),
    ("Supported", "grounding_supported_share", 100.0),
    ("Judge: consistency", "judge_consistency", 1.0),
    ("Judge: usefulness", "judge_usefulness", 1.0),
    ("Judge parsed", "judge_parsed", 100.0),
)
#: Split name that scores every question of the dataset (e.g. a study's answers, drawn from all splits).
ALL_SPLITS = "all"


@dataclass(frozen=True)
class EvaluationSettings:
    split: str = "test"
    bertscore: BertScoreConfig | None = field(default_factory=BertScoreConfig)
    grounding: GroundingConfig | None = field(default_factory=GroundingConfig)
    judge: JudgeConfig | None = None
    judge_pairwise: tuple[str, str] | None = None  # two systems the judge compares (both orders)
    lower_bounds: bool = False
    copy_max_words: int = 100
    confidence: float = 0.95
    resamples: int = 1000
    seed: int = 0
    workers: int | None = None  # ROUGE processes
    torch_threads: int | None = None  # threads of the neural models (None: torch's default)

    def __post_init__(self) -> None:
        if self.resamples < 100:  # fewer make the intervals and p-values noise
            raise SettingsError(f"resamples {self.resamples}: use at least 100 (--resamples)")


@dataclass
class SystemResult:
    system: str
    source: str
    article_ids: list[int]
    answers: list[str]
    scores: dict[str, list[float]] = field(default_factory=dict)  # column -> one value per question
    grounding_details: Sequence[dict[str, Any]] | None = None  # JsonRecords: decoded as read
    judge_details: list[dict[str, Any]] | None = None
    judge_tokens: Tokens | None = None  # every judge call behind this system's verdicts
    judge_too_large: list[int] | None = None  # article ids whose judge reply was too large to read
    judge_spread: dict[str, judge_spread.Spread] | None = None  # with --judge-samples above 1
    missing: int = 0  # questions of the split without a prediction (scored as empty answers)
    outside_split: int = 0  # predictions for questions not in the split (ignored)


@dataclass
class Evaluation:
    dataset: str
    split: str
    examples: list[Example]
    systems: list[SystemResult]
    gold_grounding: SystemResult | None
    metadata: dict[str, Any]
    settings: EvaluationSettings
    pairwise: list[pairwise.PairwiseResult] = field(default_factory=list)


# --------------------------------------------------------------------------- inputs


def _check_split(split: str) -> None:
    if split == ALL_SPLITS:
        return
    try:
        normalise_split(split)
    except ValueError:
        known = ", ".join((*SPLITS, ALL_SPLITS))
        raise SettingsError(f"--split {split}: unknown split {split!r} (known: {known})") from None


def split_questions(folder: DatasetFolder, split: str) -> list[Example]:
    """The questions of ``split`` (``all``: every one); an unknown split name is a user error naming it."""
    _check_split(split)
    return folder.examples(None if split == ALL_SPLITS else split)


def check_request(prediction_paths: Sequence[Path], settings: EvaluationSettings) -> None:
    """A request that cannot give a report is refused before any work (and before any progress bar)."""
    _check_split(settings.split)
    if not prediction_paths and not settings.lower_bounds:
        raise SettingsError("give at least one predictions file (or --lower-bounds)")
    pair = settings.judge_pairwise
    if pair is not None and settings.judge is None:
        raise SettingsError("--judge-pairwise needs a judge: add --judge MODEL")
    if pair is not None and pair[0] == pair[1]:
        raise SettingsError(f"--judge-pairwise {pair[0]} {pair[1]}: name two different systems")


def load_systems(paths: Sequence[Path]) -> dict[str, tuple[str, list[Prediction]]]:
    """Predictions grouped by system name; one system may not answer a question twice."""
    systems: dict[str, tuple[str, list[Prediction]]] = {}
    seen: dict[tuple[str, int], Path] = {}
    for path in map(Path, paths):
        for prediction in read_predictions(path):
            key = (prediction.system, prediction.article_id)
            if key in seen:
                raise DatasetError(
                    f"{path}: system {prediction.system!r} answers article_id {prediction.article_id} twice"
                    f" (also in {seen[key]})"
                )
            seen[key] = path
            _, predictions = systems.setdefault(prediction.system, (str(path), []))
            predictions.append(prediction)
    return systems


def _align(examples: list[Example], predictions: list[Prediction]) -> tuple[list[str], int, int]:
    by_id = {p.article_id: p for p in predictions}
    wanted = {e.article_id for e in examples}
    answers = [by_id[e.article_id].answer if e.article_id in by_id else "" for e in examples]
    missing = sum(1 for e in examples if e.article_id not in by_id)
    outside = sum(1 for a in by_id if a not in wanted)
    return answers, missing, outside


def check_coverage(
    folder: DatasetFolder,
    split: str,
    examples: list[Example],
    systems: dict[str, tuple[str, list[Prediction]]],
) -> None:
    """A predictions file that answers no question of the split is an error (it would score 0.0), saying
    which splits its questions are in; a partial match is scored, and the caller warns."""
    wanted = {e.article_id for e in examples}
    for name, (source, predictions) in systems.items():
        if any(p.article_id in wanted for p in predictions):
            continue
        split_of = {e.article_id: e.split or "none" for e in folder.examples()}
        found: dict[str, int] = {}
        for p in predictions:
            where = split_of.get(p.article_id, "not in the dataset")
            found[where] = found.get(where, 0) + 1
        where = ", ".join(f"{n} {s}" for s, n in sorted(found.items(), key=lambda kv: -kv[1]))
        splits = [s for s in found if s in ("train", "validation", "test")]
        hint = f"; use --split {splits[0]} or --split all" if splits else ""
        raise DatasetError(
            f"{source}: none of the {len(predictions)} predictions of system {name!r} answers a question "
            f"of the {split} split ({len(examples)} questions); their questions: {where}{hint}"
        )


def coverage_warnings(evaluation: Evaluation) -> list[str]:
    """One line per system whose predictions cover the split only in part (its scores are lowered)."""
    lines = []
    n = len(evaluation.examples)
    for result in evaluation.systems:
        parts = []
        if result.missing:
            parts.append(
                f"{result.missing} of {n} {evaluation.split} questions have no prediction (scored as empty "
                "answers, which lowers every score)"
            )
        if result.outside_split:
            parts.append(f"{result.outside_split} predictions answer questions outside the split (ignored)")
        if parts:
            lines.append(f"system {result.system!r} ({result.source}): " + "; ".join(parts))
    return lines


# --------------------------------------------------------------------------- metric groups


def _rouge(
    results: list[SystemResult],
    references: list[str],
    cache: ScoreCache,
    settings: EvaluationSettings,
    progress: Progress,
    executor: Executor | None = None,
) -> None:
    """ROUGE of every system's answers in one call: one pool of worker processes for everything."""
    jobs = [(s, q) for s in range(len(results)) for q in range(len(references))]
    keys = [
        cache.key("rouge-score-0.1.2-stem-nupunkt", results[s].answers[q], references[q]) for s, q in jobs
    ]

    def compute(chunk: list[int]) -> list[list[float]]:
        pairs = [jobs[i] for i in chunk]
        scores = rouge.score_pairs(
            [results[s].answers[q] for s, q in pairs],
            [references[q] for _, q in pairs],
            workers=settings.workers,
            executor=executor,
        )
        return [[x[t][f] for t in rouge.ROUGE_TYPES for f in rouge.FIELDS] for x in scores]

    values = cached_batches("ROUGE", keys, cache, compute, progress, batch=len(keys) or 1)
    for s, result in enumerate(results):
        rows = values[s * len(references) : (s + 1) * len(references)]
        result.scores.update({c: [v[k] for v in rows] for k, c in enumerate(ROUGE_COLUMNS)})


def _bertscore(
    answers: list[str],
    references: list[str],
    scorer: Any,
    cache: ScoreCache,
    progress: Progress,
    label: str,
    executor: Executor | None = None,
) -> dict[str, list[float]]:
    fingerprint = {
        k: v for k, v in scorer.metadata.items() if k not in {"model_type", "note", "rescale_note"}
    }
    if scorer.config.idf:  # idf weights depend on the whole reference set
        fingerprint["idf_sentences"] = cache.key(references)
    keys = [cache.key("bertscore", fingerprint, a, r) for a, r in zip(answers, references, strict=True)]

    def rows(result: Any) -> list[list[float]]:
        return [list(v) for v in zip(result.precision, result.recall, result.f1, strict=True)]

    def compute(chunk: list[int]) -> list[list[float]]:
        return rows(scorer.score([answers[i] for i in chunk], [references[i] for i in chunk]))

    compute_all = None
    if executor is not None and executor.distributed:
        spec = BertScoreModel(scorer.config, tuple(scorer._idf_sentences) if scorer._idf_sentences else None)
        gpus = ray_gpus(scorer.config.device, getattr(executor, "gpus_available", 0))

        def compute_all(chunks: list[list[int]]) -> Iterator[list[list[float]]]:
            batches = (([answers[i] for i in c], [references[i] for i in c]) for c in chunks)
            return map(rows, executor.map_model(spec, "score_batch", batches, gpus=gpus))

    values = cached_batches(
        f"BERTScore {label}", keys, cache, compute, progress, 512, compute_all, fixed_batches=True
    )
    return {c: [v[k] for v in values] for k, c in enumerate(BERT_COLUMNS)}


def _open_embeddings(path: Path) -> EmbeddingCache | None:
    """The dataset's embedding cache, or none where the dataset folder cannot hold one (read-only)."""
    try:
        return EmbeddingCache(path)
    except (OSError, sqlite3.Error):
        return None


def _grounding(
    results: list[SystemResult],
    passages: list[list],
    scorer: Any,
    cache: ScoreCache,
    progress: Progress,
    executor: Executor | None = None,
) -> None:
    """Grounding of every system's answers, question by question so passages are embedded once."""
    fingerprint = scorer.metadata()
    passage_keys = [cache.key([p.text for p in ps]) for ps in passages]
    jobs = [(q, s) for q in range(len(passages)) for s in range(len(results))]
    keys = [cache.key("grounding", fingerprint, results[s].answers[q], passage_keys[q]) for q, s in jobs]

    def keep(chunk: list[int], grounded: list[Any]) -> list[list[float]]:
        cache.put_details([(keys[i], g.to_dict()) for i, g in zip(chunk, grounded, strict=True)])
        return [[g.mean_support, g.supported_share] for g in grounded]

    def pairs(chunk: list[int]) -> list[tuple[str, list]]:
        return [(results[s].answers[q], passages[q]) for q, s in (jobs[i] for i in chunk)]

    def compute(chunk: list[int]) -> list[list[float]]:
        return keep(chunk, scorer.score_many(pairs(chunk)))

    compute_all = None
    if executor is not None and executor.distributed:
        spec = GroundingModel(scorer.config)
        gpus = ray_gpus(scorer.config.device, getattr(executor, "gpus_available", 0))

        def compute_all(chunks: list[list[int]]) -> Iterator[list[list[float]]]:
            done = executor.map_model(spec, "score_many", map(pairs, chunks), gpus=gpus)
            return (keep(c, g) for c, g in zip(chunks, done, strict=True))

    # scores cached before their details were (older caches) are scored again, details and all
    cache.forget(k for k in keys if cache.get(k) is not None and cache.details_text(k) is None)
    batches = cached_batches("grounding", keys, cache, compute, progress, 64, compute_all)
    values = dict(zip(jobs, batches, strict=True))
    for s, result in enumerate(results):
        for k, column in enumerate(GROUNDING_COLUMNS):
            result.scores[column] = [values[(q, s)][k] for q in range(len(passages))]
        result.grounding_details = JsonRecords(
            cache.details_text(keys[q * len(results) + s]) or FROM_CACHE for q in range(len(passages))
        )


def _judge(
    results: list[SystemResult],
    questions: list[str],
    passages: list[list],
    judge: Any,
    cache: ScoreCache,
    progress: Progress,
) -> int:
    """The LLM judge's verdicts on every answer, ``samples`` each: the scores are their mean (NaN where
    none parsed), ``judge_parsed`` the share parsed; returns how many requests went to the server."""
    fingerprint = judge.metadata()
    samples = judge.config.samples
    passage_keys = [cache.key([p.text for p in ps]) for ps in passages]
    jobs = [(q, s, k) for q in range(len(passages)) for s in range(len(results)) for k in range(samples)]
    keys = [
        cache.key("judge-2", fingerprint, k, questions[q], results[s].answers[q], passage_keys[q])
        for q, s, k in jobs
    ]
    details: dict[tuple[int, int, int], dict[str, Any]] = {}
    sent = 0

    def compute(chunk: list[int]) -> list[list[float]]:
        nonlocal sent
        out: dict[int, list[float]] = {}
        for k in range(samples):
            batch = [i for i in chunk if jobs[i][2] == k]
            picked = [jobs[i] for i in batch]
            items = [(questions[q], results[s].answers[q], passages[q]) for q, s, _ in picked]
            for i, (v, reply) in zip(batch, judge.judge_counted(items, sample=k), strict=True):
                details[jobs[i]] = v.to_dict()
                sent += bool(reply and reply.sent)
                tokens = reply.tokens if reply else Tokens()
                out[i] = [v.consistency, v.usefulness, float(v.parsed), *tokens.to_list()]  # type: ignore[list-item]
        return [out[i] for i in chunk]

    values = dict(zip(jobs, cached_batches("judge", keys, cache, compute, progress, batch=8), strict=True))
    n = len(passages)
    for s, result in enumerate(results):
        drawn = [[values[(q, s, k)] for k in range(samples)] for q in range(n)]
        for c, column in enumerate(JUDGE_COLUMNS[:2]):
            result.scores[column] = [judge_spread.mean_of_samples([d[c] for d in draws]) for draws in drawn]
        result.scores[JUDGE_COLUMNS[2]] = [sum(d[2] for d in draws) / samples for draws in drawn]
        result.judge_tokens = total(Tokens.from_list(d[3:]) for draws in drawn for d in draws)
        big = [q for q in range(n) if any(Tokens.from_list(d[3:]).oversized for d in drawn[q])]
        result.judge_too_large = [result.article_ids[q] for q in big]
        if samples > 1:
            criteria = ("consistency", "usefulness")
            result.judge_spread = {
                name: judge_spread.spread([[d[c] for d in draws] for draws in drawn])
                for c, name in enumerate(criteria)
            }
        found = [[details.get((q, s, k), {"from_cache": True}) for k in range(samples)] for q in range(n)]
        result.judge_details = [f[0] if samples == 1 else {"samples": f} for f in found]
    return sent


# --------------------------------------------------------------------------- the stage


def evaluate(
    dataset: Path,
    prediction_paths: Sequence[Path],
    settings: EvaluationSettings | None = None,
    *,
    cache_dir: Path | None = None,
    progress: Progress = QUIET,
    executor: Executor | None = None,
) -> Evaluation:
    """Score every system in ``prediction_paths`` on the ``settings.split`` questions of ``dataset``.

    A distributed ``executor`` (``wikihowqa.runtime.executor``) computes ROUGE, BERTScore and grounding
    batches
    on its workers; this process alone writes the score cache and the report."""
    settings = settings or EvaluationSettings()
    check_request(prediction_paths, settings)
    folder = DatasetFolder(Path(dataset))
    examples = split_questions(folder, settings.split)
    if not examples:
        raise DatasetError(f"{folder.path}: no questions in split {settings.split!r}")
    systems = load_systems(prediction_paths)
    check_coverage(folder, settings.split, examples, systems)
    documents: dict[int, list[Document]] = {}
    if settings.grounding is not None or settings.judge is not None or settings.lower_bounds:
        documents = folder.documents_by_article({e.article_id for e in examples}, texts=False)  # passages
    if settings.lower_bounds:
        copied = lower_bounds.copy_passages_all(examples, documents, max_words=settings.copy_max_words)
        systems.setdefault(lower_bounds.COPY_SYSTEM, ("lower bound (computed)", copied))
        train = folder.examples("train")
        if train:
            drawn = lower_bounds.random_train_answer(examples, train, seed=settings.seed)
            systems.setdefault(lower_bounds.RANDOM_SYSTEM, ("lower bound (computed)", drawn))
    if not systems:
        raise SettingsError("no systems to evaluate: give predictions files or turn lower bounds on")
    for name in settings.judge_pairwise or ():
        if name not in systems and name != GOLD_SYSTEM:
            known = ", ".join(repr(n) for n in [*systems, GOLD_SYSTEM])
            raise SettingsError(f"--judge-pairwise: no system {name!r} to compare (systems: {known})")

    cache = ScoreCache(cache_dir / CACHE_FILE if cache_dir else None)
    references = [e.answer for e in examples]
    passages = [passages_of(documents.get(e.article_id, [])) for e in examples]
    results: list[SystemResult] = []
    for name, (source, predictions) in systems.items():
        answers, missing, outside = _align(examples, predictions)
        results.append(
            SystemResult(
                name,
                source,
                [e.article_id for e in examples],
                answers,
                missing=missing,
                outside_split=outside,
            )
        )

    metadata: dict[str, Any] = {
        "rouge": {
            "implementation": "wikihowqa.evaluate.rouge (equal to rouge-score 0.1.2)",
            "use_stemmer": True,
            "rougeLsum_sentences": "nupunkt, one per line",
        },
    }
    # ROUGE first: its worker processes fork before torch loads
    _rouge(results, references, cache, settings, progress, executor)
    if settings.torch_threads:
        import torch  # heavy: only to set its threads, once the ROUGE workers have forked

        torch.set_num_threads(settings.torch_threads)
    if settings.bertscore is not None:
        bert = BertScorer(settings.bertscore, idf_sentences=references if settings.bertscore.idf else None)
        for result in results:
            result.scores.update(
                _bertscore(result.answers, references, bert, cache, progress, result.system, executor)
            )
        metadata["bertscore"] = {k: v for k, v in bert.metadata.items() if k != "model_type"}
        del bert  # its model, before grounding loads its own
    gold = None
    if settings.grounding is not None or settings.judge is not None:
        gold = SystemResult(GOLD_SYSTEM, "dataset", [e.article_id for e in examples], references)
    if settings.grounding is not None:
        # the passages' vectors from the dataset's embedding cache (what `answer` embedded), extended there;
        # a cluster's workers embed their own (this process alone writes the cache)
        shared = None if executor is not None and executor.distributed else default_cache_path(folder.path)
        vectors = _open_embeddings(shared) if shared is not None else None
        try:
            scorer = GroundingScorer(settings.grounding, passage_cache=vectors)
            _grounding([*results, gold], passages, scorer, cache, progress, executor)
            metadata["grounding"] = scorer.metadata()
        finally:
            if vectors is not None:
                vectors.close()
    compared: list[pairwise.PairwiseResult] = []
    if settings.judge is not None:
        responses = Path(settings.judge.cache) if settings.judge.cache else folder.path / JUDGE_RESPONSES
        judge = Judge(settings.judge, cache_path=responses)
        questions = [e.question for e in examples]
        sent = _judge([*results, gold], questions, passages, judge, cache, progress)
        if settings.judge_pairwise is not None:
            by_name = {r.system: r for r in [*results, gold]}
            pair = [by_name[name] for name in settings.judge_pairwise]

            def cached(name: str, keys: list[str], compute: Callable) -> list[list[float]]:
                return cached_batches(name, keys, cache, compute, progress, batch=8)

            answers = (pair[0].answers, pair[1].answers)
            names = (pair[0].system, pair[1].system)
            compared.append(
                pairwise.judge_pair(judge, names, questions, answers, passages, cache.key, cached)
            )
            sent += compared[-1].requests_sent
        metadata["judge"] = {
            **judge.metadata(),
            "model_loaded": judge.model_name,
            "samples": settings.judge.samples,
            "price_per_million_tokens": settings.judge.price,
            "response_cache": None if settings.judge.backend == "local" else str(responses),
            "requests_sent": sent if judge.requests_sent is None else judge.requests_sent,  # retries too
        }
    return Evaluation(str(folder.path), settings.split, examples, results, gold, metadata, settings, compared)
