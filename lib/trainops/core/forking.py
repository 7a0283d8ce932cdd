"""A map over forked worker processes: the standard library's process pool, with the ``fork`` start
method so that the work and its inputs need not be picklable (only the results must be).

The one process pool of trainops: large ``validate`` inputs (:mod:`trainops.validate.parallel`),
the per-document work of the policy pack (:mod:`trainops.policy.engine`), the renders of ``synth``
and ``ci`` (:func:`trainops.synth.render.render_pairs`, each worker on a jsii Node.js of its own)
and their validation (:func:`trainops.workflow.check_rendered`) run in it. Linux and macOS only
(``os.fork``).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class WorkerDied(RuntimeError):
    """A worker process ended without sending all its results (killed by a signal, out of memory)."""


#: The work of the running :func:`fork_map`, inherited by its forked workers.
_WORK: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def _call(index: int) -> Any:  # runs in a worker
    assert _WORK is not None
    function, items = _WORK
    return function(items[index])


def fork_map(
    function: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    *,
    initializer: Callable[[], None] | None = None,
) -> Iterator[tuple[int, R]]:
    """``(index, function(items[index]))`` for every item, computed by ``workers`` forked processes
    (at most one per item) and yielded in the order they finish.

    Each worker is a copy of the calling process at the time of the call (``function``, ``items``
    and whatever they reference need not be picklable; results must be). Tasks are handed out one at
    a time, so a slow item delays only its own worker. Threads do not follow into the workers:
    ``function`` must not need one, nor a lock a thread may hold (jsii's thread reading its Node.js's
    stderr holds only that pipe, which a worker never reads).

    Args:
        function: the work, run in a worker; what it raises is re-raised in the parent.
        items: the inputs.
        workers: processes to start (at least 1).
        initializer: run once in each worker before its first task.

    Raises:
        BaseException: the first exception a task raised, after the pool is shut down.
        WorkerDied: a worker ended without all its results.
    """
    global _WORK
    if not items:
        return
    _WORK = (function, items)
    pool = ProcessPoolExecutor(
        max_workers=min(max(1, workers), len(items)),
        mp_context=multiprocessing.get_context("fork"),
        initializer=initializer,
    )
    try:
        pending: dict[Future[Any], int] = {pool.submit(_call, i): i for i in range(len(items))}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                index = pending.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool as exc:
                    raise WorkerDied(f"a worker process ended without its results ({exc})") from None
                yield index, result
    finally:
        _WORK = None
        pool.shutdown(wait=True, cancel_futures=True)
