"""Where an emitted object goes: into the cdk8s construct tree (a jsii ``ApiObject``), or, while
``trainops synth`` renders an app (:func:`recording`), into a Python-side record only.

Every call from Python into cdk8s is a jsii round trip to the Node.js process (the cost that
dominates synth, DESIGN.md decision 3). An app's objects are complete Python dicts before they are
emitted, so ``trainops synth`` records them and computes what cdk8s would render in Python
(:meth:`Recording.documents`), exactly as ``ApiObject.toJson()`` does (cdk8s 2.70 ``api-object.ts``
``toJson``, ``metadata.ts`` ``ApiObjectMetadataDefinition.toJson``, ``_util.ts`` ``sanitizeValue``,
fast-json-patch ``applyOperation``) and with the values as the jsii wire returns them (JSON: an
integral float comes back as an int). The constructs themselves (``Construct`` subclasses) are still
created in cdk8s, so construct ids, scopes and errors are cdk8s's own.

Outside a recording (tests, ``Chart.to_json()``, ``app.synth()``, ``cdk8s synth``) every object is an
``ApiObject`` at once. A recording that meets anything it cannot reproduce exactly (metadata cdk8s
would reject or name itself, values the jsii wire changes in other ways) is marked unsupported and
:func:`trainops.synth.render.render_objects` renders that app through cdk8s instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from cdk8s import ApiObject
    from constructs import Construct

#: A JSON patch operation kind (RFC 6902) the constructs use.
PatchKind = Literal["add", "replace", "remove"]

#: The metadata fields cdk8s's ``ApiObjectMetadata`` struct takes from Python (the jsii struct drops
#: or rejects others) and the value each must have for a recording to reproduce it.
_METADATA_FIELDS = ("name", "namespace", "labels", "annotations", "finalizers")
#: Integers beyond this lose precision as JavaScript numbers.
_SAFE_INTEGER = 2**53
#: JavaScript prints integral numbers from this magnitude in exponent form (``1e+21``).
_EXPONENT_FROM = 1e21


@dataclass(frozen=True)
class PatchOp:
    """One JSON patch operation on an emitted object (cdk8s ``JsonPatch``).

    Args:
        op: ``"add"``, ``"replace"`` or ``"remove"``.
        path: a JSON pointer, e.g. ``/spec/replicas``.
        value: the new value (``add``/``replace``); ignored for ``remove``.
    """

    op: PatchKind
    path: str
    value: Any = None


def replace_op(path: str, value: Any) -> PatchOp:
    """A ``replace`` operation (cdk8s ``JsonPatch.replace``)."""
    return PatchOp("replace", path, value)


def remove_op(path: str) -> PatchOp:
    """A ``remove`` operation (cdk8s ``JsonPatch.remove``)."""
    return PatchOp("remove", path)


class Unsupported(Exception):
    """A value or shape a recording cannot reproduce exactly; the app renders through cdk8s."""


@dataclass
class _Record:
    scope: Construct
    props: dict[str, Any]
    ops: list[PatchOp] = field(default_factory=list)


@dataclass
class Recording:
    """The objects emitted while an app is built for ``trainops synth``.

    Args:
        namespace: the namespace of the app's Chart (cdk8s puts it on every object without one).
        records: one per emitted object, in emit order.
        unsupported: why the recording cannot stand in for cdk8s, or ``None``.
    """

    namespace: str | None
    records: list[_Record] = field(default_factory=list)
    unsupported: str | None = None

    def scopes(self) -> list[Construct]:
        """The constructs that emitted the recorded objects."""
        return [record.scope for record in self.records]

    def documents(self) -> list[dict[str, Any]]:
        """Each recorded object as cdk8s's ``ApiObject.toJson()`` renders it, in emit order.

        Raises:
            Unsupported: the recording is marked unsupported, or a patch does not apply.
        """
        if self.unsupported is not None:
            raise Unsupported(self.unsupported)
        return [_to_json(record, self.namespace) for record in self.records]


_ACTIVE: Recording | None = None


@contextmanager
def recording(namespace: str | None) -> Iterator[Recording]:
    """Record every object emitted in the block instead of creating cdk8s ``ApiObject`` s.

    Args:
        namespace: the namespace of the Chart the objects are emitted into.
    """
    global _ACTIVE
    previous, _ACTIVE = _ACTIVE, Recording(namespace)
    try:
        yield _ACTIVE
    finally:
        _ACTIVE = previous


@contextmanager
def eager() -> Iterator[None]:
    """Create cdk8s ``ApiObject`` s in the block even inside a :func:`recording` (e.g. a throwaway
    Chart that is rendered with ``Chart.to_json()`` at once)."""
    global _ACTIVE
    previous, _ACTIVE = _ACTIVE, None
    try:
        yield
    finally:
        _ACTIVE = previous


def active() -> Recording | None:
    """The recording in progress, or ``None`` when objects go into the cdk8s tree."""
    return _ACTIVE


class Emitted:
    """An emitted object: its cdk8s ``ApiObject`` or its record, patched the same way in both."""

    def __init__(self, api_object: ApiObject | None, record: _Record | None, owner: Recording | None) -> None:
        self._api_object = api_object
        self._record = record
        self._owner = owner

    @property
    def api_object(self) -> ApiObject | None:
        """The cdk8s ``ApiObject``; ``None`` for an object recorded for ``trainops synth``."""
        return self._api_object

    def patch(self, *ops: PatchOp) -> None:
        """Apply ``ops`` when the object is rendered (cdk8s ``ApiObject.addJsonPatch``)."""
        if self._record is not None and self._owner is not None:
            try:
                self._record.ops.extend(PatchOp(o.op, o.path, wire(o.value)) for o in ops)
            except Unsupported as exc:
                self._owner.unsupported = str(exc)
            return
        from cdk8s import JsonPatch

        assert self._api_object is not None
        patches = [
            JsonPatch.remove(o.path) if o.op == "remove" else getattr(JsonPatch, o.op)(o.path, o.value)
            for o in ops
        ]
        self._api_object.add_json_patch(*patches)

    def add_json_patch(self, *ops: Any) -> None:
        """cdk8s ``ApiObject.addJsonPatch`` with cdk8s ``JsonPatch`` objects (what :func:`emit` returned
        before it returned this handle); a recording cannot read them, so the app is rendered
        through cdk8s instead. Prefer :meth:`patch`."""
        if self._owner is not None:
            self._owner.unsupported = "a cdk8s JsonPatch added to a recorded object"
            return
        assert self._api_object is not None
        self._api_object.add_json_patch(*ops)


def record(scope: Construct, obj: dict[str, Any], into: Recording) -> Emitted:
    """Record ``obj`` (apiVersion, kind, metadata and body) as emitted by ``scope``.

    The body becomes ``add`` operations, as :func:`trainops.constructs._core.base.emit` hands it to
    cdk8s; every value is copied as the jsii wire carries it (:func:`wire`).
    """
    entry = _Record(scope, {})
    into.records.append(entry)
    try:
        entry.props = {
            "apiVersion": wire(obj["apiVersion"]),
            "kind": wire(obj["kind"]),
            "metadata": _metadata(obj["metadata"]),
        }
        entry.ops = [
            PatchOp("add", f"/{key}", wire(value))
            for key, value in obj.items()
            if key not in ("apiVersion", "kind", "metadata")
        ]
    except Unsupported as exc:
        into.unsupported = str(exc)
    return Emitted(None, entry, into)


def wire(value: Any) -> Any:
    """A copy of ``value`` as it comes back from Node.js over the jsii wire (JSON): dicts and lists
    copied, an integral float as an int, ``None`` in a dict dropped (jsii passes it as
    ``undefined``; in a list it stays ``null``).

    Raises:
        Unsupported: a value jsii would carry differently (tuples, objects, non-string keys,
            integers beyond 2**53, floats that are not finite or print in exponent form).
    """
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return value
    if kind is dict:  # the common case first, without the checks below
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise Unsupported("a mapping with non-string keys")
            if item is not None:
                out[key] = wire(item)
        return out
    if kind is list:
        return [wire(item) for item in value]
    if isinstance(value, str | bool):
        return value
    if isinstance(value, int):
        if abs(value) > _SAFE_INTEGER:
            raise Unsupported(f"integer {value} beyond JavaScript's safe range")
        return value
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) >= _EXPONENT_FROM:
            raise Unsupported(f"number {value!r}")
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise Unsupported("a mapping with non-string keys")
        return {key: wire(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [wire(item) for item in value]
    raise Unsupported(f"a value of type {type(value).__name__}")


def _metadata(metadata: Any) -> dict[str, Any]:
    """The metadata as cdk8s's ``ApiObjectMetadata`` struct carries it, or :class:`Unsupported`."""
    if not isinstance(metadata, dict) or set(metadata) - set(_METADATA_FIELDS):
        raise Unsupported("metadata fields cdk8s's ApiObjectMetadata does not take")
    if not isinstance(metadata.get("name"), str):
        raise Unsupported("an object without a name (cdk8s would name it)")
    for key in ("namespace",):
        if metadata.get(key) is not None and not isinstance(metadata[key], str):
            raise Unsupported(f"metadata.{key} that is not a string")
    for key in ("labels", "annotations"):
        mapping = metadata.get(key)
        if mapping is not None and not (
            isinstance(mapping, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in mapping.items())
        ):
            raise Unsupported(f"metadata.{key} that is not a string map")
    finalizers = metadata.get("finalizers")
    if finalizers is not None and not (
        isinstance(finalizers, list) and all(isinstance(f, str) for f in finalizers)
    ):
        raise Unsupported("metadata.finalizers that is not a list of strings")
    copied: dict[str, Any] = wire(metadata)
    return copied


