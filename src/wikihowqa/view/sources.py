"""What the explorer shows, read from the stages' outputs into typed records.

Inputs: a dataset folder (questions, documents, ``manifest.json``), optionally the ``stats`` report
(``stats.json``), the evaluate report (``evaluation.json`` for the leaderboard and paired tests,
``per_question.jsonl`` for every answer's scores and per-sentence grounding), predictions files (answers of
systems the report does not score) and the meta-evaluation (``meta_evaluation.json``). Nothing is computed
here that a stage already computed: the explorer shows the stages' numbers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.records import Document, Example, Prediction
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.readers import iter_jsonl, read_predictions
from wikihowqa.evaluate.pipeline import GOLD_SYSTEM, LEADERBOARD
from wikihowqa.metaeval.report import FILES as META_FILES
from wikihowqa.stats.report import REPORT_JSON as STATS_JSON

EVALUATION_JSON = "evaluation.json"
PER_QUESTION = "per_question.jsonl"
META_JSON = META_FILES[0]


@dataclass(frozen=True, slots=True)
class Metric:
    """A leaderboard metric: its label, its per-question column and the factor the leaderboard shows it by."""

    label: str
    column: str
    scale: float


@dataclass(frozen=True, slots=True)
class SentenceSupport:
    """One answer sentence as grounding scored it: its support, and its passages best first (id, score)."""

    sentence: str
    support: float
    supported: bool
    passages: tuple[tuple[str, float], ...]
    evidence: tuple[tuple[str, str, str, float, tuple[str, ...]], ...] = ()  # clause, passage, sentence, …


@dataclass(frozen=True, slots=True)
class AssessorSpan:
    """An error span an assessor marked on this answer in a study's ``errors`` part (accepted judgments)."""

    start: int
    end: int
    text: str
    type: str
    severity: str
    assessor: str
    part: str
    simulated: bool  # a simulated assessor's (``simulate-judgments``), not a person's


@dataclass(frozen=True, slots=True)
class Answer:
    """One system's answer to one question, with its scores (column -> raw value) and grounding."""

    system: str
    text: str
    scores: Mapping[str, float | None] = field(default_factory=dict)
    sentences: tuple[SentenceSupport, ...] | None = None  # None: grounding not computed or not kept
    error_spans: tuple[AssessorSpan, ...] = ()  # the study's accepted error spans of this very text


@dataclass
class Sources:
    dataset: DatasetFolder
    examples: list[Example]
    documents: dict[int, list[Document]]
    manifest: dict[str, Any]
    stats: dict[str, Any] | None
    evaluation: dict[str, Any] | None
    meta: dict[str, Any] | None
    systems: list[str]  # leaderboard order, then the systems only predictions files name
    metrics: list[Metric]
    answers: dict[int, list[Answer]]  # article -> its answers, in ``systems`` order (gold excluded)
    gold: dict[int, Answer]  # article -> the gold answer's grounding, where the report has it


def _json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise DatasetError(f"{path}: expected a JSON object")
    return value


