"""A test that needs a real component (MediaWiki, pywb, Chromium, Ray) is skipped here when the component is
missing, and fails in CI (``CI=true``) naming it: a green CI run never hides an untested collector."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: One test of each component (its first need is the component), and how to take the component away.
NEEDS = {
    "MediaWiki": "tests/collect/test_real_servers.py::"
    "test_dry_run_counts_the_articles_the_build_reads_not_the_wikis_statistics",
    "pywb": "tests/collect/test_real_servers.py::"
    "test_pywbs_fuzzy_rows_of_other_statuses_are_not_taken_for_a_capture",
    "Chromium": "tests/humaneval/app/test_app_pages.py::"
    "test_relevance_highlights_dragged_with_the_mouse_are_stored_as_whole_words",
    "Ray": "tests/runtime/test_executor.py::test_a_ray_address_without_a_port_is_refused",
}


def _run_without_the_components(tmp_path: Path, *, ci: bool) -> subprocess.CompletedProcess[str]:
    """The four tests in a pytest of their own, on a machine where none of the components is installed."""
    blocked = tmp_path / "blocked"
    (blocked / "ray").mkdir(parents=True)
    (blocked / "ray" / "__init__.py").write_text(
        'raise ImportError("Ray is not installed on this machine")\n'
    )
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(
        PYTHONPATH=os.pathsep.join([str(blocked), str(ROOT), str(ROOT / "src")]),
        WIKIHOWQA_MEDIAWIKI_DIR=str(tmp_path / "no-mediawiki"),
        WIKIHOWQA_PYWB_VENV=str(tmp_path / "no-pywb"),
        WIKIHOWQA_CHROMIUM=str(tmp_path / "no-chromium"),
        **({"CI": "true"} if ci else {}),
    )
    command = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *NEEDS.values()]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_in_ci_a_missing_component_fails_its_tests_naming_it(tmp_path):
    done = _run_without_the_components(tmp_path, ci=True)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    for component in NEEDS:
        assert f"{component} is missing in CI (CI=true), its tests cannot run" in output, component
    summary = output.splitlines()[-1]  # fixtures that fail are errors, tests failures
    assert re.match(r"(\d) failed, (\d) errors in ", summary), summary
    assert sum(int(n) for n in re.findall(r"(\d) (?:failed|errors)", summary)) == 4, summary


@pytest.mark.slow
def test_locally_a_missing_component_skips_its_tests_with_the_reason(tmp_path):
    done = _run_without_the_components(tmp_path, ci=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "4 skipped" in output.splitlines()[-1], output[-3000:]
    for component in NEEDS:
        assert f": {component}: " in output, component


#: Tests of ``hydrate`` against pywb, in both of its modules (a fixture's need and a test's own).
HYDRATE_PYWB = (
    "tests/release/test_hydrate.py::test_every_other_case_is_counted_under_its_own_reason",
    "tests/release/test_hydrate_warc_replay.py",
)


@pytest.mark.slow
def test_in_ci_the_hydrate_tests_fail_without_pywb_instead_of_skipping(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(
        CI="true",
        PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "src")]),
        WIKIHOWQA_PYWB_VENV=str(tmp_path / "no-pywb"),
    )
    command = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *HYDRATE_PYWB]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    assert output.count("pywb is missing in CI (CI=true), its tests cannot run") >= 2, output[-3000:]
    summary = output.splitlines()[-1]
    assert "skipped" not in summary and sum(map(int, re.findall(r"(\d+) (?:failed|errors?)", summary))) == 2
