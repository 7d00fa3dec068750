"""A pairwise judge that cancels position bias: which of two systems' answers to a question is better,
asked in both orders (``evaluate --judge-pairwise A B``).

LLM judges favour whichever answer they see first; MT-Bench (Zheng et al., 2023) and AlpacaEval ask
both orders and count a pair judged differently in the two as a tie. So does this: a pair is a win for A
only when A is preferred with A shown first *and* with B shown first; a pair whose two verdicts differ in
the systems they prefer is a tie and counts as position-inconsistent. The reply is parsed strictly (one
``better: A|B|tie`` line); a pair with an unparseable reply in either order, or with an empty answer, has no
verdict and is counted apart. Win, tie and loss rates and the inconsistency rate are means over the pairs
with a verdict, with percentile-bootstrap CIs over questions.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wikihowqa.core.records import Passage
from wikihowqa.evaluate import judge_cost, significance
from wikihowqa.evaluate.judge import Judge, JudgeConfig, evidence, render_evidence

SYSTEM_PROMPT = "You are a careful, strict judge of answers to how-to questions."
USER_PROMPT = (
    "Which of the two answers to the question below is better? The passages come from the web pages cited"
    " for this question.\n\nQuestion: {question}\n\nPassages:\n{passages}\n\nAnswer A:\n{first}\n\n"
    "Answer B:\n{second}\n\n"
    "The better answer is the one whose statements the passages support, with nothing contradicting"
    " them, and that would better help the person who asked do what they asked. Neither the order of"
    " the answers nor their length should decide.\n\n"
    'Reply with exactly one line and nothing else: "better: A", "better: B" or "better: tie".'
)
PROMPT_SHA = hashlib.sha256((SYSTEM_PROMPT + "\x00" + USER_PROMPT).encode()).hexdigest()[:16]

#: A reply's choice, by the position shown: the first answer, the second, or neither.
FIRST, SECOND, TIE, UNPARSED = 0, 1, 2, -1
_CHOICE = re.compile(r"(?i)^\s*better\s*:\s*(a|b|tie)\s*\.?\s*$")
_FENCE = re.compile(r"^```[a-zA-Z]*\n(.*)\n```$", re.S)
OUTCOMES = ("win", "tie", "loss")
NOT_SENT = "an empty answer: not sent to the judge"


def parse_choice(reply: str) -> int:
    """``FIRST``, ``SECOND`` or ``TIE`` from a reply that is exactly the asked line, else ``UNPARSED``."""
    text = reply.strip()
    fenced = _FENCE.match(text)
    match = _CHOICE.match(fenced.group(1).strip() if fenced else text)
    if not match:
        return UNPARSED
    return {"a": FIRST, "b": SECOND, "tie": TIE}[match.group(1).lower()]


def pair_messages(
    question: str, first: str, second: str, shown: Sequence[Passage], config: JudgeConfig
) -> list[dict[str, str]]:
    user = USER_PROMPT.format(
        question=question.strip(), passages=render_evidence(shown), first=first.strip(), second=second.strip()
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def preferred(order: int, choice: int) -> str | None:
    """The system a choice prefers (``"a"``, ``"b"`` or ``"tie"``); order 0 shows A first, order 1 B first."""
    if choice == UNPARSED:
        return None
    if choice == TIE:
        return "tie"
    return "a" if (choice == FIRST) == (order == 0) else "b"


def combine(a_first: int, b_first: int) -> tuple[str | None, bool | None]:
    """(outcome for A: win, tie or loss; whether the two orders agree); ``(None, None)`` if either is
    unparseable. Orders that prefer different systems (or one a system, the other a tie) make a tie."""
    one, two = preferred(0, a_first), preferred(1, b_first)
    if one is None or two is None:
        return None, None
    if one != two:
        return "tie", False
    return {"a": "win", "tie": "tie", "b": "loss"}[one], True


@dataclass(frozen=True, slots=True)
class PairVerdict:
    """One question's comparison: both orders' choices (by position) and what they make for A."""

    a_first: int
    b_first: int
    outcome: str | None  # win, tie, loss (for A); None: no verdict
    consistent: bool | None
    problem: str | None = None  # why there is no verdict
    replies: tuple[str, str] | None = None  # the two replies, when asked in this run

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "position_consistent": self.consistent,
            "problem": self.problem,
            "replies": list(self.replies) if self.replies else None,
        }


@dataclass(frozen=True)
class PairwiseResult:
    """System A against system B on every question of the split, with the tokens the judge used."""

    a: str
    b: str
    verdicts: list[PairVerdict]
    tokens: judge_cost.Tokens
    requests_sent: int = 0  # in this run (the rest came from the caches)


def verdict_of(a_first: list[float] | None, b_first: list[float] | None, replies: Any = None) -> PairVerdict:
    if a_first is None or b_first is None:
        return PairVerdict(UNPARSED, UNPARSED, None, None, NOT_SENT)
    one, two = int(a_first[0]), int(b_first[0])
    outcome, consistent = combine(one, two)
    problem = None if outcome else "a reply not in the asked format (better: A, B or tie)"
    return PairVerdict(one, two, outcome, consistent, problem, replies)


def judge_pair(
    judge: Judge,
    names: tuple[str, str],
    questions: Sequence[str],
    answers: tuple[Sequence[str], Sequence[str]],
    passages: Sequence[Sequence[Passage]],
    key: Callable[..., str],
    cached: Callable[[str, list[str], Callable[[list[int]], list[list[float]]]], list[list[float]]],
) -> PairwiseResult:
    """Both orders of every question whose two answers are not empty; ``key`` and ``cached`` are the
    score cache's (each order's choice and tokens cached, so a rerun asks nothing)."""
    a, b = answers
    asked = [q for q in range(len(questions)) if a[q].strip() and b[q].strip()]
    jobs = [(q, order) for q in asked for order in (0, 1)]
    fingerprint = {**judge.metadata(), "pairwise_prompt_sha256": PROMPT_SHA}
    shown = {q: evidence(a[q] + "\n" + b[q], passages[q], judge.config) for q in asked}
    def shown_in(q: int, order: int) -> tuple[str, str]:
        return (a[q], b[q]) if order == 0 else (b[q], a[q])

    texts = {q: [p.text for p in shown[q]] for q in asked}
    keys = [key("pairwise-1", fingerprint, questions[q], *shown_in(q, o), texts[q]) for q, o in jobs]
    replies: dict[tuple[int, int], str] = {}
    sent = 0

    def compute(chunk: list[int]) -> list[list[float]]:
        nonlocal sent
        batch = [jobs[i] for i in chunk]
        conversations = [
            pair_messages(questions[q], *shown_in(q, o), shown[q], judge.config)
            for q, o in batch
        ]
        asked_now = judge_cost.ask(judge.client, conversations)
        done = [
            judge_cost.or_empty(r, judge.client, m) for r, m in zip(asked_now, conversations, strict=True)
        ]
        replies.update({job: r.text for job, r in zip(batch, done, strict=True)})
        sent += sum(r.sent for r in done)
        return [[parse_choice(r.text), *r.tokens.to_list()] for r in done]

    values = dict(zip(jobs, cached(f"pairwise {names[0]} vs {names[1]}", keys, compute), strict=True))
    verdicts = []
    for q in range(len(questions)):
        pair = (replies[(q, 0)], replies[(q, 1)]) if (q, 0) in replies and (q, 1) in replies else None
        verdicts.append(verdict_of(values.get((q, 0)), values.get((q, 1)), pair))
    tokens = judge_cost.total(judge_cost.Tokens.from_list(v[1:]) for v in values.values())
    return PairwiseResult(names[0], names[1], verdicts, tokens, sent)


# --------------------------------------------------------------------------- the summary (pure)


@dataclass(frozen=True)
class PairwiseSummary:
    """Win, tie and loss rates of A against B (and the position-inconsistent share), each with its CI."""

    a: str
    b: str
    questions: int
    judged: int  # pairs with a verdict in both orders
    not_sent: int  # an empty answer on either side
    unparsed: int
    rates: dict[str, significance.Interval | None]  # win, tie, loss, inconsistent
    tokens: judge_cost.Tokens
    price: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "questions": self.questions,
            "judged": self.judged,
            "not_sent_empty_answer": self.not_sent,
            "unparsed": self.unparsed,
            **{
                name: None if i is None else {"rate": i.mean, "low": i.low, "high": i.high}
                for name, i in self.rates.items()
            },
            "tokens": self.tokens.to_dict(self.price),
            "counting": "both orders asked; a pair judged differently in the two orders is a tie and"
            " position-inconsistent; rates over the pairs with a verdict",
        }


def summarise(
    result: PairwiseResult,
    *,
    confidence: float,
    resamples: int,
    seed: int,
    price: tuple[float, float] | None = None,
) -> PairwiseSummary:
    judged = [v for v in result.verdicts if v.outcome is not None]
    indicators = {name: [float(v.outcome == name) for v in judged] for name in OUTCOMES}
    indicators["inconsistent"] = [float(v.consistent is False) for v in judged]
    rates = {
        name: significance.bootstrap_ci(values, confidence=confidence, n_resamples=resamples, seed=seed)
        if values
        else None
        for name, values in indicators.items()
    }
    not_sent = sum(1 for v in result.verdicts if v.problem == NOT_SENT)
    return PairwiseSummary(
        result.a,
        result.b,
        len(result.verdicts),
        len(judged),
        not_sent,
        len(result.verdicts) - len(judged) - not_sent,
        rates,
        result.tokens,
        price,
    )