def _finite(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


def sentence_supports(grounding: Any) -> tuple[SentenceSupport, ...] | None:
    """The per-sentence support of a ``per_question.jsonl`` row's ``grounding`` (``AnswerGrounding.to_dict``);
    ``None`` when the row has none (grounding off, or scores taken from an older cache without details)."""
    if not isinstance(grounding, Mapping) or not isinstance(grounding.get("sentences"), list):
        return None
    out = []
    for s in grounding["sentences"]:
        passages = tuple((str(p["id"]), float(p["score"])) for p in s.get("passages", []))
        evidence = tuple(
            (
                str(e.get("clause", "")),
                str(e.get("passage_id", "")),
                str(e.get("sentence", "")),
                float(e.get("precision", 0.0)),
                tuple(map(str, e.get("clashes", []))),
            )
            for e in s.get("evidence", [])
        )
        out.append(
            SentenceSupport(str(s["sentence"]), float(s["support"]), bool(s["supported"]), passages, evidence)
        )
    return tuple(out)


def metrics_of(evaluation: Mapping[str, Any] | None) -> list[Metric]:
    """The report's leaderboard metrics, in the leaderboard's order, with their per-question columns."""
    if evaluation is None:
        return []
    scales = evaluation.get("scales") or {}
    return [
        Metric(label, column, float(scales[label])) for label, column, _ in LEADERBOARD if label in scales
    ]


def _report_answers(
    path: Path, wanted: set[int]
) -> tuple[dict[tuple[int, str], Answer], dict[int, Answer], list[str]]:
    """Answers of ``per_question.jsonl`` by (article, system), the gold rows apart, and the systems seen."""
    answers: dict[tuple[int, str], Answer] = {}
    gold: dict[int, Answer] = {}
    systems: dict[str, None] = {}
    for line, row in iter_jsonl(path):
        try:
            article, system = int(row["article_id"]), str(row["system"])
            scores = {str(k): _finite(v) for k, v in (row.get("scores") or {}).items()}
            answer = Answer(
                system, str(row.get("answer") or ""), scores, sentence_supports(row.get("grounding"))
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DatasetError(
                f"{path}:{line}: not a per-question row of the evaluate report ({exc})"
            ) from None
        if article not in wanted:
            continue
        if system == GOLD_SYSTEM:
            gold[article] = answer
        else:
            systems.setdefault(system)
            answers[(article, system)] = answer
    return answers, gold, list(systems)


def find_stats(dataset: Path, report: Path | None, given: Path | None) -> Path | None:
    """``stats.json``: in the folder given, else beside the evaluate report (the demo's layout), else in
    ``DATASET/stats`` (``wikihowqa stats``' default)."""
    if given is not None:
        path = Path(given)
        path = path / STATS_JSON if path.is_dir() else path
        if not path.is_file():
            raise DatasetError(f"{given}: no {STATS_JSON} (run `wikihowqa stats` first)")
        return path
    for folder in (report, dataset / "stats"):
        if folder is not None and (folder / STATS_JSON).is_file():
            return folder / STATS_JSON
    return None


def _checked_predictions(path: Path, wanted: set[int], dataset: Path) -> list[Prediction]:
    """A predictions file's rows; one that answers no question of the dataset, or names no system, is an
    error (as ``evaluate`` says): shown, it would be a site of "0 systems" that looks like a result."""
    rows = read_predictions(path)
    blank = next((p for p in rows if not p.system.strip()), None)
    if blank is not None:
        raise DatasetError(
            f"{path}: the prediction for question {blank.article_id} has an empty system name; every row "
            "names the system that answered"
        )
    if not any(p.article_id in wanted for p in rows):
        raise DatasetError(
            f"{path}: answers no question of {dataset}: none of its {len(rows)} predictions is for one of "
            f"its {len(wanted)} questions (predictions of another dataset?)"
        )
    return rows


def read_sources(
    dataset: Path,
    *,
    report: Path | None = None,
    predictions: Sequence[Path] = (),
    study: Path | None = None,
    stats: Path | None = None,
) -> Sources:
    """Everything the site shows; a missing or foreign input is one error naming it."""
    folder = DatasetFolder(Path(dataset))
    examples = folder.examples()
    if not examples:
        raise DatasetError(f"{folder.path}: no questions in the dataset")
    documents = folder.documents_by_article()
    wanted = {e.article_id for e in examples}
    evaluation = None
    by_key: dict[tuple[int, str], Answer] = {}
    gold: dict[int, Answer] = {}
    systems: list[str] = []
    if report is not None:
        report = Path(report)
        for name in (EVALUATION_JSON, PER_QUESTION):
            if not (report / name).is_file():
                raise DatasetError(f"{report}: no {name} (give the folder `wikihowqa evaluate` wrote)")
        evaluation = _json(report / EVALUATION_JSON)
        by_key, gold, seen = _report_answers(report / PER_QUESTION, wanted)
        if not by_key:
            raise DatasetError(
                f"{report / PER_QUESTION}: none of its answers is to a question of {folder.path}"
            )
        ranked = [str(row["system"]) for row in evaluation.get("leaderboard", [])]
        systems = [s for s in ranked if s in seen] + [s for s in seen if s not in ranked]
    for path in predictions:
        rows = _checked_predictions(Path(path), wanted, folder.path)
        for p in rows:
            if p.article_id in wanted and (p.article_id, p.system) not in by_key:
                by_key[(p.article_id, p.system)] = Answer(p.system, p.answer)
                if p.system not in systems:
                    systems.append(p.system)
    answers = {
        e.article_id: [by_key[(e.article_id, s)] for s in systems if (e.article_id, s) in by_key]
        for e in examples
    }
    meta = None
    if study is not None:
        path = Path(study) / META_JSON
        if not path.is_file():
            raise DatasetError(f"{study}: no {META_JSON} (give the folder `wikihowqa meta-evaluate` wrote)")
        meta = _json(path)
        spans = study_error_spans(meta)
        answers = {
            article: [replace(a, error_spans=spans.get((article, a.text), ())) for a in rows]
            for article, rows in answers.items()
        }
    stats_path = find_stats(folder.path, report, stats)
    return Sources(
        dataset=folder,
        examples=examples,
        documents=documents,
        manifest=folder.manifest(),
        stats=_json(stats_path) if stats_path else None,
        evaluation=evaluation,
        meta=meta,
        systems=systems,
        metrics=metrics_of(evaluation),
        answers=answers,
        gold=gold,
    )


def study_error_spans(meta: Mapping[str, Any]) -> dict[tuple[int, str], tuple[AssessorSpan, ...]]:
    """(article, answer text) → the accepted error spans of the study the meta-evaluation names
    (``sources.study``), by the analysis's screening; empty where it names none or has no errors part."""
    from wikihowqa.humaneval.analysis import read_judgments, screen
    from wikihowqa.humaneval.tasks import read_study
    from wikihowqa.metaeval.stage import judgments_path

    folder = (meta.get("sources") or {}).get("study")
    if not folder or not (Path(folder) / "study.json").is_file():
        return {}
    study = read_study(Path(folder))
    tasks = study.tasks_by_id()
    if not any(t["type"] == "errors" for t in tasks.values()):
        return {}
    try:  # judgments still on the study server (not exported): nothing to show yet
        path = judgments_path(Path(folder), study.manifest)
    except DatasetError:
        return {}
    accepted, _ = screen(read_judgments(path), study)
    out: dict[tuple[int, str], list[AssessorSpan]] = {}
    for j in accepted:
        task = tasks[j["task_id"]]
        if task["type"] != "errors":
            continue
        simulated = str(j.get("judgment_id", "")).startswith("sim-")
        text = task["answer"]["text"]
        out.setdefault((int(task["article_id"]), text), []).extend(
            AssessorSpan(
                int(s["start"]),
                int(s["end"]),
                text[s["start"] : s["end"]],
                str(s["type"]),
                str(s["severity"]),
                str(j["assessor_id"]),
                str(task["part"]),
                simulated,
            )
            for s in j.get("error_spans") or []
        )
    return {k: tuple(sorted(v, key=lambda s: (s.start, s.end, s.assessor))) for k, v in out.items()}


def page_type(document: Document) -> str:
    """The page type the parse stage recognised, ``unknown`` where none was recorded (as ``stats`` counts)."""
    info = document.extra.get("parse") if isinstance(document.extra, Mapping) else None
    kind = info.get("page_type") if isinstance(info, Mapping) else None
    return kind if isinstance(kind, str) and kind else "unknown"


def passage_spans(document: Document) -> list[tuple[int, int]]:
    """Where each passage lies in the document's text: the parse stage cuts passages as exact slices, in
    order; a passage not found (a document parsed elsewhere) gets an empty span at the search point."""
    spans = []
    text = document.parsed_text
    at = 0
    for passage in document.passages:
        start = text.find(passage, at)
        if start < 0:
            start = text.find(passage)
        if start < 0:
            spans.append((at, at))
            continue
        spans.append((start, start + len(passage)))
        at = start + len(passage)
    return spans
