"""What an ``api.php`` request names: its parameters read as MediaWiki reads them, its errors, its pages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from wikihowqa.replay.corpus import WikiPage
from wikihowqa.replay.wiki import Title

BADCONTINUE = "Invalid continue param. You should pass the original value returned by the previous query."


class ApiError(Exception):
    def __init__(
        self,
        code: str,
        info: str,
        *,
        extra: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(info)
        self.code, self.info = code, info
        self.extra = dict(extra or {})
        self.headers = dict(headers or {})


def ts14(value: str) -> str:
    """An API timestamp (ISO 8601 or 14 digits) as 14 digits, for comparisons."""
    digits = "".join(ch for ch in value if ch.isdigit())
    return digits[:14].ljust(14, "0")


@dataclass
class Request:
    """The parameters of one request, with the warnings and limits its answer will carry."""

    params: Mapping[str, str]
    fv: int = 1
    warnings: dict[str, list[str]] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.params.get(name, default)

    def flag(self, name: str) -> bool:
        """MediaWiki booleans are true when present, whatever the value."""
        return name in self.params

    def true(self) -> Any:
        return True if self.fv == 2 else ""

    def warn(self, module: str, message: str) -> None:
        self.warnings.setdefault(module, []).append(message)

    def multi(
        self,
        name: str,
        allowed: tuple[str, ...] | None = None,
        module: str = "main",
        *,
        quiet: tuple[str, ...] = (),
    ) -> list[str] | None:
        raw = self.params.get(name)
        if raw is None:
            return None
        values = raw[1:].split("\x1f") if raw.startswith("\x1f") else raw.split("|")
        out: list[str] = []
        for v in values:
            if v == "" or v in out:
                continue
            if allowed is not None and v not in allowed:
                if v not in quiet:
                    self.warn(module, f'Unrecognized value for parameter "{name}": {v}')
                continue
            out.append(v)
        return out

    def enum(self, name: str, allowed: tuple[str, ...], default: str) -> str:
        value = self.params.get(name, default)
        if value not in allowed:
            raise ApiError("badvalue", f'Unrecognized value for parameter "{name}": {value}.')
        return value

    def integer(self, name: str, default: int | None = None) -> int | None:
        raw = self.params.get(name)
        if raw is None or raw == "":
            return default
        try:
            return int(raw.strip())
        except ValueError:
            raise ApiError("badinteger", f'Invalid value "{raw}" for integer parameter "{name}".') from None

    def limit(self, name: str, module: str, default: int, maximum: int) -> int:
        raw = self.params.get(name)
        if raw == "max":
            self.limits[module] = maximum
            return maximum
        value = self.integer(name, default)
        assert value is not None
        if value > maximum:
            self.warn(module, f'The value "{value}" for parameter "{name}" must be between 1 and {maximum}.')
            return maximum
        if value < 1:
            self.warn(module, f'The value "{value}" for parameter "{name}" must be between 1 and {maximum}.')
            return 1
        return value


@dataclass
class Entry:
    """One page of the page set: found, missing title, missing page id, or invalid title."""

    kind: str  # good | missing | missingid | invalid
    page: WikiPage | None = None
    title: Title | None = None
    pageid: int | None = None
    raw: str = ""
    reason: str = ""
    fake: int = 0
