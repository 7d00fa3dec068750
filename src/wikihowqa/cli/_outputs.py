"""One check for every command that writes an output: the output never overlaps what the command reads.

An output is replaced whole (``--overwrite``) or written into, so an ``--out`` that is an input, holds
one (its parent folder) or lies inside one would delete or mix into the input. :func:`writes` declares,
on a command, which parameter is its output and which are its inputs; the check runs before the command
does anything. The command's default place (``DATASET/site``, ``STUDY/judgments.jsonl``, ``DATASET``
itself for ``hydrate``) is allowed even though it lies inside an input: omitted or spelled out, it is
where the command is designed to write.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from typer.models import OptionInfo

from wikihowqa.core.errors import SettingsError

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Writes:
    """What a command writes (``out``: a parameter name) and reads (``inputs``: parameter names)."""

    out: str
    inputs: tuple[str, ...]
    default: Callable[[dict[str, Any]], Path | None] | None = None
    extra: Callable[[], list[tuple[str, Path]]] | None = None


def _paths(value: Any) -> Iterator[Path]:
    if isinstance(value, Path | str) and str(value):
        yield Path(value)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _paths(item)


def _real(path: Path) -> Path:
    return Path(path).expanduser().resolve(strict=False)


def _within(path: Path, folder: Path) -> bool:
    return path != folder and path.is_relative_to(folder)


def check_out(
    out: Path | None, inputs: Iterable[tuple[str, Path]], default: Path | None = None, *, label: str = "--out"
) -> None:
    """Refuse ``out`` if it is, holds, or lies inside one of ``inputs`` (``(label, path)`` pairs).

    ``default``: the command's own place; ``out`` equal to it is allowed, and so is ``out`` inside it
    when that place lies in the input (``answer --out DATASET/predictions/mine.jsonl``).
    """
    if out is None or not str(out):
        return
    target = _real(out)
    place = _real(default) if default is not None else None
    for name, path in inputs:
        source = _real(path)
        if target == place:  # the default itself, even where it is an input (hydrate's DATASET)
            continue
        if target == source:
            relation = "is"
        elif _within(source, target):
            relation = "holds"
        elif _within(target, source) and not (
            place is not None and _within(target, place) and place.is_relative_to(source)
        ):  # inside the default place that lies in this input (DATASET/predictions/x.jsonl) is the default
            relation = "lies inside"
        else:
            continue
        where = f" (the default, {default}, is allowed)" if default is not None else ""
        raise SettingsError(
            f"{label} {out} {relation} the input {name} {path}: writing it would replace or mix into what "
            f"the command reads; give an output outside every input{where}"
        )


def _labels(func: Callable[..., Any]) -> dict[str, str]:
    """Each parameter as typed: an option's longest name (``--out``), an argument's in capitals."""
    hints = typing.get_type_hints(func, include_extras=True)
    labels: dict[str, str] = {}
    for name, param in inspect.signature(func).parameters.items():
        annotated = [i for i in getattr(hints.get(name), "__metadata__", ()) if isinstance(i, OptionInfo)]
        decls = [d for info in [param.default, *annotated] if isinstance(info, OptionInfo)
                 for d in info.param_decls or ()]  # fmt: skip
        # in ``Annotated``, typer reads ``typer.Option("--out")``'s first argument as the name, not a default
        decls += [i.default for i in annotated if isinstance(i.default, str) and i.default.startswith("--")]
        longest = max((d for d in decls if d.startswith("--")), key=len, default=None)
        labels[name] = longest or name.upper()
    return labels


def writes(
    out: str,
    *inputs: str,
    default: Callable[[dict[str, Any]], Path | None] | None = None,
    extra: Callable[[], list[tuple[str, Path]]] | None = None,
) -> Callable[[F], F]:
    """Declare a command's output parameter and input parameters; :func:`check_out` runs before it.

    ``default``: the command's own place, from its arguments; ``extra``: inputs that are no parameter
    (``(label, path)``, e.g. the demo's embedded corpus). Put it under ``@app.command``: typer reads the
    command's signature through ``functools.wraps``.
    """
    declared = Writes(out, inputs, default, extra)

    def decorate(func: F) -> F:
        labels = _labels(func)

        @functools.wraps(func)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            sources = [(labels[name], path) for name in inputs for path in _paths(kwargs.get(name))]
            sources += extra() if extra is not None else []
            place = default(kwargs) if default is not None else None
            check_out(kwargs.get(out), sources, place, label=labels[out])
            return func(*args, **kwargs)

        guarded.__writes__ = declared  # type: ignore[attr-defined]
        return guarded  # type: ignore[return-value]

    return decorate


def declared_writes(callback: Callable[..., Any] | None) -> Writes | None:
    """The :class:`Writes` a command's callback was declared with (``None``: it writes no output)."""
    return getattr(callback, "__writes__", None)


__all__ = ["Writes", "check_out", "declared_writes", "writes"]
