"""A study's judgments joined with an evaluation's per-answer scores.

The unit is the answer an assessor saw. Each is looked up in the evaluation's ``per_question.jsonl`` by
article id and exact text — the text shown is the text scored, whatever the predictions file called its
system — so the gold answers, the deteriorated versions and the A/B systems' answers are all found as
long as the evaluation scored them (``study_predictions`` writes them as predictions files). The
original of a deteriorated answer is rebuilt from the key's edits (``old`` put back at each edit), so
the pair "original vs its deteriorated version" needs nothing but the study folder.

Judgments are screened by the analysis's own rules (``humaneval.analysis.screen``) and an edit counts
as found by the analysis's rule: a ``misleading`` span sharing a character with it.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.records import Prediction
from wikihowqa.dataset.readers import iter_jsonl
from wikihowqa.humaneval.analysis import screen, unknown_tasks
from wikihowqa.humaneval.tasks import Study
from wikihowqa.humaneval.text import overlaps

#: System names of the answers ``study_predictions`` writes (the A/B systems keep their own names).
ORIGINAL_SYSTEM = "study: original answer"
DETERIORATED_SYSTEM = "study: deteriorated answer"


@dataclass(frozen=True)
class MetricSpec:
    """An automatic metric as meta-evaluation sees it: a per-answer score, higher meaning better."""

    label: str
    column: str
    reference_based: bool = False  # scored against the dataset's answer (which is the study's original)
    control: bool = False  # a reference row of meta-evaluation itself, not a metric of the evaluation
    draws: int = 1  # > 1: a random score, drawn this many times; reported as the draws' mean and range


#: The evaluation's per-answer columns meta-evaluation knows, in report order (F1 for ROUGE/BERTScore).
KNOWN_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("R-1", "rouge1_f", True),
    MetricSpec("R-2", "rouge2_f", True),
    MetricSpec("R-L", "rougeL_f", True),
    MetricSpec("R-Lsum", "rougeLsum_f", True),
    MetricSpec("BERTScore", "bertscore_f", True),
    MetricSpec("Grounding", "grounding_support", False),
    MetricSpec("Supported", "grounding_supported_share", False),
    MetricSpec("Judge: consistency", "judge_consistency", False),
    MetricSpec("Judge: usefulness", "judge_usefulness", False),
)
CONTROL_KEY = MetricSpec("control: −edits (key)", "control_edits", False, True)
#: A single random score's tau at 45 answers has a standard deviation of about 0.12, so one draw can land
#: 0.25 from zero; the mean and 95% range over many draws is the floor a real metric must clear.
CONTROL_RANDOM = MetricSpec("control: random", "control_random", False, True, draws=200)
#: The length rules (Xu et al., ACL 2023: on expert preference pairs "the longer answer wins" beat every
#: metric): the answer's word count, and its negative. A metric is informative only above the better one.
CONTROL_LONGER = MetricSpec("control: longer answer", "control_longer", False, True)
CONTROL_SHORTER = MetricSpec("control: shorter answer", "control_shorter", False, True)
LENGTH_RULES = (CONTROL_LONGER, CONTROL_SHORTER)


@dataclass(frozen=True)
class ShownAnswer:
    """One answer task (trial A or B) with its accepted judgments."""

    task_id: str
    part: str
    article_id: int
    text: str
    original: str
    edits: int
    usefulness: tuple[int, ...]
    errors_found: tuple[int, ...]  # per judgment: how many of the answer's edits it marked misleading

    @property
    def deteriorated(self) -> bool:
        return self.edits > 0


@dataclass(frozen=True)
class PreferenceTask:
    """One A/B task (a system's answer against gold) with its accepted choices, as model/gold/tie."""

    task_id: str
    article_id: int
    system: str
    model_text: str
    gold_text: str
    outcomes: tuple[str, ...]


@dataclass
class JoinedStudy:
    study_id: str | None
    answers: list[ShownAnswer]
    preferences: list[PreferenceTask]
    metrics: list[MetricSpec]
    scores: dict[tuple[int, str], dict[str, float]]
    unscored: list[dict[str, Any]] = field(default_factory=list)  # study answers the report lacks
    judgments: dict[str, int] = field(default_factory=dict)
    seed: int = 0

    def score(self, metric: MetricSpec, article_id: int, text: str, draw: int = 0) -> float:
        """The metric's score of one answer text; NaN when the report has none (or the judge's reply
        was unparseable). A random control's score depends on the draw."""
        if metric.column == CONTROL_RANDOM.column:
            return _random_score(f"{self.seed}:{draw}", article_id, text)
        if metric.column == CONTROL_LONGER.column:
            return float(len(text.split()))
        if metric.column == CONTROL_SHORTER.column:
            return -float(len(text.split()))
        return self.scores.get((article_id, text), {}).get(metric.column, math.nan)


# --------------------------------------------------------------------------- the study's answers


def original_text(shown: str, edits: Sequence[Mapping[str, Any]]) -> str:
    """The answer before deterioration: each edit's ``new`` (at ``start:end`` of ``shown``) put back to
    ``old``, from the last edit to the first so earlier offsets stay valid."""
    text = shown
    for edit in sorted(edits, key=lambda e: e["start"], reverse=True):
        if text[edit["start"] : edit["end"]] != edit["new"]:
            raise DatasetError(
                f"key edit {edit['start']}:{edit['end']} does not match the shown text"
                f" ({text[edit['start'] : edit['end']]!r} != {edit['new']!r})"
            )
        text = text[: edit["start"]] + edit["old"] + text[edit["end"] :]
    return text


def _preference_texts(task: Mapping[str, Any], secret: Mapping[str, Any]) -> tuple[str, str]:
    gold_side = secret["gold_side"]
    model_side = "B" if gold_side == "A" else "A"
    return task["answers"][model_side]["text"], task["answers"][gold_side]["text"]


def study_predictions(study: Study) -> dict[str, list[Prediction]]:
    """Every answer text the study showed (and each deteriorated answer's original), as predictions by
    system: the originals (= the dataset's answers), the deteriorated versions, and each A/B system's
    answers under its own name. One answer per system and question, as ``evaluate`` requires."""
    tasks = study.tasks_by_id()
    out: dict[str, dict[int, str]] = defaultdict(dict)
    for secret in study.key:
        task = tasks.get(secret["task_id"])
        if task is None:
            continue
        article = int(task["article_id"])
        if task["type"] == "answer":
            shown = task["answer"]["text"]
            out[ORIGINAL_SYSTEM][article] = original_text(shown, secret.get("edits") or [])
            if secret.get("deteriorated"):
                out[DETERIORATED_SYSTEM][article] = shown
        elif task["type"] == "preference":
            model, gold = _preference_texts(task, secret)
            out[ORIGINAL_SYSTEM][article] = gold
            out[secret["system"]][article] = model
        elif task["type"] == "errors":  # a system's real answer, or a planted control
            shown = task["answer"]["text"]
            if secret.get("source") == "control":
                out[ORIGINAL_SYSTEM][article] = original_text(shown, secret.get("edits") or [])
                out[DETERIORATED_SYSTEM][article] = shown
            else:
                out[str(secret["system"])][article] = shown
    return {
        system: [Prediction(a, system, text, settings={"source": "study"}) for a, text in sorted(by.items())]
        for system, by in out.items()
    }


# --------------------------------------------------------------------------- the evaluation's scores


def read_scores(report_dir: Path) -> tuple[dict[tuple[int, str], dict[str, float]], set[str]]:
    """(article id, answer text) → score columns, from ``REPORT/per_question.jsonl``; and the columns seen.
    A missing score (``null``: the judge's reply could not be parsed) reads as NaN."""
    path = Path(report_dir) / "per_question.jsonl"
    if not path.is_file():
        raise DatasetError(
            f"{report_dir}: no per_question.jsonl (give the folder `wikihowqa evaluate` wrote its report to)"
        )
    table: dict[tuple[int, str], dict[str, float]] = {}
    columns: set[str] = set()
    for lineno, row in iter_jsonl(path):
        try:
            key = (int(row["article_id"]), str(row["answer"]))
            values = row["scores"]
            if not isinstance(values, Mapping):
                raise TypeError("scores is not an object")
        except (KeyError, TypeError, ValueError) as exc:
            raise DatasetError(f"{path}:{lineno}: not a per-answer score row ({exc})") from None
        merged = table.setdefault(key, {})
        for column, value in values.items():
            number = math.nan if value is None else float(value)
            if column not in merged or (math.isnan(merged[column]) and not math.isnan(number)):
                merged[column] = number
            columns.add(column)
    return table, columns


def _random_score(seed: int | str, article_id: int, text: str) -> float:
    digest = hashlib.sha256(f"{seed}:{article_id}:{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


# --------------------------------------------------------------------------- the join


def _found(edit: Mapping[str, Any], spans: Iterable[Mapping[str, Any]]) -> bool:
    return any(
        s.get("label") == "misleading" and overlaps((s["start"], s["end"]), (edit["start"], edit["end"]))
        for s in spans
    )


def join(
    study: Study,
    judgments: Sequence[Mapping[str, Any]],
    scores: dict[tuple[int, str], dict[str, float]],
    columns: Iterable[str],
    *,
    controls: bool = True,
    seed: int = 0,
) -> JoinedStudy:
    """The study's answers with their accepted judgments and their scores by every known metric present."""
    tasks, key = study.tasks_by_id(), study.key_by_id()
    accepted, rejected = screen(judgments, study)
    by_task: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for j in accepted:
        by_task[j["task_id"]].append(j)

    answers: list[ShownAnswer] = []
    preferences: list[PreferenceTask] = []
    for task_id, js in by_task.items():
        task, secret = tasks[task_id], key[task_id]
        if task["type"] == "answer":
            edits = secret.get("edits") or []
            text = task["answer"]["text"]
            answers.append(
                ShownAnswer(
                    task_id,
                    task["part"],
                    int(task["article_id"]),
                    text,
                    original_text(text, edits),
                    len(edits),
                    tuple(int(j["usefulness"]) for j in js),
                    tuple(sum(_found(e, j.get("spans", [])) for e in edits) for j in js),
                )
            )
        elif task["type"] == "preference":
            model, gold = _preference_texts(task, secret)
            outcomes = tuple(
                "tie" if j["choice"] == "tie" else ("gold" if j["choice"] == secret["gold_side"] else "model")
                for j in js
            )
            preferences.append(
                PreferenceTask(task_id, int(task["article_id"]), secret["system"], model, gold, outcomes)
            )
    answers.sort(key=lambda a: (a.part, a.article_id))
    preferences.sort(key=lambda p: (p.article_id, p.system))

    present = set(columns)
    metrics = [m for m in KNOWN_METRICS if m.column in present]
    table = {k: dict(v) for k, v in scores.items()}
    needed: dict[tuple[int, str], str] = {}
    for a in answers:
        needed[(a.article_id, a.text)] = "deteriorated answer" if a.deteriorated else "intact answer"
        needed.setdefault((a.article_id, a.original), "original of a deteriorated answer")
    for p in preferences:
        needed[(p.article_id, p.model_text)] = f"A/B answer of {p.system}"
        needed.setdefault((p.article_id, p.gold_text), "A/B gold answer")
    unscored = [
        {"article_id": article, "answer": kind, "text": text[:80]}
        for (article, text), kind in needed.items()
        if (article, text) not in table
    ]
    if controls:
        edits_of = {(a.article_id, a.text): a.edits for a in answers}
        for a in answers:
            edits_of.setdefault((a.article_id, a.original), 0)
        for p in preferences:
            edits_of.setdefault((p.article_id, p.gold_text), 0)
        for k in needed:
            # the key knows the edits of trial answers and that gold has none; nothing about A/B models
            table.setdefault(k, {})[CONTROL_KEY.column] = -float(edits_of[k]) if k in edits_of else math.nan
        metrics += [CONTROL_KEY, CONTROL_RANDOM, *LENGTH_RULES]
    return JoinedStudy(
        study.manifest.get("study_id"),
        answers,
        preferences,
        metrics,
        table,
        unscored,
        {
            "total": len(judgments),
            "accepted": len(accepted),
            "rejected": len(rejected),
            "unknown_task": unknown_tasks(judgments, study),
        },
        seed,
    )


__all__ = [
    "CONTROL_KEY",
    "CONTROL_LONGER",
    "CONTROL_RANDOM",
    "CONTROL_SHORTER",
    "DETERIORATED_SYSTEM",
    "KNOWN_METRICS",
    "LENGTH_RULES",
    "ORIGINAL_SYSTEM",
    "JoinedStudy",
    "MetricSpec",
    "join",
    "read_scores",
    "study_predictions",
]
