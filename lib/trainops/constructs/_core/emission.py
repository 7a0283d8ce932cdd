"""An emitted object's handle: its cdk8s ``ApiObject``, patched with JSON patch operations
(cdk8s ``JsonPatch``) that cdk8s applies when it renders the object (``ApiObject.toJson()``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from cdk8s import ApiObject

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
        """Apply ``ops`` when the object is rendered (cdk8s ``ApiObject.addJsonPatch``)."""
        from cdk8s import JsonPatch

        patches = [
            JsonPatch.remove(o.path) if o.op == "remove" else getattr(JsonPatch, o.op)(o.path, o.value)
            for o in ops
        ]
        self._api_object.add_json_patch(*patches)

    def add_json_patch(self, *ops: Any) -> None:
        """cdk8s ``ApiObject.addJsonPatch`` with cdk8s ``JsonPatch`` objects. Prefer :meth:`patch`."""
        self._api_object.add_json_patch(*ops)
