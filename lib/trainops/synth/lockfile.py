"""``generated/<cluster>/lock.json``: object identity → file, sha256 and spec hash.

Each entry records an object's identity (API group, kind, namespace, name and, for run-once
objects, the base name every run of it shares), the file it is written to (relative to the
cluster directory), the sha256 of that file and the object's spec hash; the lock also records the
trainops version that wrote it. :func:`hand_edits` compares a cluster directory with its lock, so
``synth`` can refuse to overwrite a ``generated/`` someone edited by hand (DESIGN.md decision 5).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from trainops import __version__
from trainops.core.errors import UsageError
from trainops.core.kinds import group_of
from trainops.synth.normalise import RUN_OF_LABEL, SPEC_HASH_ANNOTATION
from trainops.synth.render import AppResult

#: The lock file's name inside ``generated/<cluster>/``.
LOCK_NAME = "lock.json"


def lock_entry(obj: dict[str, Any], file: str, text: str) -> dict[str, str]:
    """The lock entry of one normalised object written as ``text`` to ``file``.

    Keys: ``group``, ``apiVersion``, ``kind``, ``namespace`` (``""`` when cluster-scoped),
    ``name``, ``base`` (the ``trainops.dev/run-of`` label of a run-once object, else the name),
    ``file``, ``sha256`` (of the UTF-8 text) and ``specHash``.
    """
    meta = obj["metadata"]
    return {
        "group": group_of(str(obj["apiVersion"])),
        "apiVersion": obj["apiVersion"],
        "kind": obj["kind"],
        "namespace": meta.get("namespace", ""),
        "name": meta["name"],
        "base": (meta.get("labels") or {}).get(RUN_OF_LABEL, meta["name"]),
        "file": file,
        "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "specHash": (meta.get("annotations") or {}).get(SPEC_HASH_ANNOTATION, ""),
    }


def lock_file(cluster: str, results: Iterable[AppResult]) -> str:
    """Build ``lock.json`` for one cluster: object identity → file, sha256 and spec hash, sorted by
    file, plus ``trainops`` (the version that wrote it)."""
    objects = [
        lock_entry(result.objects[name], f"{result.app}/{name}", text)
        for result in results
        if result.cluster == cluster
        for name, text in result.files.items()
    ]
    objects.sort(key=lambda o: o["file"])
    lock = {
        "cluster": cluster,
        "generator": f"trainops {__version__}",
        "trainops": __version__,
        "objects": objects,
    }
    return json.dumps(lock, indent=2, sort_keys=True) + "\n"


def read_lock(directory: Path) -> dict[str, Any] | None:
    """The parsed ``lock.json`` of a cluster directory, or ``None`` when there is none.

    Raises:
        UsageError: the lock file is not a JSON object with an ``objects`` list.
    """
    path = directory / LOCK_NAME
    if not path.is_file():
        return None
    try:
        lock = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not a trainops lock file: {exc}") from None
    if not isinstance(lock, dict) or not isinstance(lock.get("objects"), list):
        raise UsageError(f"{path}: not a trainops lock file: no objects list")
    return lock


def hand_edits(directory: Path) -> list[str]:
    """Files under a cluster directory that differ from what its lock records (edited, added or
    deleted by hand), as ``<kind of change> <path>`` lines sorted by path; empty when it matches
    or when the directory does not exist yet.

    Raises:
        UsageError: the lock file is unreadable.
    """
    if not directory.is_dir():
        return []
    lock = read_lock(directory)
    recorded = {} if lock is None else {str(o.get("file")): str(o.get("sha256")) for o in lock["objects"]}
    on_disk = {
        p.relative_to(directory).as_posix(): p
        for p in directory.rglob("*")
        if p.is_file() and p.name != LOCK_NAME
    }
    problems: list[tuple[str, str]] = []
    for rel, path in on_disk.items():
        if rel not in recorded:
            problems.append((rel, "added"))
        elif hashlib.sha256(path.read_bytes()).hexdigest() != recorded[rel]:
            problems.append((rel, "edited"))
    problems += [(rel, "deleted") for rel in recorded if rel not in on_disk]
    return [f"{change} {directory.as_posix()}/{rel}" for rel, change in sorted(problems)]
