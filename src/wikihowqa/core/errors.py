"""Errors a user can cause and fix: the CLI prints them as one line, never as a traceback."""

from __future__ import annotations

import errno as _errno


class WikihowqaError(Exception):
    """Base class of every error that is the user's input, not the program's fault."""


class DatasetError(WikihowqaError):
    """A dataset file is missing, malformed, or violates the schema; the message names file and line."""


class SettingsError(WikihowqaError):
    """A setting or option value is invalid."""


class HubError(WikihowqaError):
    """A dataset repository on the Hugging Face Hub cannot be fetched; the message names it and why."""


#: OS errors that are the machine's state (a full disk, a read-only folder, a missing path), which a user
#: fixes; any other ``OSError`` reaching the CLI is the program's fault and keeps its traceback.
_ENVIRONMENT = (
    "EACCES EPERM EROFS ENOSPC EDQUOT EFBIG EIO ENOENT ENOTDIR EISDIR EEXIST ENOTEMPTY ENAMETOOLONG ELOOP "
    "EMFILE ENFILE EBUSY ETXTBSY EXDEV"
)
ENVIRONMENT_ERRNOS = frozenset(getattr(_errno, n) for n in _ENVIRONMENT.split() if hasattr(_errno, n))

#: SQLite result codes (by name prefix) that mean the same: the file or its disk, not the program.
STORAGE_SQLITE_CODES = (
    "SQLITE_FULL",
    "SQLITE_READONLY",
    "SQLITE_CANTOPEN",
    "SQLITE_IOERR",
    "SQLITE_PERM",
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_CORRUPT",
    "SQLITE_NOTADB",
)


def is_environment_error(exc: BaseException) -> bool:
    """An OS or SQLite error caused by the disk or a path (full, read-only, missing), not by a bug."""
    if isinstance(exc, OSError):
        return exc.errno in ENVIRONMENT_ERRNOS
    name = getattr(exc, "sqlite_errorname", None)
    return isinstance(name, str) and name.startswith(STORAGE_SQLITE_CODES)


def describe_environment_error(exc: BaseException, path: str | None = None) -> str:
    """``PATH: reason (CODE)``, e.g. ``out/qa.jsonl: No space left on device (ENOSPC)``.

    ``path`` is used when the error carries none (a failed ``write()`` or any SQLite error).
    """
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc)
        code = _errno.errorcode.get(exc.errno or 0, "")
        where = exc.filename if exc.filename is not None else path
        if exc.filename2 is not None:
            where = f"{where} -> {exc.filename2}"
    else:
        reason = str(exc)
        code = f"SQLite {getattr(exc, 'sqlite_errorname', '')}".strip()
        where = path
    reason = f"{reason} ({code})" if code else reason
    if isinstance(exc, OSError) and exc.errno in (_errno.EEXIST, _errno.ENOTDIR) and where is not None:
        reason += _in_the_way(str(exc.filename if exc.filename is not None else where))
    return f"{where}: {reason}" if where is not None else reason


def _in_the_way(path: str) -> str:
    """What to do when a file stands where a folder is needed (a cache folder that is a file): name it."""
    import os.path

    blocking = path
    while blocking and not os.path.isfile(blocking):  # the file among the path's parts
        parent = os.path.dirname(blocking)
        if parent == blocking:
            return ""
        blocking = parent
    if not blocking:
        return ""
    return f"; {blocking} is a file where a folder is needed: move or delete it, or choose another path"


def check_port(port: int) -> int:
    """``port`` when a server can listen on it (0: any free port); else one line naming it. Shared by every
    ``--port`` option and the explorer's server, so the message is one."""
    if not 0 <= port <= 65535:
        raise SettingsError(f"--port {port}: out of range (0, any free port, to 65535)")
    return port
