"""The checked set as the engine hands it to cross-object rules, with what every rule would
otherwise re-read: each object's kind, the indices of each kind, and lookups by namespace.

A cross-object rule receives an :class:`ObjectSet`: a plain ``list`` of the documents (a rule can
index and iterate it as before) whose kinds are read once per run. The helpers below take any
sequence (a rule called outside the engine, e.g. by a test, gets the same answers) and use the
set's index when they are given one. Nothing here changes what a rule finds, only how often the
same objects are walked: results keep the document order of the set.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, TypeVar

from trainops.core.kinds import GroupKind, group_kind

T = TypeVar("T")
R = TypeVar("R")


class ObjectSet(list[dict[str, Any]]):
    """The documents of one policy run (a list), with their kinds read once.

    Args:
        objects: the documents, in order.
    """

    def __init__(self, objects: Sequence[dict[str, Any]]) -> None:
        super().__init__(objects)
        self.kinds: list[GroupKind | None] = [group_kind(obj) for obj in objects]
        self.by_kind: dict[GroupKind | None, list[int]] = {}
        for index, key in enumerate(self.kinds):
            self.by_kind.setdefault(key, []).append(index)
        #: What helpers derive from the set once per run (e.g. every pod template), by name.
        self.derived: dict[str, Any] = {}


def of_kind(objects: Sequence[dict[str, Any]], *keys: GroupKind) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index, object)`` of every object whose ``(group, kind)`` is one of ``keys``, in document
    order (as ``enumerate(objects)`` filtered by :func:`~trainops.core.kinds.group_kind`)."""
    if isinstance(objects, ObjectSet):
        indices = [i for key in keys for i in objects.by_kind.get(key, ())]
        if len(keys) > 1:
            indices.sort()
        for index in indices:
            yield index, objects[index]
        return
    wanted = set(keys)
    for index, obj in enumerate(objects):
        if group_kind(obj) in wanted:
            yield index, obj


def hashable(value: Any) -> bool:
    """Whether ``value`` can be a dict key (values read from a document may be lists or mappings)."""
    if not isinstance(value, Hashable):
        return False
    try:
        hash(value)
    except TypeError:  # a tuple holding a list
        return False
    return True


class PerSequence:
    """Values derived from a sequence, kept for the last sequence asked about (it is held, so its
    identity cannot be reused while it is cached); asking about another sequence starts afresh."""

    def __init__(self) -> None:
        self._held: Sequence[Any] | None = None
        self._values: dict[str, Any] = {}

    def get(self, items: Sequence[T], name: str, build: Callable[[Sequence[T]], R]) -> R:
        """``build(items)``, computed once per ``items`` and ``name``."""
        if self._held is not items:
            self._held, self._values = items, {}
        if name not in self._values:
            self._values[name] = build(items)
        value: R = self._values[name]
        return value
