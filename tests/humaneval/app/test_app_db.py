"""The database: WAL, one row per judgment whatever the retries, no SQL built from strings."""

from __future__ import annotations

import ast
import inspect
import stat

from wikihowqa.humaneval.app import db as db_module
from wikihowqa.humaneval.app import export, state
from wikihowqa.humaneval.app.db import AssessorRow, StudyDB, count_judgments


def _db(tmp_path) -> StudyDB:
    d = StudyDB(tmp_path / "s.sqlite")
    d.add_assessors(
        [
            AssessorRow(a, "trial_a", "plan", f"tok-{a}", f"dig-{a}", None, "CODE2345", "t")
            for a in ("a1", "a2")
        ]
    )
    return d


def test_the_database_runs_in_wal_mode_and_only_its_owner_can_read_it(tmp_path):
    d = _db(tmp_path)
    assert d.journal_mode() == "wal"
    assert stat.S_IMODE((tmp_path / "s.sqlite").stat().st_mode) == 0o600


def test_a_judgment_is_stored_once_and_a_retry_gets_the_first_row_back(tmp_path):
    d = _db(tmp_path)
    assert d.insert_judgment("j-00000001", "t1", "a1", True, '{"n": 1}').outcome == "stored"
    again = d.insert_judgment("j-00000001", "t1", "a1", True, '{"n": 2}')
    assert (again.outcome, again.body) == ("duplicate", '{"n": 1}')
    assert d.insert_judgment("j-00000001", "t2", "a2", None, "{}").outcome == "id_taken"
    assert d.insert_judgment("j-00000002", "t1", "a1", None, "{}").outcome == "already_judged"
    assert [j.body for j in d.judgments()] == ['{"n": 1}']
    d.close()
    reopened = StudyDB(tmp_path / "s.sqlite")
    assert [(j.judgment_id, j.attentive) for j in reopened.judgments()] == [("j-00000001", True)]
    assert count_judgments(tmp_path / "s.sqlite") == 1


def test_counting_judgments_of_something_that_is_not_a_database_gives_zero(tmp_path):
    (tmp_path / "x.sqlite").write_text("not a database")
    assert count_judgments(tmp_path / "x.sqlite") == 0
    assert count_judgments(tmp_path / "missing.sqlite") == 0


def _sql_arguments(module) -> list[tuple[int, ast.expr]]:
    tree = ast.parse(inspect.getsource(module))
    calls = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"execute", "executemany", "executescript"}
        ):
            calls.append((node.lineno, node.args[0]))
    return calls


def _is_constant_sql(node: ast.expr, constants: set[str]) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, ast.IfExp):
        return _is_constant_sql(node.body, constants) and _is_constant_sql(node.orelse, constants)
    return False  # f-strings (JoinedStr), %, +, .format(...): SQL built at run time


def test_every_sql_statement_is_a_constant_with_parameters():
    checked = 0
    for module in (db_module, state, export):
        tree = ast.parse(inspect.getsource(module))
        constants = {
            t.id
            for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant | ast.Tuple)
            for t in node.targets
            if isinstance(t, ast.Name)
        } | {"statement"}  # the loop variable over the constant _SCHEMA tuple
        for line, arg in _sql_arguments(module):
            assert _is_constant_sql(arg, constants), f"{module.__name__}:{line}: SQL is not a constant"
            checked += 1
    assert checked >= 15


def test_a_second_server_on_the_same_study_is_refused_until_the_first_stops(study_dir):
    import pytest

    from wikihowqa.core.errors import SettingsError
    from wikihowqa.humaneval.app import StudyService

    first = StudyService(study_dir)
    with pytest.raises(SettingsError, match="another study server is running"):
        StudyService(study_dir)
    first.close()
    StudyService(study_dir).close()


def test_rebuilding_a_study_folder_that_holds_judgments_is_refused(study_dir, valid_body):
    import json

    import pytest

    from wikihowqa.core.errors import DatasetError
    from wikihowqa.humaneval.app import StudyService
    from wikihowqa.humaneval.tasks import read_study, write_study

    study = read_study(study_dir)
    write_study(study, study_dir, overwrite=True)  # no server yet: rebuilding is fine
    service = StudyService(study_dir)
    a = service.assessors["trial_a-001"]
    service.submit(a, valid_body(json.loads(service.next_task(a))["task"]))
    service.close()
    with pytest.raises(DatasetError, match="collected 1 judgment"):
        write_study(study, study_dir, overwrite=True)
    assert count_judgments(study_dir / "server.sqlite") == 1
