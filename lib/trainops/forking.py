"""A map over forked worker processes, without :mod:`multiprocessing`.

``concurrent.futures.ProcessPoolExecutor`` costs about 40 ms before its first task runs
(importing :mod:`multiprocessing`, :mod:`concurrent.futures`, :mod:`logging`, starting its feeder
threads): a twentieth of validating the bench's 5,000 custom resources on two CPUs. Forked children
read task numbers from one pipe and send pickled results back on one pipe each; the parent writes
the task numbers as the pipe takes them and reads results as they come (:mod:`selectors`), so
neither side can block the other. Linux and macOS only (``os.fork``), like the ``fork`` context
the executor used.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import selectors
import signal
import struct
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Bytes of one task number on the task pipe (an unsigned 32-bit integer).
_TASK = struct.Struct("<I")
#: Bytes of a result frame's length prefix.
_FRAME = struct.Struct("<Q")
#: Task numbers written at once: writes of at most PIPE_BUF (4,096) bytes are atomic, so a reader
#: never finds part of a task number in the pipe.
_TASKS_PER_WRITE = 4096 // _TASK.size


class WorkerDied(RuntimeError):
    """A worker process ended without sending all its results (killed by a signal, out of memory)."""


def fork_map(
    function: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    *,
    initializer: Callable[[], None] | None = None,
) -> Iterator[tuple[int, R]]:
    """``(index, function(items[index]))`` for every item, computed by ``workers`` forked processes
    (at most one per item) and yielded in the order they finish.

    Each child is a copy of the calling process at the time of the call (``function``, ``items``
    and whatever they reference need not be picklable; results must be). Tasks are handed out one at
    a time, so a slow item delays only its own worker. Fork before starting any thread.

    Args:
        function: the work, run in a child; what it raises is re-raised in the parent.
        items: the inputs (at most 2**32 - 1).
        workers: processes to fork (at least 1).
        initializer: run once in each child before its first task.

    Raises:
        BaseException: the first exception a task raised (unpickled in the parent), after the other
            children are stopped.
        WorkerDied: a child ended without all its results.
    """
    count = len(items)
    if count == 0:
        return
    task_reader, task_writer = os.pipe()
    pipes = [os.pipe() for _ in range(min(max(1, workers), count))]
    children: list[int] = []
    try:
        for own in pipes:
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child (coverage does not follow forks)
                others = [task_writer, *(fd for pipe in pipes for fd in pipe if fd != own[1])]
                _child(function, items, initializer, task_reader, own[1], others)
            children.append(pid)
    except BaseException:
        _stop(children)
        for fd in (task_reader, task_writer, *(fd for pipe in pipes for fd in pipe)):
            os.close(fd)
        raise
    os.close(task_reader)
    for _, writer in pipes:
        os.close(writer)
    yield from _collect(count, task_writer, [reader for reader, _ in pipes], children)


def _child(
    function: Callable[[T], R],
    items: Sequence[T],
    initializer: Callable[[], None] | None,
    task_reader: int,
    writer: int,
    others: list[int],
) -> None:  # pragma: no cover - runs in the child
    """A worker's life: take task numbers until the pipe ends, send each result; never returns."""
    status = 0
    try:
        for fd in others:
            os.close(fd)
        if initializer is not None:
            initializer()
        while True:
            task = os.read(task_reader, _TASK.size)
            if not task:
                break
            (index,) = _TASK.unpack(task)
            try:
                payload = pickle.dumps((index, True, function(items[index])), pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:  # sent to the parent, which raises it
                payload = _failure(index, exc)
            _write_all(writer, _FRAME.pack(len(payload)) + payload)
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _failure(index: int, exc: BaseException) -> bytes:
    try:
        return pickle.dumps((index, False, exc), pickle.HIGHEST_PROTOCOL)
    except Exception:  # an exception that does not pickle: its type and text
        return pickle.dumps((index, False, RuntimeError(f"{type(exc).__name__}: {exc}")))


def _write_all(fd: int, data: bytes) -> None:  # pragma: no cover - runs in the child
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _collect(
    count: int, task_writer: int, readers: list[int], children: list[int]
) -> Iterator[tuple[int, Any]]:
    """The parent's side: feed task numbers, yield results; stop the children on any way out."""
    tasks = memoryview(b"".join(_TASK.pack(index) for index in range(count)))
    buffers = {reader: bytearray() for reader in readers}
    received = 0
    os.set_blocking(task_writer, False)
    selector = selectors.DefaultSelector()
    try:
        selector.register(task_writer, selectors.EVENT_WRITE)
        for reader in readers:
            selector.register(reader, selectors.EVENT_READ)
        while selector.get_map():
            for key, _ in selector.select():
                fd = key.fd
                if fd == task_writer:
                    chunk = tasks[: _TASKS_PER_WRITE * _TASK.size]
                    with contextlib.suppress(BlockingIOError):
                        tasks = tasks[os.write(fd, chunk) :]
                    if not tasks:
                        selector.unregister(fd)
                        os.close(fd)
                        task_writer = -1
                    continue
                data = os.read(fd, 1 << 20)
                if not data:
                    selector.unregister(fd)
                    os.close(fd)
                    readers.remove(fd)
                    continue
                buffer = buffers[fd]
                buffer += data
                while len(buffer) >= _FRAME.size:
                    (size,) = _FRAME.unpack_from(buffer)
                    if len(buffer) < _FRAME.size + size:
                        break
                    index, ok, value = pickle.loads(buffer[_FRAME.size : _FRAME.size + size])
                    del buffer[: _FRAME.size + size]
                    if not ok:
                        raise value
                    received += 1
                    yield index, value
        if received < count:
            raise WorkerDied(
                f"a worker process ended without its results ({count - received} of {count} missing)"
            )
    finally:
        selector.close()
        for fd in (task_writer, *readers):
            if fd >= 0:
                os.close(fd)
        _stop(children if received < count else [], reap=children)


def _stop(pids: list[int], reap: list[int] | None = None) -> None:
    """Terminate ``pids`` and reap ``reap`` (default: the same processes)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    for pid in pids if reap is None else reap:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
