"""The ``answer`` command's shortcuts as settings: ``--mode``, ``--model``, ``--backend``,
``--encoder-backend`` and ``--max-new-tokens`` mean different keys for different systems; here is which
(the CLI stays thin)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wikihowqa.schema.files import merge, parse_assignments
from wikihowqa.schema.settings import AnswerSettings


def shortcut_overrides(
    system: str,
    settings: Mapping[str, Any],
    *,
    mode: str | None = None,
    model: str | None = None,
    backend: str | None = None,
    max_new_tokens: int | None = None,
    encoder_backend: str | None = None,
) -> dict[str, Any]:
    """The settings the shortcuts stand for with ``system`` (``settings``: the file's, for the backend)."""
    overrides: dict[str, Any] = {}
    if mode:
        overrides["retrieval"] = {"mode": mode}
    if encoder_backend:  # the dense encoder's, alone or inside hybrid
        encoder = {"backend": encoder_backend}
        overrides.setdefault("retrieval", {}).update(dense=encoder, hybrid={"dense": dict(encoder)})
        if system == "seq2seq":  # it ranks as its model was trained unless told otherwise
            overrides["generator"] = {"retrieval_mode": mode}
    if system.startswith("llm"):
        llm: dict[str, Any] = {}
        if backend:
            llm["backend"] = backend
        chosen = backend or (settings.get("llm") or {}).get("backend", "openai")
        if model:
            llm[chosen] = {"model": model}
        if max_new_tokens:
            key = "max_new_tokens" if chosen == "local" else "max_tokens"
            llm.setdefault(chosen, {})[key] = max_new_tokens
        overrides["llm"] = llm
    elif system == "seq2seq":
        generator: dict[str, Any] = overrides.get("generator", {})
        if model:
            generator["model"] = model
        if max_new_tokens:
            generator["generate"] = {"max_new_tokens": max_new_tokens}
        overrides["generator"] = generator
    return overrides


def command_settings(
    system: str,
    file_settings: Mapping[str, Any],
    assignments: Sequence[str] = (),
    **shortcuts: Any,
) -> dict[str, Any]:
    """The settings a run uses: the file's, then the shortcuts, then each ``--set`` (the last wins)."""
    with_shortcuts = merge(file_settings, shortcut_overrides(system, file_settings, **shortcuts))
    return merge(with_shortcuts, parse_assignments(list(assignments), AnswerSettings))
