"""fork_map: every item once, results as computed in the children, failures raised in the parent,
no child left behind."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from trainops.core.forking import WorkerDied, fork_map


def _pid_and_square(n: int) -> tuple[int, int]:
    time.sleep(0.002)  # long enough that each worker gets some of the tasks
    return os.getpid(), n * n


def test_every_item_once_across_workers() -> None:
    got = dict(fork_map(_pid_and_square, list(range(100)), 2))
    assert sorted(got) == list(range(100))
    assert all(square == n * n for n, (_, square) in got.items())
    workers = {pid for pid, _ in got.values()}
    assert len(workers) == 2 and os.getpid() not in workers


def test_results_larger_than_a_pipe() -> None:
    items = [1, 2, 3]
    results = dict(fork_map(lambda n: bytes([n]) * (3 << 20), items, 2))
    assert {i: (len(b), b[:1]) for i, b in results.items()} == {
        i: (3 << 20, bytes([n])) for i, n in enumerate(items)
    }


def test_no_more_workers_than_items() -> None:
    assert {pid for _, (pid, _) in fork_map(_pid_and_square, [7], 4)}.__len__() == 1
    assert list(fork_map(_pid_and_square, [], 4)) == []


def test_initializer_runs_in_each_child_only() -> None:
    marker = {"pid": os.getpid()}

    def init() -> None:
        marker["pid"] = os.getpid()

    pids = {value for _, value in fork_map(lambda _: marker["pid"], list(range(50)), 2, initializer=init)}
    assert os.getpid() not in pids and marker["pid"] == os.getpid()


def _fail_on_five(n: int) -> int:
    if n == 5:
        raise ValueError(f"bad item {n}")
    return n


def test_an_exception_in_a_task_is_raised_in_the_parent() -> None:
    with pytest.raises(ValueError, match="bad item 5"):
        list(fork_map(_fail_on_five, list(range(40)), 2))


def test_a_worker_killed_by_a_signal() -> None:
    def die_on_three(n: int) -> int:
        if n == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return n

    with pytest.raises(WorkerDied, match="ended without its results"):
        list(fork_map(die_on_three, list(range(10)), 2))


def test_a_consumer_that_stops_early_leaves_no_child() -> None:
    results = fork_map(lambda n: n, list(range(1000)), 2)
    next(results)
    results.close()


def _children() -> set[int]:
    """Processes whose parent is this one, zombies included (read from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == os.getpid():
            found.add(int(stat.parent.name))
    return found


@pytest.fixture(autouse=True)
def _no_child_left() -> Iterator[None]:
    before = _children()
    yield
    assert _children() <= before  # every worker fork_map started was reaped