def _to_json(entry: _Record, chart_namespace: str | None) -> dict[str, Any]:
    """cdk8s ``ApiObject.toJson()`` of a record whose Chart has ``chart_namespace`` and no labels."""
    meta = entry.props["metadata"]
    namespace = meta.get("namespace")
    metadata = _sanitize(
        {
            **meta,
            "name": meta["name"],
            "namespace": namespace if namespace is not None else chart_namespace,
            "annotations": dict(meta.get("annotations") or {}),
            "finalizers": list(meta.get("finalizers") or []),
            "ownerReferences": [],
            "labels": dict(meta.get("labels") or {}),
        },
        filter_empty=True,
    )
    document = _sanitize(
        {"apiVersion": entry.props["apiVersion"], "kind": entry.props["kind"], "metadata": metadata},
        filter_empty=False,
    )
    for op in entry.ops:
        document = _apply(document, op)
    return document  # type: ignore[no-any-return]


def _sanitize(value: Any, *, filter_empty: bool) -> Any:
    """cdk8s ``sanitizeValue``: nulls dropped, with ``filter_empty`` empty lists and maps too."""
    if value is None:
        return None
    if isinstance(value, list):
        if filter_empty and not value:
            return None
        return [_sanitize(item, filter_empty=filter_empty) for item in value]
    if isinstance(value, dict):
        out = {}
        for key in sorted(value):
            item = _sanitize(value[key], filter_empty=filter_empty)
            if item is not None:
                out[key] = item
        if filter_empty and not out:
            return None
        return out
    return value


