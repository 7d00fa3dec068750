"""Synthetic assessors: judgments with planted rates, for tests and the demo.

Every assessor of the assignment plan judges its tasks. A deteriorated answer's edit is marked
misleading with the set probability of its type and trial, an intact answer gets a misleading span with
the false-positive rate, a relevance rating equals the task's latent rating with the set agreement
(else it is uniform), a preference follows the set model/tie/gold probabilities, and a share of
judgments is inattentive (wrong category, random spans) — which the analysis must reject. The analysis
recovering these rates within sampling error is the round-trip test of both.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from wikihowqa.core.errors import SettingsError
from wikihowqa.humaneval.deteriorate import EDIT_TYPES
from wikihowqa.humaneval.judgment import Judgment
from wikihowqa.humaneval.simulate_errors import ErrorSimulation, simulate_error_spans
from wikihowqa.humaneval.tasks import FORMAT_VERSION, Study
from wikihowqa.humaneval.taxonomy import study_taxonomy
from wikihowqa.humaneval.text import sentence_spans

DEFAULT_DETECTION: Mapping[str, Mapping[str, float]] = {
    "trial_a": {
        "negation": 0.2,
        "number": 0.15,
        "unit": 0.2,
        "antonym": 0.2,
        "swap": 0.2,
        "order": 0.15,
        "unsupported": 0.35,
        "other": 0.2,
    },
    "trial_b": {
        "negation": 0.45,
        "number": 0.4,
        "unit": 0.4,
        "antonym": 0.35,
        "swap": 0.3,
        "order": 0.3,
        "unsupported": 0.55,
        "other": 0.35,
    },
}


@dataclass(frozen=True)
class SimulationSettings:
    detection: Mapping[str, Mapping[str, float]] = field(default_factory=lambda: DEFAULT_DETECTION)
    false_positive: Mapping[str, float] = field(default_factory=lambda: {"trial_a": 0.08, "trial_b": 0.04})
    inattentive: float = 0.05
    relevance_agreement: float = 0.6
    relevance_levels: tuple[float, ...] = (0.05, 0.1, 0.3, 0.35, 0.2)  # latent rating 0..4 distribution
    preference: Mapping[str, tuple[float, float, float]] = field(
        default_factory=dict
    )  # system: model, tie, gold
    default_preference: tuple[float, float, float] = (0.3, 0.1, 0.6)
    open_rate: float = 0.5
    errors: ErrorSimulation = field(default_factory=ErrorSimulation)
    #: Hand-annotated spans of systems' answers (``simulate_errors.read_reference``), for the errors parts.
    reference: Mapping[tuple[str, int], Mapping[str, Any]] = field(default_factory=dict)
    median_seconds: Mapping[str, float] = field(
        default_factory=lambda: {"relevance": 150.0, "trial_a": 70.0, "trial_b": 110.0, "preference": 120.0}
    )
    seed: int = 0

    def __post_init__(self) -> None:
        probabilities = [
            self.inattentive,
            self.relevance_agreement,
            self.open_rate,
            *self.false_positive.values(),
            *(p for d in self.detection.values() for p in d.values()),
        ]
        if any(not 0 <= p <= 1 for p in probabilities):
            raise SettingsError("simulation probabilities must lie in [0, 1]")


def _wrong(options: list[str], truth: str, rng: random.Random) -> str:
    return rng.choice([o for o in options if o != truth])


def _events(
    per_sentence: list[dict[str, Any]] | None,
    side: str | None,
    rng: random.Random,
    p: float,
    clock: list[int],
) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for entry in per_sentence or ():
        if rng.random() >= p:
            continue
        clock[0] += rng.randint(2000, 9000)
        events.append(
            {"t_ms": clock[0], "kind": "sentence_open", "sentence": entry["sentence"], "side": side}
        )
        for group in entry["groups"]:
            for passage in group["passages"]:
                if rng.random() < 0.5:
                    clock[0] += rng.randint(1000, 6000)
                    events.append(
                        {
                            "t_ms": clock[0],
                            "kind": "passage_view",
                            "sentence": entry["sentence"],
                            "side": side,
                            "passage_id": passage["passage_id"],
                        }
                    )
    return events


def _random_spans(text: str, sentences: list[dict[str, int]], rng: random.Random, label: str) -> list[dict]:
    if not sentences:
        return []
    s = rng.choice(sentences)
    return [{"start": s["start"], "end": s["end"], "label": label, "text": text[s["start"] : s["end"]]}]


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def simulate_judgments(
    study: Study, settings: SimulationSettings = SimulationSettings()
) -> list[dict[str, Any]]:
    """Judgments (the current format version) for every assignment of the study's plan."""
    rng = random.Random(settings.seed)
    taxonomy = study_taxonomy(study.manifest)
    tasks, key = study.tasks_by_id(), study.key_by_id()
    latent_relevance = {
        t: random.Random(f"{settings.seed}:{t}").choices(range(5), settings.relevance_levels)[0]
        for t, task in tasks.items()
        if task["type"] == "relevance"
    }
    start = datetime(2024, 1, 8, 9, 0, tzinfo=UTC)
    judgments: list[dict[str, Any]] = []
    for assignment in study.assignments:
        for task_id in assignment["task_ids"]:
            task, secret = tasks[task_id], key[task_id]
            part = task["part"]
            check = task.get("attention_check")
            inattentive = check is not None and rng.random() < settings.inattentive
            attention = (
                None
                if check is None
                else _wrong(check["options"], secret["attention_answer"], rng)
                if inattentive
                else secret["attention_answer"]
            )
            seconds = settings.median_seconds.get(part, 90.0) * math.exp(rng.gauss(0, 0.4))
            started = start + timedelta(minutes=len(judgments) * 3)
            clock = [0]
            j: dict[str, Any] = {
                "format_version": FORMAT_VERSION,
                "judgment_id": f"sim-{len(judgments) + 1:06d}",
                "study_id": study.manifest.get("study_id"),
                "task_id": task_id,
                "assessor_id": assignment["assessor_id"],
                "started_at": started.isoformat().replace("+00:00", "Z"),
                "submitted_at": (started + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z"),
                "duration_ms": round(seconds * 1000),
                "attention": attention,
            }
            if task["type"] == "relevance":
                truth = latent_relevance[task_id]
                agree = rng.random() < settings.relevance_agreement
                j["relevance"] = truth if agree and not inattentive else rng.randrange(5)
                doc = task["document"]["text"]
                spans = sentence_spans(doc)[:40]
                core = random.Random(f"{settings.seed}:{task_id}:core").choice(spans) if spans else None
                highlights = []
                if core and rng.random() < 0.8:
                    highlights.append({"start": core[0], "end": core[1]})
                if spans and rng.random() < 0.4:
                    extra = rng.choice(spans)
                    if extra != core:
                        highlights.append({"start": extra[0], "end": extra[1]})
                j["highlights"] = highlights
                j["events"] = []
            elif task["type"] == "answer":
                text = task["answer"]["text"]
                sentences = task["answer"]["sentences"]
                j["familiarity"] = rng.randint(1, 5)
                spans: list[dict[str, Any]] = []
                if inattentive:
                    spans = _random_spans(text, sentences, rng, rng.choice(["useful", "misleading"]))
                elif secret["deteriorated"]:
                    rates = settings.detection.get(part, {})
                    for e in secret["edits"]:
                        if rng.random() < rates.get(e["type"], 0.0):
                            s, t = _trimmed(text, e["start"], e["end"])
                            spans.append({"start": s, "end": t, "label": "misleading", "text": text[s:t]})
                elif rng.random() < settings.false_positive.get(part, 0.0):
                    spans = _random_spans(text, sentences, rng, "misleading")
                if not inattentive and not secret["deteriorated"] and rng.random() < 0.5:
                    taken = {(s["start"], s["end"]) for s in spans}
                    spans += [
                        s
                        for s in _random_spans(text, sentences, rng, "useful")
                        if (s["start"], s["end"]) not in taken
                    ]
                j["usefulness"] = max(
                    1, min(5, round(rng.gauss(2.8 if secret["deteriorated"] else 3.8, 0.9)))
                )
                j["spans"] = spans
                j["events"] = _events(task.get("passages"), None, rng, settings.open_rate, clock)
            elif task["type"] == "errors":
                j["error_spans"] = simulate_error_spans(
                    task, secret, taxonomy, settings.errors, rng, settings.reference
                )
                j["events"] = [
                    {
                        "t_ms": 1000 * (k + 1),
                        "kind": "span_add",
                        "sentence": None,
                        "side": None,
                        "start": s["start"],
                        "end": s["end"],
                        "error_type": s["type"],
                    }
                    for k, s in enumerate(j["error_spans"])
                ]
            else:
                model, tie, _ = settings.preference.get(secret["system"], settings.default_preference)
                u = rng.random()
                outcome = "model" if u < model else "tie" if u < model + tie else "gold"
                gold = secret["gold_side"]
                j["choice"] = (
                    "tie"
                    if outcome == "tie"
                    else gold
                    if outcome == "gold"
                    else ("B" if gold == "A" else "A")
                )
                j["events"] = [
                    e for s in "AB" for e in _events(task["passages"][s], s, rng, settings.open_rate, clock)
                ]
            judgments.append(Judgment.model_validate(j).row())  # the one judgment model, as the server
    return judgments


__all__ = ["DEFAULT_DETECTION", "EDIT_TYPES", "SimulationSettings", "simulate_judgments"]
