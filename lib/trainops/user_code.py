"""Errors raised by user code in ``apps/``, reported as one line naming the app, file and line.

An exception raised while an app module is imported or while its ``build`` function runs is a
mistake in the user's code, not a trainops bug: :func:`app_error` turns it into an
:class:`AppError` (exit 2) whose message is ``<file>:<line>: app '<name>' on cluster '<cluster>':
<Type>: <message>``, where file and line are the innermost frame of the traceback inside the apps
package (the line the user wrote, even when a construct deeper down raised). The original
exception is kept as ``__cause__``; the CLI prints its traceback only with ``--traceback``.

Constructs raise ``ValueError`` for bad props (STYLE.md habit 11) with a message that already
names the construct, prop and value, so the type name is left out for those.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from trainops.core.errors import UsageError

if TYPE_CHECKING:
    from trainops.app import AppDef


@contextlib.contextmanager
def user_output() -> Iterator[None]:
    """Send what user code prints (``print`` in ``apps/``) to stderr for the block: stdout carries
    only trainops' report (``ci --format json`` must be JSON and nothing else; issue 27)."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


class AppError(UsageError):
    """User code in ``apps/`` raised while being imported or built (exit 2).

    Args:
        message: the one-line message (file:line, app, cluster, exception).
        file: the file in ``apps/`` where the error was raised, if one was found.
        line: its line number, if known.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.file = file
        self.line = line


def user_frame(exc: BaseException, apps_dir: Path) -> tuple[str, int] | None:
    """The innermost ``(file, line)`` of ``exc``'s traceback inside ``apps_dir``, or ``None``.

    ``file`` is relative to the working directory when it lies below it (``apps/bert.py``), else
    absolute. A ``SyntaxError`` in an apps file is located by its own ``filename``/``lineno``.
    """
    import traceback  # here: only user code that raised needs it (start-up of `validate`)

    apps = apps_dir.resolve()
    found: tuple[str, int] | None = None
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename).resolve()
        if path.is_relative_to(apps) and frame.lineno is not None:
            found = (_display(path), frame.lineno)
    if isinstance(exc, SyntaxError) and exc.filename:
        path = Path(exc.filename).resolve()
        if path.is_relative_to(apps):
            found = (_display(path), exc.lineno or 0)
    return found


def app_error(exc: BaseException, apps_dir: Path, *, app: str | None, cluster: str | None) -> AppError:
    """Describe ``exc`` raised by user code as an :class:`AppError` (``exc`` becomes its cause).

    Args:
        exc: the exception raised by the apps package or an app's ``build``.
        apps_dir: the apps package directory, e.g. ``<root>/apps``.
        app: the app being built, or ``None`` while the package is imported.
        cluster: the target cluster being built for, or ``None``.
    """
    where = user_frame(exc, apps_dir)
    subject = "apps" if app is None else f"app {app!r}"
    if app is not None and cluster is not None:
        subject += f" on cluster {cluster!r}"
    if isinstance(exc, SyntaxError):
        detail = f"SyntaxError: {exc.msg}"
    elif isinstance(exc, ValueError):
        detail = str(exc)
    else:
        detail = f"{type(exc).__name__}: {exc}"
    detail = " ".join(detail.split()) or type(exc).__name__
    prefix = f"{where[0]}:{where[1]}: " if where else "apps: "
    error = AppError(
        f"{prefix}{subject}: {detail}", file=where[0] if where else None, line=where[1] if where else None
    )
    error.__cause__ = exc
    return error


def _display(path: Path) -> str:
    cwd = Path.cwd().resolve()
    return path.relative_to(cwd).as_posix() if path.is_relative_to(cwd) else str(path)


def apps_dir_of(app_def: AppDef) -> Path:
    """The directory of the top-level package holding ``app_def.build`` (normally ``apps/``); the
    working directory's ``apps`` when the module cannot be found."""
    top = sys.modules.get(app_def.build.__module__.partition(".")[0])
    file = getattr(top, "__file__", None)
    return Path(file).parent if file else Path.cwd() / "apps"
