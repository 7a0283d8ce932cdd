"""Checkov, the Python policy scanner people run on Kubernetes YAML today, as the peer of the policy
benchmark (``make bench``, :mod:`bench.policy`).

Checkov comes from PyPI at an exact version (:data:`VERSION`) into its own virtual environment under
the bench output directory (``bench/out/checkov/venv``): its dependencies are many and pinned
differently from ours, so it never enters the project's ``.venv`` or ``constraints.txt``. The
environment is made once (a stamp file names the version); when pip cannot install it, the bench
skips Checkov with a note.

It runs its Kubernetes framework on the given files, offline::

    checkov --framework kubernetes --file F... --quiet --compact --skip-download --output json

(``--skip-download``: no guideline or severity download from the vendor's platform; the checks and
their results are the same). :func:`parse_checkov` reads the JSON report: one object for one
framework, or a list of them; ``results.failed_checks`` holds one entry per failed check and
resource, with ``check_id``, ``check_name``, ``file_path`` and ``resource`` (``Kind.namespace.name``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The Checkov release measured (PyPI), pinned exactly.
VERSION = "3.3.30"
#: Where the virtual environment goes, under the bench output directory.
VENV = "checkov/venv"


@dataclass(frozen=True)
class Install:
    """Checkov's executable, or why there is none.

    Args:
        executable: the ``checkov`` console script, or ``None``.
        note: what happened (installed, reused, or the pip error's last line).
    """

    executable: Path | None
    note: str


def ensure(out: Path, python: str = sys.executable) -> Install:
    """Create ``<out>/checkov/venv`` with Checkov :data:`VERSION` once (``pip install
    checkov==VERSION`` from the configured index); reuse it while its stamp names that version."""
    venv = out / VENV
    executable = venv / "bin" / "checkov"
    stamp = venv / ".installed"
    if executable.is_file() and stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == VERSION:
        return Install(executable, f"checkov {VERSION} (bench/out venv, reused)")
    try:
        subprocess.run([python, "-m", "venv", "--clear", str(venv)], check=True, capture_output=True)
        subprocess.run(
            [
                str(venv / "bin" / "pip"),
                "install",
                "--quiet",
                "--disable-pip-version-check",
                f"checkov=={VERSION}",
            ],
            check=True,
            capture_output=True,
            text=True,
        )
    except subprocess.CalledProcessError as exc:
        lines = [line for line in (exc.stderr or "").splitlines() if line.strip() and "WARNING" not in line]
        return Install(None, f"Checkov {VERSION} could not be installed ({lines[-1] if lines else exc})")
    stamp.write_text(VERSION + "\n", encoding="utf-8")
    return Install(executable, f"checkov {VERSION} (installed into bench/out/{VENV})")


def argv(executable: Path, files: Sequence[str]) -> list[str]:
    """Checkov's command line for ``files`` (Kubernetes framework, JSON report, offline)."""
    return [
        str(executable),
        "--framework",
        "kubernetes",
        "--quiet",
        "--compact",
        "--skip-download",
        "--output",
        "json",
        "--file",
        *files,
    ]


@dataclass
class CheckovOutput:
    """What Checkov reported.

    Args:
        failed: failed checks per check ID.
        names: check ID → check name.
        passed: passed checks (its summary).
        resources: resources it evaluated (its summary; containers of a pod count separately).
        files: failed checks per file (as Checkov prints the path).
    """

    failed: Counter[str] = field(default_factory=Counter)
    names: dict[str, str] = field(default_factory=dict)
    passed: int = 0
    resources: int = 0
    files: Counter[str] = field(default_factory=Counter)


def parse_checkov(text: str) -> CheckovOutput:
    """Read Checkov's ``--output json`` report (one framework's object, a list of them, or the bare
    summary it prints when nothing was scanned).

    Raises:
        ValueError: the text is not such a report.
    """
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"checkov output is not JSON: {exc}") from None
    reports = data if isinstance(data, list) else [data]
    out = CheckovOutput()
    for report in reports:
        if not isinstance(report, dict):
            raise ValueError("checkov output: a report is not an object")
        if "results" not in report:  # e.g. {"passed": 0, "failed": 0, ...} when nothing was scanned
            if not {"passed", "failed"} <= set(report):
                raise ValueError("checkov output: neither results nor a summary")
            continue
        for check in report["results"].get("failed_checks", []):
            check_id = str(check["check_id"])
            out.failed[check_id] += 1
            out.names.setdefault(check_id, str(check.get("check_name", "")))
            out.files[str(check.get("file_path", ""))] += 1
        summary = report.get("summary", {})
        out.passed += int(summary.get("passed", 0))
        out.resources += int(summary.get("resource_count", 0))
    return out
