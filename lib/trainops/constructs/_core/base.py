"""Shared plumbing for trainops L2 constructs.

Every construct builds its Kubernetes object as a plain Python dict and hands it to cdk8s in as
few jsii calls as possible: one ``ApiObject`` (apiVersion, kind, metadata) plus one
``add_json_patch`` call carrying the rest of the body (DESIGN.md decision 3); cdk8s renders it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, cast

from trainops.constructs._core.emission import Emitted
from trainops.core.hashing import content_hash
from trainops.core.naming import DNS1123_LABEL, NameSyntax, require
from trainops.core.nodeenv import configure_node
from trainops.core.scopes import UNKNOWN, inherit_namespace, known_namespace, record_namespace

configure_node()

from cdk8s import ApiObject, Chart, JsonPatch  # noqa: E402
from constructs import Construct  # noqa: E402

__all__ = [
    "WAIVER_PREFIX",
    "Construct",
    "ObjectConstruct",
    "add_check",
    "chart_namespace",
    "content_hash",
    "emit",
    "require_name",
    "run_checks",
    "run_once_name",
    "waiver",
]


class ObjectConstruct(Construct):
    """An L2 construct emitting one Kubernetes object: read-only ``name``, ``kind``, ``api_version``.

    Subclasses set the class attributes ``KIND`` and ``API_VERSION`` (the emitted object's) and
    assign ``self._name`` in ``__init__``.

    Args:
        scope: the parent construct (a Chart, or a construct in one).
        id: the construct id, unique among ``scope``'s children.
    """

    KIND: ClassVar[str] = ""
    API_VERSION: ClassVar[str] = ""
    _name: str

    def __init__(self, scope: Construct, id: str) -> None:
        super().__init__(scope, id)
        inherit_namespace(self, scope)  # chart_namespace(self) without asking Node

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

    def emit_object(
        self,
        body: Mapping[str, Any],
        *,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
    ) -> Emitted:
        """Emit this construct's object: ``apiVersion``, ``kind``, ``metadata`` (``name``, plus
        ``labels`` and ``annotations`` when not empty) and the top-level fields of ``body`` (e.g.
        ``{"spec": ...}``), with :func:`emit`.
        """
        metadata: dict[str, Any] = {"name": self._name}
        if annotations:
            metadata["annotations"] = dict(annotations)
        if labels:
            metadata["labels"] = dict(labels)
        return emit(self, {"apiVersion": self.api_version, "kind": self.kind, "metadata": metadata, **body})


def require_name(
    construct: str, prop: str, value: str, *, max_length: int = 63, syntax: NameSyntax = DNS1123_LABEL
) -> str:
    """Check that ``value`` is a name of ``syntax`` (default: DNS-1123 label) of at most
    ``max_length`` characters; :func:`trainops.core.naming.require` for constructs.

    Args:
        construct: construct class name for the message, e.g. ``"PyTorchJob"``.
        prop: prop name for the message, e.g. ``"name"``.
        value: the proposed name.
        max_length: maximum length in characters. Default: 63.
        syntax: :data:`~trainops.core.naming.DNS1123_LABEL` (default) or
            :data:`~trainops.core.naming.DNS1035_LABEL` (Services, Kubeflow jobs).

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


def emit(scope: Construct, obj: dict[str, Any], id: str = "Resource") -> Emitted:
    """Create the L1 ``ApiObject`` child for ``obj``: one jsii call for the ``ApiObject``, one per
    top-level field besides ``apiVersion``, ``kind`` and ``metadata`` (``JsonPatch.add``; most objects
    have one, ``spec``) and one ``addJsonPatch``, none when there is no such field.

    That is the fewest cdk8s allows. ``ApiObject.toJson`` (cdk8s-team/cdk8s-core ``src/api-object.ts``)
    renders ``{...props, metadata: this.metadata.toJson()}`` and then applies the patches, but fields
    beyond ``apiVersion``, ``kind`` and ``metadata`` in the props never reach it from Python (the jsii
    kernel drops a struct's undeclared fields); and one patch replacing the whole document would
    overwrite the metadata cdk8s adds or users change later (the Chart's namespace and labels,
    ``api_object.metadata.add_label``), which the per-field patches leave alone.

    Args:
        scope: the L2 construct that owns the object.
        obj: a complete Kubernetes object as a dict with ``apiVersion``, ``kind`` and ``metadata``.
        id: construct id of the child. Default: ``"Resource"`` (the cdk8s-plus convention).

    Returns:
        The emitted object (its cdk8s ``ApiObject``), to patch later.
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
    return Emitted(api_object)


def chart_namespace(scope: Construct) -> str | None:
    """The namespace of the Chart ``scope`` belongs to (cdk8s ``Chart.of(scope).namespace``), ``None``
    when the Chart has none.

    Answered from Python when known (:mod:`trainops.core.scopes`: the Charts of
    :func:`trainops.app.build_chart` and the :class:`ObjectConstruct` created in them), else asked
    of cdk8s once (two jsii calls) and remembered on ``scope``: a construct's Chart and the Chart's
    namespace never change (cdk8s-core ``src/chart.ts``, ``Chart.of`` and the readonly
    ``Chart.namespace``).

    Raises:
        RuntimeError: (jsii's error) ``scope`` is in no Chart.
    """
    known = known_namespace(scope)
    if known is not UNKNOWN:
        return cast("str | None", known)
    namespace: str | None = Chart.of(scope).namespace
    record_namespace(scope, namespace)
    return namespace


#: Cross-construct checks registered by :func:`add_check` since the last :func:`run_checks`.
_CHECKS: list[Any] = []


def add_check(construct: Construct, validation: Any) -> None:
    """Register a cross-construct check that must hold once the whole app is built (e.g. a budget
    against an Autoscaler created later): as a cdk8s node validation (``App.synth()``) and for
    ``trainops synth``, which renders with ``Chart.to_json()`` and calls :func:`run_checks` instead
    (one Python call per check instead of a jsii round trip per construct).

    Args:
        construct: the construct the check belongs to.
        validation: an ``IValidation`` whose ``validate()`` returns error messages (empty when fine).
    """
    construct.node.add_validation(validation)
    _CHECKS.append(validation)


def run_checks() -> list[str]:
    """Run and forget every check added since the last call; return their error messages."""
    checks = list(_CHECKS)
    _CHECKS.clear()
    return [message for check in checks for message in check.validate()]


#: Annotation prefix of a policy waiver: ``trainops.dev/waive-<rule-id>: "<reason>"`` (DESIGN.md decision 7).
WAIVER_PREFIX = "trainops.dev/waive-"


def waiver(rule_id: str, reason: str) -> dict[str, str]:
    """The annotation that waives policy rule ``rule_id`` on an object, with its reason.

    Raises:
        ValueError: an empty reason (an unexplained waiver is itself a policy finding).
    """
    if not reason.strip():
        raise ValueError(f"waiver {rule_id!r}: a reason is required")
    return {f"{WAIVER_PREFIX}{rule_id}": reason}