def _copy(value: Any) -> Any:
    """A deep copy of a value :func:`wire` made (dicts, lists and scalars only)."""
    kind = type(value)
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}
    if kind is list:
        return [_copy(item) for item in value]
    return value


def _apply(document: Any, op: PatchOp) -> Any:
    """fast-json-patch ``applyOperation`` (unvalidated, as cdk8s ``JsonPatch.apply`` runs it) of one
    add/replace/remove; the value is copied (cdk8s deep-clones the operations)."""
    if op.path == "":
        if op.op == "remove" or op.value is None:
            raise Unsupported("removing the whole document")
        return _copy(op.value)
    keys = [part.replace("~1", "/").replace("~0", "~") for part in op.path.split("/")[1:]]
    try:
        parent = document
        for key in keys[:-1]:
            parent = parent[int(key)] if isinstance(parent, list) else parent[key]
        last = keys[-1]
        if isinstance(parent, dict):
            if op.op == "remove" or op.value is None:  # a None value arrives as undefined
                parent.pop(last, None)
            else:
                parent[last] = _copy(op.value)
        elif isinstance(parent, list):
            if op.op == "add":
                parent.insert(len(parent) if last == "-" else int(last), _copy(op.value))
            elif op.op == "replace":
                parent[int(last)] = _copy(op.value)
            else:
                del parent[int(last)]
        else:
            raise Unsupported(f"patch path {op.path} does not exist")
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise Unsupported(f"patch path {op.path} does not exist") from exc
    return document
