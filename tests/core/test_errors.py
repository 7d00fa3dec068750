"""Spec: an OS error a user can fix is described by the path and, where it is plain, what to do."""

from __future__ import annotations

import errno
import os

from wikihowqa.core.errors import describe_environment_error


def _error(call, *args):
    try:
        call(*args)
    except OSError as exc:
        return exc
    raise AssertionError("no error")


def test_a_file_where_a_folder_is_made_names_it_and_what_to_do(tmp_path):
    (tmp_path / "cache").write_text("not a folder")
    exc = _error(os.makedirs, tmp_path / "cache")
    assert exc.errno == errno.EEXIST
    assert describe_environment_error(exc) == (
        f"{tmp_path / 'cache'}: File exists (EEXIST); {tmp_path / 'cache'} is a file where a folder is "
        "needed: move or delete it, or choose another path"
    )


def test_a_file_above_a_folder_to_make_is_the_one_named(tmp_path):
    (tmp_path / "wikihowqa").write_text("not a folder")
    exc = _error(os.makedirs, tmp_path / "wikihowqa" / "openvino" / "model")
    assert exc.errno == errno.ENOTDIR
    message = describe_environment_error(exc)
    assert message.startswith(f"{tmp_path / 'wikihowqa' / 'openvino'}: Not a directory (ENOTDIR); ")
    assert message.endswith(f"; {tmp_path / 'wikihowqa'} is a file where a folder is needed: move or delete "
                            "it, or choose another path")  # fmt: skip


def test_other_errors_keep_their_one_line(tmp_path):
    exc = _error(open, tmp_path / "missing" / "x.jsonl")
    missing = tmp_path / "missing" / "x.jsonl"
    assert describe_environment_error(exc) == f"{missing}: No such file or directory (ENOENT)"
