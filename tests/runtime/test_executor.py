"""The executor setting: one worker-count rule, ordered batches, lost workers named, Ray's one-line errors.

The stages on a real Ray cluster are in ``test_cluster.py``; here what needs no cluster.
"""

from __future__ import annotations

import os
import sys

import pytest

from tests.components import RAY, require_module
from wikihowqa.core.errors import SettingsError
from wikihowqa.runtime.executor import (
    RAY_INSTALL,
    ExecutorSettings,
    LocalExecutor,
    WorkerLost,
    loaded,
    open_executor,
    usable_cpus,
    worker_count,
)


def square_all(batch: list[int]) -> list[int]:
    return [x * x for x in batch]


def die_on_three(batch: list[int]) -> list[int]:
    if 3 in batch:
        os._exit(1)  # a crash inside a C library, as far as the pool can tell
    return batch


def test_one_worker_count_rule_for_every_stage():
    assert worker_count(None) == worker_count(0) == usable_cpus() >= 1
    assert worker_count(3) == 3
    with pytest.raises(SettingsError, match="--workers -1"):
        worker_count(-1)
    if hasattr(os, "sched_getaffinity"):
        assert usable_cpus() == len(os.sched_getaffinity(0))


def test_few_items_run_in_this_process_unless_a_count_is_given():
    assert worker_count(None, items=10, parallel_from=600) == 1
    assert worker_count(0, items=599, parallel_from=600) == 1
    assert worker_count(None, items=600, parallel_from=600) == usable_cpus()
    assert worker_count(4, items=10, parallel_from=600) == 4  # an explicit count is obeyed
    with pytest.raises(SettingsError, match="--workers -2"):
        worker_count(-2, items=10, parallel_from=600)


@pytest.mark.parametrize("workers", [1, 2])
def test_local_batches_come_back_in_input_order(workers):
    batches = ([i, i + 1] for i in range(0, 40, 2))  # a generator: consumed lazily, a window at a time
    out = list(LocalExecutor(workers).map(square_all, batches))
    assert out == [[i * i, (i + 1) ** 2] for i in range(0, 40, 2)]


def test_a_worker_that_dies_is_reported_as_lost_work():
    with pytest.raises(WorkerLost, match="worker process died"):
        list(LocalExecutor(2).map(die_on_three, [[1], [2], [3], [4]]))


class Counting:
    """A model spec whose builds are counted (hashable: a frozen value would do as well)."""

    builds = 0

    def __hash__(self) -> int:
        return 7

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Counting)

    def build(self) -> Counting:
        Counting.builds += 1
        return self

    def twice(self, batch: list[int]) -> list[int]:
        return [2 * x for x in batch]


def test_a_model_is_built_once_per_process_and_batches_keep_their_order():
    before = Counting.builds
    out = list(LocalExecutor(2).map_model(Counting(), "twice", [[1, 2], [3]]))
    out += list(LocalExecutor(1).map_model(Counting(), "twice", [[4]]))
    assert out == [[2, 4], [6], [8]]
    assert Counting.builds - before <= 1 and loaded(Counting()) is loaded(Counting())


def test_settings_are_checked_before_any_work():
    with pytest.raises(SettingsError, match="local or ray"):
        ExecutorSettings("spark")
    with pytest.raises(SettingsError, match="--ray-address is for --executor ray"):
        ExecutorSettings("local", "127.0.0.1:6379")
    assert open_executor(ExecutorSettings(workers=2)).parallelism == 2


def tiny_dataset(tmp_path) -> str:
    from wikihowqa.core.records import Document, Example
    from wikihowqa.dataset.folder import write_dataset_folder

    doc = Document(1, "https://a.example/", "https://web.archive.org/web/2020/https://a.example/", "text")
    examples = [Example(1, "How to q?", "An answer.", (doc.archive_url,), "test", -1)]
    return str(write_dataset_folder(tmp_path / "ds", examples, [doc], {}).path)


def test_without_ray_installed_executor_ray_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(SettingsError) as refused:
        open_executor(ExecutorSettings("ray"))
    assert str(refused.value) == RAY_INSTALL and "pip install 'wikihowqa[ray]'" in RAY_INSTALL


def test_a_ray_address_without_a_port_is_refused():
    """(An unreachable address is one line at once: tests/cli/test_options.py.)"""
    require_module("ray", RAY, install="pip install 'wikihowqa[ray]'")
    with pytest.raises(SettingsError, match="expected HOST:PORT"):
        open_executor(ExecutorSettings("ray", "no-port-here"))
