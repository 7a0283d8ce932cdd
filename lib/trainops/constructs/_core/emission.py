"""An emitted object's handle: its cdk8s ``ApiObject``, patched with JSON patch operations
(cdk8s ``JsonPatch``) that cdk8s applies when it renders the object (``ApiObject.toJson()``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from trainops.core.nodeenv import kernel_cache

if TYPE_CHECKING:
    from cdk8s import ApiObject, JsonPatch

#: A JSON patch operation kind (RFC 6902) the constructs use.
PatchKind = Literal["add", "replace", "remove"]


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


class Emitted:
    """An emitted object: its cdk8s ``ApiObject``.

    Args:
        api_object: the object in the cdk8s construct tree.
    """

    def __init__(self, api_object: ApiObject) -> None:
        self._api_object = api_object

    @property
    def api_object(self) -> ApiObject:
        """The cdk8s ``ApiObject``."""
        return self._api_object

    def patch(self, *ops: PatchOp) -> None:
        """Apply ``ops`` when the object is rendered (cdk8s ``ApiObject.addJsonPatch``): one jsii call,
        plus one per ``add``/``replace`` operation (a ``remove`` reuses :func:`remove_patch`)."""
        from cdk8s import JsonPatch

        patches = [
            remove_patch(o.path) if o.op == "remove" else getattr(JsonPatch, o.op)(o.path, o.value)
            for o in ops
        ]
        self._api_object.add_json_patch(*patches)

    def add_json_patch(self, *ops: Any) -> None:
        """cdk8s ``ApiObject.addJsonPatch`` with cdk8s ``JsonPatch`` objects. Prefer :meth:`patch`."""
        self._api_object.add_json_patch(*ops)


@kernel_cache
def remove_patch(path: str) -> JsonPatch:
    """The cdk8s ``JsonPatch.remove(path)`` operation, created once per path and jsii kernel
    (:func:`~trainops.core.nodeenv.kernel_cache`) and shared by every object that removes ``path`` (one
    jsii call saved per later use).

    Sharing is safe: a ``JsonPatch`` only holds its RFC 6902 operation (a readonly field), and
    ``JsonPatch.apply``, which ``ApiObject.toJson`` calls, applies deep copies of the operations
    (``applyPatch(document, deepClone(ops.map(o => o._toJson())))``; cdk8s-team/cdk8s-core
    ``src/json-patch.ts``, so since cdk8s-core #915 of December 2022 and unchanged since: the pinned
    cdk8s 2.70 has it).

    Args:
        path: a JSON pointer, e.g. ``/metadata/namespace``.
    """
    from cdk8s import JsonPatch

    return JsonPatch.remove(path)
