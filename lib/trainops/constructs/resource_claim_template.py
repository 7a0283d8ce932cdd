"""``ResourceClaimTemplate``: the devices each pod of a job claims through Dynamic Resource Allocation
(``resource.k8s.io/v1``), namespaced."""

from __future__ import annotations

import dataclasses
from typing import Any

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct
from trainops.constructs._core.devices import RESOURCE_API, DeviceClaim, DevicePlan, gpu_counts, plan_devices
from trainops.core.cluster import Cluster
from trainops.core.naming import DNS1123_SUBDOMAIN, require

_KIND = "ResourceClaimTemplate"


class ResourceClaimTemplate(ObjectConstruct):
    """A ``resource.k8s.io/v1`` ResourceClaimTemplate in the Chart's namespace: one device request
    (``exactly``: a DeviceClass, ``allocationMode: ExactCount``, a count and CEL selectors) from
    which Kubernetes creates a ResourceClaim for every pod that names it in ``spec.resourceClaims``.

    The API server never lets a template's spec change, so it is named ``<name>-<hash6>`` from its
    spec: a changed claim is a new template. Sync wave ``-1``: the template exists before the pods
    that name it. Job constructs create one with ``claim_devices()``; use this construct directly
    for pods written by hand.

    Args:
        scope: the parent construct (a Chart with a namespace).
        id: construct id.
        cluster: the target; must use DRA (``Cluster.uses_dra``: Kubernetes 1.34+ with
            ``device_classes``).
        name: base name, a DNS-1123 subdomain of at most 56 characters.
        claim: the devices (a DeviceClass the cluster declares, count, selectors); ``count`` is
            required here (no pod to take it from).

    Raises:
        ValueError: the cluster does not use DRA; a bad name, count or DeviceClass.

    Source: kubernetes/kubernetes v1.36 ``pkg/apis/resource/types.go`` (``ResourceClaimTemplate``),
    https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/
    """

    KIND = _KIND
    API_VERSION = RESOURCE_API

    def __init__(self, scope: Construct, id: str, *, cluster: Cluster, name: str, claim: DeviceClaim) -> None:
        super().__init__(scope, id)
        base = require(DNS1123_SUBDOMAIN, _KIND, "name", name, max_length=56)
        if not cluster.uses_dra:
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the cluster does not use Dynamic Resource Allocation "
                "(Kubernetes 1.34+ with device_classes declared)"
            )
        if claim.count is None:
            raise ValueError(f"{_KIND} claim.count=None: give the number of devices each pod claims")
        self._plan = plan_devices(_KIND, cluster, claim, claim.count, base)
        assert self._plan.template is not None  # a DRA cluster always gets a template
        self._name = self._plan.template
        self.emit_object({"spec": self._plan.spec}, annotations=argocd_annotations(wave=-1))

    @property
    def request(self) -> str:
        """The name of the claim's one request (and of the pods' claim)."""
        return self._plan.request


def claim_job_devices(
    job: Construct, kind: str, cluster: Cluster, base_name: str, claim: DeviceClaim, obj: dict[str, Any]
) -> DevicePlan:
    """What a job construct's ``claim_devices()`` does: check that every GPU pod of ``obj`` (the
    job's object as it stands) requests the same GPU count, plan the claim for ``cluster``
    (:func:`~trainops.constructs._core.devices.plan_devices`) and, where the cluster uses DRA, add a
    ResourceClaimTemplate ``<base_name>-<claim name>-<hash6>`` as a child of ``job``.

    Args:
        job: the job construct. kind: its kind, for messages. cluster: the target.
        base_name: the job's base name. claim: the devices. obj: the job's object (its pod templates).

    Returns:
        The plan, which the job applies to its object (:meth:`DevicePlan.apply`).

    Raises:
        ValueError: the job requests no GPUs, or GPU pods with different counts; a count other than
            the pods' GPUs; an undeclared DeviceClass; selectors on a cluster that does not use DRA.
    """
    counts = gpu_counts(cluster, obj)
    if len(counts) != 1:
        what = "requests no GPUs" if not counts else f"has GPU pods with {sorted(counts)} GPUs"
        raise ValueError(f"{kind} claim_devices: the job {what}")
    gpus = counts.pop()
    base = f"{base_name}-{claim.name}"
    plan = plan_devices(kind, cluster, claim, gpus, base)
    if plan.template is not None:
        template = ResourceClaimTemplate(
            job, "Claim", cluster=cluster, name=base, claim=dataclasses.replace(claim, count=gpus)
        )
        assert template.name == plan.template
    return plan
