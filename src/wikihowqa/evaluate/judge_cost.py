"""What judging cost: each judge call's prompt and completion tokens, summed, and a price estimate.

The tokens are the server's own count (the response's ``usage``) where it gives a believable one (whole
numbers up to ``MAX_USAGE_TOKENS``: ``true`` or 1e30 is no count); otherwise they are estimated: with the
model's tokenizer for the local backend, else with the ~4 characters a token rule the LLM baselines' prompt
budget uses (no margin here: a price estimate should not be biased upwards). A cached response keeps its
``usage``, so a rerun reports the same tokens while sending nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from wikihowqa.core.errors import SettingsError
from wikihowqa.generate.llm import (
    CHARS_PER_TOKEN,
    GenerationError,
    Messages,
    ReplyTooLarge,
    ServiceUnavailable,
    estimated_chat_counter,
)
from wikihowqa.schema.base import check
from wikihowqa.schema.settings import ChatSettings


@dataclass(frozen=True, slots=True)
class Tokens:
    """Tokens of some judge calls: ``estimated`` of the ``calls`` had no ``usage`` from the server;
    ``oversized`` of them got a reply too large to read (sent and paid for, scoring nothing)."""

    prompt: int = 0
    completion: int = 0
    calls: int = 0
    estimated: int = 0
    oversized: int = 0

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(
            self.prompt + other.prompt,
            self.completion + other.completion,
            self.calls + other.calls,
            self.estimated + other.estimated,
            self.oversized + other.oversized,
        )

    def to_list(self) -> list[int]:
        return [self.prompt, self.completion, self.calls, self.estimated, self.oversized]

    @classmethod
    def from_list(cls, values: Sequence[float]) -> Tokens:
        """From ``to_list``'s values (a score cache row written before ``oversized`` has four)."""
        return cls(*(int(v) for v in values[:5]))

    def price(self, price: tuple[float, float] | None) -> float | None:
        """Estimated USD at ``price`` (per million input, output tokens); ``None`` without a price."""
        if price is None:
            return None
        return (self.prompt * price[0] + self.completion * price[1]) / 1e6

    def to_dict(self, price: tuple[float, float] | None = None) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt,
            "completion_tokens": self.completion,
            "calls": self.calls,
            "calls_estimated": self.estimated,
            "replies_too_large": self.oversized,
            "price_usd": self.price(price),
        }


def total(tokens: Iterable[Tokens]) -> Tokens:
    return sum(tokens, Tokens())


@dataclass(frozen=True, slots=True)
class Reply:
    """One judge call: the reply, its tokens, and whether it was sent now (``False``: the cache had it)."""

    text: str
    tokens: Tokens
    sent: bool


def too_large(client: Any, messages: Messages) -> Reply:
    """The call whose reply was too large to read: sent now and counted, an empty reply (it parses as
    nothing); its prompt's tokens estimated, its reply's at least the bytes read up to the client's cap."""
    limit = getattr(client, "reply_limit", 0)
    prompt = estimate(client, messages, "").prompt
    return Reply("", Tokens(prompt, math.ceil(limit / CHARS_PER_TOKEN), 1, 1, 1), True)


def or_empty(result: Reply | GenerationError, client: Any, messages: Messages) -> Reply:
    """A reply too large to read as an empty one (:func:`too_large`); any other failure is raised."""
    if isinstance(result, ReplyTooLarge):
        return too_large(client, messages)
    if isinstance(result, GenerationError):
        raise result
    return result


def parse_price(text: str, where: str = "--judge-price") -> tuple[float, float]:
    """``IN,OUT`` (USD per million input and output tokens) → the pair, checked as ``llm.openai.price``."""
    parts = [p.strip() for p in text.split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != 2 or not all(math.isfinite(v) for v in values):
        raise SettingsError(
            f"{where} {text!r}: give two numbers IN,OUT (USD per million input and output tokens)"
        )
    price = check(ChatSettings, {"price": values}, where).price
    assert price is not None
    return price


#: The most tokens one call's ``usage`` may claim for its prompt or its reply: above any model's context
#: (a few million tokens), so a larger count is a broken or hostile server, not a price to report.
MAX_USAGE_TOKENS = 10_000_000


def _usage(response: dict[str, Any]) -> tuple[int, int] | None:
    """The server's (prompt, completion) tokens when both are whole numbers from 0 to
    ``MAX_USAGE_TOKENS``; otherwise ``None`` and the call is estimated (``true`` is no count, 1e30 none)."""
    usage = response.get("usage")
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    for count in (prompt, completion):
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_USAGE_TOKENS:
            return None
    return int(prompt), int(completion)  # type: ignore[arg-type]  # checked just above


def estimate(client: Any, messages: Messages, reply: str) -> Tokens:
    """Tokens counted without the server: the client's tokenizer (a local model's), else ~4 chars a token."""
    count_chat, count = getattr(client, "count_chat_tokens", None), getattr(client, "count_tokens", None)
    if count_chat is not None and count is not None:
        return Tokens(count_chat(messages), count(reply), 1, 1)
    prompt = estimated_chat_counter(0.0)(messages)
    return Tokens(prompt, math.ceil(len(reply) / CHARS_PER_TOKEN), 1, 1)


def ask(
    client: Any, conversations: Sequence[Messages], *, sample: int = 0
) -> list[Reply | GenerationError]:
    """Each conversation's reply with its tokens: through the API client's ``respond`` (its cache, the
    ``usage``), or any client's ``complete_many`` (a local model: always computed, tokens counted here).
    A request that failed for good is its ``GenerationError`` (a reply too large, a prompt too long), one
    per conversation as ``ChatClient.complete_each`` gives them; a server answering nobody stops the run."""
    respond = getattr(client, "respond", None)
    if respond is None:
        texts = list(client.complete_many(conversations))
        return [Reply(t, estimate(client, m, t), True) for m, t in zip(conversations, texts, strict=True)]
    out: list[Reply | GenerationError] = []
    for messages in conversations:
        try:
            text, response, cached = respond(messages, sample=sample)
        except ServiceUnavailable:  # nobody answers: the run stops
            raise
        except GenerationError as exc:  # final for this request (its retries spent): the caller decides
            out.append(exc)
            continue
        usage = _usage(response)
        tokens = Tokens(usage[0], usage[1], 1, 0) if usage else estimate(client, messages, text)
        out.append(Reply(text, tokens, not cached))
    return out
