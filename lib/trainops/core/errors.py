"""Error types with defined exit codes, shared by every command.

Exit codes (DESIGN.md decision 1): 0 clean; 1 findings at error level or invalid input;
2 usage or configuration error; 3 unexpected error; 130 interrupted.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_UNEXPECTED = 3
EXIT_INTERRUPTED = 130


class TrainopsError(Exception):
    """An error the user can act on, printed as one line on stderr.

    Args:
        message: the one-line message; it should name file, document, object and field
            where they are known.
        exit_code: the process exit code the CLI error boundary uses. Default: 2 (usage).
    """

    exit_code: int = EXIT_USAGE

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message


class UsageError(TrainopsError):
    """Bad command-line usage or configuration (exit 2)."""

    exit_code = EXIT_USAGE


class InputError(TrainopsError):
    """Invalid input such as malformed YAML or a document that is not an object (exit 1)."""

    exit_code = EXIT_FINDINGS


class SchemaError(TrainopsError):
    """A schema source is missing, unreadable or fails its checksum (exit 2)."""

    exit_code = EXIT_USAGE
