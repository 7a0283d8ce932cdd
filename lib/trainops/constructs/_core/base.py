"""Shared plumbing for trainops L2 constructs.

Every construct builds its Kubernetes object as a plain Python dict and hands it to cdk8s in as
few jsii calls as possible: one ``ApiObject`` (apiVersion, kind, metadata) plus one
``add_json_patch`` call carrying the rest of the body (DESIGN.md decision 3).
"""

from __future__ import annotations

from typing import Any, ClassVar

from trainops.hashing import content_hash
from trainops.naming import DNS1123_LABEL, NameSyntax, require
from trainops.nodeenv import configure_node

configure_node()

from cdk8s import ApiObject, JsonPatch  # noqa: E402
from constructs import Construct  # noqa: E402

__all__ = [
    "Construct",
    "ObjectConstruct",
    "content_hash",
    "emit",
    "require_name",
    "run_once_name",
]


class ObjectConstruct(Construct):
    """An L2 construct emitting one Kubernetes object: read-only ``name``, ``kind``, ``api_version``.

    Subclasses set the class attributes ``KIND`` and ``API_VERSION`` (the emitted object's) and
    assign ``self._name`` in ``__init__``.
    """

    KIND: ClassVar[str] = ""
    API_VERSION: ClassVar[str] = ""
    _name: str

    @property
    def name(self) -> str:
        """The emitted object's ``metadata.name``."""
        return self._name

    @property
    def kind(self) -> str:
        """The emitted object's kind, e.g. ``PyTorchJob``."""
        return self.KIND

    @property
    def api_version(self) -> str:
        """The emitted object's apiVersion, e.g. ``kubeflow.org/v1``."""
        return self.API_VERSION


def require_name(
    construct: str, prop: str, value: str, *, max_length: int = 63, syntax: NameSyntax = DNS1123_LABEL
) -> str:
    """Check that ``value`` is a name of ``syntax`` (default: DNS-1123 label) of at most
    ``max_length`` characters; :func:`trainops.naming.require` for constructs.

    Args:
        construct: construct class name for the message, e.g. ``"PyTorchJob"``.
        prop: prop name for the message, e.g. ``"name"``.
        value: the proposed name.
        max_length: maximum length in characters. Default: 63.
        syntax: :data:`~trainops.naming.DNS1123_LABEL` (default) or
            :data:`~trainops.naming.DNS1035_LABEL` (Services, Kubeflow jobs).

    Raises:
        ValueError: quoting the construct, prop and value.
    """
    return require(syntax, construct, prop, value, max_length=max_length)


def run_once_name(base: str, spec: Any) -> str:
    """Name a run-once object (Job, Kubeflow job, TrainJob, Experiment) ``<base>-<hash6>``.

    A changed spec gives a new name, so Argo CD creates a new run instead of patching an immutable
    spec in place (DESIGN.md decision 4). ``base`` is truncated so the result stays within the 63
    characters a DNS-1123 label allows (Kubeflow job names become pod label values).
    """
    return f"{base[:56].rstrip('-')}-{content_hash(spec)}"


def emit(scope: Construct, obj: dict[str, Any], id: str = "Resource") -> ApiObject:
    """Create the L1 ``ApiObject`` child for ``obj`` in two jsii calls.

    Args:
        scope: the L2 construct that owns the object.
        obj: a complete Kubernetes object as a dict with ``apiVersion``, ``kind`` and ``metadata``.
        id: construct id of the child. Default: ``"Resource"`` (the cdk8s-plus convention).

    Returns:
        The cdk8s ``ApiObject``.
    """
    api_object = ApiObject(
        scope, id, api_version=obj["apiVersion"], kind=obj["kind"], metadata=obj["metadata"]
    )
    patches = [
        JsonPatch.add(f"/{key}", value)
        for key, value in obj.items()
        if key not in ("apiVersion", "kind", "metadata")
    ]
    if patches:
        api_object.add_json_patch(*patches)
    return api_object
