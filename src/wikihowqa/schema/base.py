"""The schema layer's base model and its one-line errors.

Every settings section is a frozen pydantic model that refuses unknown keys, so a typo is an error naming
the key instead of a setting silently ignored. :func:`check` turns pydantic's multi-line report into the
one line the CLI prints: ``where: section.key: problem``.

Numbers are no switches: a YAML ``true`` is never read as the integer 1 or the number 1.0. Integers are
strict (:data:`Int`: ``true``, ``"3"`` and ``2.5`` are refused); numbers (:data:`Float`) take integers and
what pydantic reads as a number (YAML reads ``3e-5`` as text), never ``true`` or ``false``.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, ValidationError

from wikihowqa.core.errors import SettingsError

M = TypeVar("M", bound=BaseModel)

#: ``where`` and the error's location → the line of that key in its file (``None``: unknown)
LineOf = Callable[[Sequence[str]], int | None]


def _not_a_switch(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be a number, not true or false")
    return value


#: An integer setting: strict (``true``, ``"3"`` and ``2.5`` are refused, not read as 1, 3 and 2).
Int = Annotated[int, Strict()]
PositiveInt = Annotated[int, Strict(), Field(gt=0)]
#: A number setting: an integer or a float, never ``true`` or ``false``.
Float = Annotated[float, BeforeValidator(_not_a_switch)]


class Section(BaseModel):
    """A settings section: immutable, unknown keys refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The model classes an annotation may hold (``X``, ``X | None``, ``Annotated[X, ...]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, typing.Annotated):
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]
    return []


def _walk(model: type[BaseModel], loc: Sequence[int | str]) -> tuple[list[str], type[BaseModel] | None]:
    """The setting names along ``loc`` (pydantic's union tags dropped) and the model that holds the last."""
    names: list[str] = []
    holder: type[BaseModel] | None = model
    for part in loc:
        if holder is None or not isinstance(part, str):
            break
        names.append(part)
        field = holder.model_fields.get(part)
        if field is None:  # an unknown key: the model it is unknown to is ``holder``
            return names, holder
        inner = _models_in(field.annotation)
        holder = inner[0] if inner else None
    return names, None


def problem(model: type[BaseModel], error: Mapping[str, Any], prefix: Sequence[str] = ()) -> str:
    """``section.key: problem`` of one pydantic error."""
    names, holder = _walk(model, error["loc"])
    key = ".".join([*prefix, *names]) or "settings"
    kind = error["type"]
    if kind == "extra_forbidden" and holder is not None:
        return f"{key}: unknown setting (expected one of {', '.join(sorted(holder.model_fields))})"
    if kind == "nested":  # a check inside a validator (``generator.retriever``): its own key and problem
        return f"{key}{error['msg']}"
    if kind == "missing":
        return f"{key}: missing setting"
    message = str(error["msg"]).removeprefix("Value error, ")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"{key}: must be a mapping of settings, not {error.get('input')!r:.60}"
    return f"{key}: {message[:1].lower()}{message[1:]} (got {error.get('input')!r:.60})"


def check(
    model: type[M],
    values: Mapping[str, Any] | None,
    where: str,
    *,
    prefix: Sequence[str] = (),
    line_of: LineOf | None = None,
) -> M:
    """``values`` as a ``model``, or a :class:`SettingsError` of one line: ``where[:line]: key: problem``.

    ``prefix`` is the path of the section inside the whole settings (``("generator",)``); ``line_of`` finds
    the line of a key in the file ``where`` names (settings files: :mod:`wikihowqa.schema.files`).
    """
    try:
        return model.model_validate(dict(values or {}))
    except ValidationError as exc:
        first = exc.errors()[0]
        names, _ = _walk(model, first["loc"])
        line = line_of([*prefix, *names]) if line_of else None
        place = f"{where}:{line}" if line else where
        raise SettingsError(f"{place}: {problem(model, first, prefix)}") from None
