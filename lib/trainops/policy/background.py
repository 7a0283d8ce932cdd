"""Run a policy check in a forked process while the caller validates (``validate --policy`` on
large inputs): the two passes share no state, so on several CPUs they overlap instead of adding up.

The child computes ``function(*args)`` and sends the pickled result (or the exception it raised)
back through a pipe; :meth:`Background.result` returns it (or raises it) in the parent. Fork
before starting any thread or process pool: the child is a copy of the parent at that moment.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Background(Generic[T]):
    """A forked computation whose result the parent collects once.

    Args:
        pid: the child's process ID.
        reader: the read end of the pipe the child writes its result to.
    """

    def __init__(self, pid: int, reader: int) -> None:
        self._pid = pid
        self._reader = reader
        self._done = False

    def result(self) -> T:
        """The child's return value.

        Raises:
            BaseException: whatever the child raised (its exception, unpickled).
            RuntimeError: the child died without a result (e.g. killed by a signal).
        """
        with os.fdopen(self._reader, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self._pid, 0)
        self._done = True
        if not data:
            raise RuntimeError(f"policy check process ended without a result (wait status {status})")
        ok, value = pickle.loads(data)
        if not ok:
            raise value
        result: T = value
        return result

    def cancel(self) -> None:
        """Stop the child and reap it (when the parent gives up before :meth:`result`)."""
        if self._done:
            return
        self._done = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGTERM)
        os.close(self._reader)
        os.waitpid(self._pid, 0)


def start(function: Callable[..., T], *args: Any) -> Background[T]:
    """Fork a child computing ``function(*args)``; collect it with :meth:`Background.result`."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow forks)
        os.close(reader)
        try:
            payload = pickle.dumps((True, function(*args)))
        except BaseException as exc:  # sent to the parent, which raises it
            try:
                payload = pickle.dumps((False, exc))
            except Exception:
                payload = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        with os.fdopen(writer, "wb") as pipe:
            pipe.write(payload)
        os._exit(0)
    os.close(writer)
    return Background(pid, reader)
