"""Atomic files and folders: a crash never leaves a half-written output, and OS errors name the
path the user asked for, not a temporary sibling."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def _renamed(exc: OSError, old: str | Path, new: str | Path) -> OSError:
    """``exc`` with ``old`` (a temporary sibling) replaced by ``new`` (what the user asked for) in its paths,
    and ``new`` as its path when it has none (a failed ``write()``/``fsync()`` names no file)."""

    def swap(name: Any) -> Any:
        if name is None:
            return None
        text, prefix = os.fspath(name), os.fspath(old)
        if text == prefix or text.startswith(prefix + os.sep):
            return os.fspath(new) + text[len(prefix) :]
        return name

    if exc.errno is None:
        return exc
    filename = swap(exc.filename) if exc.filename is not None else os.fspath(new)
    renamed = OSError(exc.errno, exc.strerror, filename, None, swap(exc.filename2))
    renamed.__cause__ = exc
    return renamed


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """OS errors in the block that name no file name ``path`` (a full disk fails ``write()`` nameless)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise _renamed(exc, path, path) from exc


@contextlib.contextmanager
def atomic_write(path: Path, mode: str = "w") -> Iterator[Any]:
    """Open a temporary sibling of ``path``; it replaces ``path`` only if the block finishes.

    An OS error (full disk, read-only folder) names ``path``, not the temporary file.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise _renamed(exc, exc.filename or path, path) from exc
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; the result should have ordinary permissions
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _renamed(exc, tmp, path) from exc
        raise


def write_json(path: Path, obj: Any) -> None:
    with atomic_write(path) as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=2, sort_keys=False)
        fh.write("\n")


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); ``False`` where unsupported.

    The stdlib has no atomic exchange; two renames leave a moment with no folder at all.
    """
    import ctypes
    import ctypes.util
    import errno

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):  # file system or kernel without it
        return False
    raise OSError(code, os.strerror(code), os.fspath(b))


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:  # a file system without hard links: a copy costs space, a link does not
        shutil.copy2(src, dst)


def _carry_over(old: Path, staging: Path) -> None:
    """Put every entry of ``old`` that the new content does not have into ``staging``, by hard link."""
    for entry in old.iterdir():
        target = staging / entry.name
        if target.exists() or target.is_symlink():
            continue
        if entry.is_symlink():
            os.symlink(os.readlink(entry), target)
        elif entry.is_dir():
            shutil.copytree(entry, target, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(str(entry), str(target))


@contextlib.contextmanager
def atomic_folder(out: Path, *, keep_others: bool = False) -> Iterator[Path]:
    """Yield an empty staging folder beside ``out``; it replaces ``out`` only if the block finishes.

    With ``keep_others`` the entries of an existing ``out`` that the block did not write are kept (hard
    links, so the old folder stays whole until the swap). Where the system can, old and new are
    exchanged in one step. An OS error names ``out`` (and the file in it), not the staging folder.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
    except OSError as exc:
        raise _renamed(exc, exc.filename or out, out) from exc
    try:
        os.chmod(staging, 0o777 & ~_UMASK)
        yield staging
        if out.is_dir() and keep_others:
            _carry_over(out, staging)
        if out.exists():
            if _exchange(staging, out):
                shutil.rmtree(staging, ignore_errors=True)  # now the old folder
                return
            trash = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, trash)
            os.replace(staging, out)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(staging, out)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise _renamed(exc, staging, out) from exc
        raise
