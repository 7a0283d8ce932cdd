"""Device claims through Dynamic Resource Allocation (``resource.k8s.io/v1``, GA in Kubernetes 1.34),
shared by the job constructs.

A :class:`DeviceClaim` describes the devices each GPU pod of a job needs: a DeviceClass the cluster
declares (``Cluster.device_classes``), a count, and attribute selectors (product name, minimum
memory, or CEL expressions over the ``device`` variable). :func:`plan_devices` turns it into a
:class:`DevicePlan` for a target:

- on a cluster that uses DRA (``Cluster.uses_dra``: 1.34 or later with declared device classes) a
  ``ResourceClaimTemplate`` (emitted by the job as a child construct) and, in every pod template
  whose containers request the GPU extended resource, a pod ``resourceClaims`` entry naming the
  template and a ``resources.claims`` entry in each such container, which no longer requests the
  extended resource (the claim allocates the devices);
- on other clusters the GPUs stay the extended resource ``Cluster.gpu_resource``; a selector cannot
  be expressed there and is refused.

Sources: kubernetes/kubernetes v1.36 ``pkg/apis/resource/types.go`` (``DeviceRequest``,
``ExactDeviceRequest``, ``DeviceSelector``), ``pkg/apis/core/types.go`` (``PodResourceClaim``,
``ResourceClaim`` of a container); the NVIDIA DRA driver's attribute names
(https://github.com/NVIDIA/k8s-dra-driver-gpu: ``productName``, capacity ``memory``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from trainops.constructs._core.props import require_quantity, require_strings, require_whole
from trainops.core.cluster import DRA_SINCE_MINOR, Cluster, DeviceClass
from trainops.core.hashing import content_hash
from trainops.core.kinds import pod_templates
from trainops.core.naming import DNS1123_LABEL, require

#: ``resource.k8s.io/v1``: the DRA API trainops emits (served from Kubernetes 1.34).
RESOURCE_API: Final = "resource.k8s.io/v1"
#: ``DeviceSelectorsMaxSize`` (``pkg/apis/resource/types.go``).
MAX_SELECTORS: Final = 32


@dataclass(frozen=True)
class DeviceClaim:
    """The devices each GPU pod of a job claims through Dynamic Resource Allocation.

    Args:
        device_class: the DeviceClass name, declared in ``Cluster.device_classes``, e.g.
            ``gpu.nvidia.com``.
        count: devices per pod; ``None`` takes the pod's GPU count (``gpus_per_node``), which a
            given count must equal. Default: ``None``.
        product: the product name the devices must have (the class's ``product_attribute``, e.g.
            ``NVIDIA H100 80GB HBM3``), or ``None``. Default: ``None``.
        min_memory: the least device memory as a quantity (the class's ``memory_capacity``), e.g.
            ``"80Gi"``, or ``None``. Default: ``None``.
        selectors: further CEL selectors over ``device`` (``device.driver``, ``device.attributes``,
            ``device.capacity``), e.g. ``'device.attributes["gpu.nvidia.com"].architecture == "Hopper"'``.
            Default: none.
        name: the request's name, the pod's claim name and the containers' claim. Default: ``gpu``.

    Raises:
        ValueError: from :func:`plan_devices`, quoting the prop and its value.
    """

    device_class: str
    count: int | None = None
    product: str | None = None
    min_memory: str | None = None
    selectors: Sequence[str] = ()
    name: str = "gpu"

    @property
    def selective(self) -> bool:
        """Whether the claim selects devices by attributes (which only DRA can express)."""
        return bool(self.product or self.min_memory or self.selectors)


def _literal(text: str) -> str:
    """A CEL string literal (JSON's double-quoted form is valid CEL)."""
    return json.dumps(text)


def selector_expressions(kind: str, claim: DeviceClaim, device_class: DeviceClass) -> list[str]:
    """The CEL selectors of ``claim``: the product and memory conditions on the class's driver
    domain, then the given ``selectors``.

    Raises:
        ValueError: a bad ``min_memory``, a selector that is not a non-empty string, or more than
            :data:`MAX_SELECTORS` selectors.
    """
    domain = _literal(device_class.driver)
    expressions = []
    if claim.product is not None:
        if not isinstance(claim.product, str) or not claim.product.strip():
            raise ValueError(f"{kind} claim_devices product={claim.product!r}: must be a non-empty string")
        attribute = device_class.product_attribute
        expressions.append(f"device.attributes[{domain}].{attribute} == {_literal(claim.product)}")
    if claim.min_memory is not None:
        memory = require_quantity(kind, "claim_devices min_memory", claim.min_memory).canonical()
        capacity = device_class.memory_capacity
        expressions.append(
            f"device.capacity[{domain}].{capacity}.compareTo(quantity({_literal(memory)})) >= 0"
        )
    extra = require_strings(kind, "claim_devices selectors", claim.selectors) or ()
    for expression in extra:
        if not expression.strip():
            raise ValueError(f"{kind} claim_devices selectors: an empty CEL expression")
    expressions += extra
    if len(expressions) > MAX_SELECTORS:
        raise ValueError(
            f"{kind} claim_devices: {len(expressions)} selectors, more than the {MAX_SELECTORS} a request may have"
        )
    return expressions


def gpu_counts(cluster: Cluster, obj: dict[str, Any]) -> set[int]:
    """The GPU limits (``cluster.gpu_resource``) of the containers of every pod template of ``obj``."""
    counts: set[int] = set()
    for site in pod_templates(obj):
        for container in site.spec.get("containers", []):
            limit = ((container.get("resources") or {}).get("limits") or {}).get(cluster.gpu_resource)
            if limit is not None:
                counts.add(int(limit))
    return counts


@dataclass(frozen=True)
class DevicePlan:
    """How a :class:`DeviceClaim` is written for one cluster (:func:`plan_devices`).

    Args:
        cluster: the target.
        request: the claim's name (request, pod claim and container claim).
        template: the ResourceClaimTemplate's name when the cluster uses DRA, else ``None`` (the
            GPUs stay an extended resource).
        spec: the ResourceClaimTemplate's ``spec`` (``{"spec": {"devices": ...}}``), or ``{}``.
    """

    cluster: Cluster
    request: str
    template: str | None
    spec: dict[str, Any]

    def apply(self, obj: dict[str, Any]) -> None:
        """Claim the devices in every pod template of ``obj`` whose containers request GPUs (in
        place): the pod's ``resourceClaims`` and each GPU container's ``resources.claims``, without
        the extended resource. Nothing changes when the cluster does not use DRA."""
        if self.template is None:
            return
        gpu = self.cluster.gpu_resource
        for site in pod_templates(obj):
            claimed = False
            for container in site.spec.get("containers", []):
                resources = container.get("resources") or {}
                if gpu not in (resources.get("limits") or {}):
                    continue
                for part in ("requests", "limits"):
                    resources.get(part, {}).pop(gpu, None)
                resources["claims"] = [*resources.get("claims", []), {"name": self.request}]
                container["resources"] = resources
                claimed = True
            if claimed:
                site.spec["resourceClaims"] = [
                    *site.spec.get("resourceClaims", []),
                    {"name": self.request, "resourceClaimTemplateName": self.template},
                ]


def plan_devices(kind: str, cluster: Cluster, claim: DeviceClaim, gpus: int, base: str) -> DevicePlan:
    """Check ``claim`` against ``cluster`` and the pods' GPU count and plan how it is written.

    Args:
        kind: the construct's kind, for messages.
        cluster: the target.
        claim: the devices each GPU pod claims.
        gpus: the GPUs each GPU pod requests (the claim's count must equal it).
        base: the ResourceClaimTemplate's base name: it is named ``<base>-<hash6>`` from its spec,
            which the API server never lets change (a changed claim is a new template).

    Returns:
        A :class:`DevicePlan`: a ResourceClaimTemplate spec with one ``exactly`` request
        (``allocationMode: ExactCount``) on a cluster that uses DRA, else an empty plan.

    Raises:
        ValueError: a bad claim name or count; a DeviceClass the cluster does not declare; selectors
            on a cluster that does not use DRA (below Kubernetes 1.34, or no device classes declared).
    """
    request = require(DNS1123_LABEL, kind, "claim_devices name", claim.name)
    count = (
        gpus if claim.count is None else require_whole(kind, "claim_devices count", claim.count, minimum=1)
    )
    if count != gpus:
        raise ValueError(
            f"{kind} claim_devices count={claim.count!r}: must equal the GPUs of each GPU pod ({gpus})"
        )
    if not cluster.uses_dra:
        if claim.selective:
            why = (
                f"is Kubernetes {cluster.kubernetes_version}"
                if cluster.kubernetes_minor < DRA_SINCE_MINOR
                else "declares no device_classes"
            )
            raise ValueError(
                f"{kind} claim_devices device_class={claim.device_class!r}: device selectors need Dynamic "
                f"Resource Allocation (Kubernetes 1.{DRA_SINCE_MINOR}+ with declared device_classes); cluster "
                f"{cluster.name!r} {why}, where GPUs are the extended resource {cluster.gpu_resource}"
            )
        return DevicePlan(cluster, request, None, {})
    device_class = cluster.device_class(claim.device_class)
    if device_class is None:
        known = ", ".join(c.name for c in cluster.device_classes)
        raise ValueError(
            f"{kind} claim_devices device_class={claim.device_class!r}: cluster {cluster.name!r} declares "
            f"no such DeviceClass (declared: {known})"
        )
    exactly: dict[str, Any] = {
        "deviceClassName": device_class.name,
        "allocationMode": "ExactCount",
        "count": count,
    }
    expressions = selector_expressions(kind, claim, device_class)
    if expressions:
        exactly["selectors"] = [{"cel": {"expression": e}} for e in expressions]
    spec = {"spec": {"devices": {"requests": [{"name": request, "exactly": exactly}]}}}
    return DevicePlan(cluster, request, f"{base[:56].rstrip('-')}-{content_hash(spec)}", spec)
