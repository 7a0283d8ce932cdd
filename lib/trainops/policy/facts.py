"""Cluster facts the policy rules need: from a :class:`~trainops.core.cluster.Cluster` of
``apps/clusters.py``, or from a small YAML facts file for users who only lint hand-written YAML.

A facts file (checked against :data:`FACTS_SCHEMA`, written for editors as
``lib/trainops/schemas/local/policy-facts.json``)::

    gpuResources: [nvidia.com/gpu]
    rdmaResources: [rdma/hca]
    gpuTaints: [{key: nvidia.com/gpu, effect: NoSchedule}]
    gpuNodeSelector: {nvidia.com/gpu.present: "true"}
    gangScheduler: volcano
    kueue: true
    topology: {name: default, levels: [cloud.example.com/topology-block, kubernetes.io/hostname]}
    kueueNamespaces: [ml-training]
    prometheusRelease: kube-prometheus-stack
    storageClasses: [standard, nfs]
    protected: true
    multikueueManager: true
    external:
      - {kind: PersistentVolumeClaim, namespace: ml-training, name: datasets}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from trainops.core.cluster import Cluster, ExternalObject, Taint
from trainops.core.errors import UsageError
from trainops.policy.schema import check_schema
from trainops.yaml.load import read_text

#: The JSON Schema (draft 2020-12) of a facts file; ``lib/trainops/schemas/local/policy-facts.json`` holds
#: the same for editors (a test fails when they differ).
FACTS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://trainops.dev/schemas/policy-facts.json",
    "title": "trainops policy facts",
    "description": "Cluster facts for `trainops policy check --facts FILE` when no apps/clusters.py "
    "declares the target (trainops.policy.facts).",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "gpuResources": {"type": "array", "items": {"type": "string"}},
        "rdmaResources": {"type": "array", "items": {"type": "string"}},
        "gpuTaints": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["key"],
                "properties": {
                    "key": {"type": "string"},
                    "value": {"type": "string"},
                    "effect": {"enum": ["NoSchedule", "PreferNoSchedule", "NoExecute"]},
                },
            },
        },
        "gpuNodeSelector": {"type": "object", "additionalProperties": {"type": "string"}},
        "gangScheduler": {"type": "string"},
        "kueue": {"type": "boolean"},
        "topology": {
            "type": "object",
            "additionalProperties": False,
            "required": ["levels"],
            "properties": {
                "name": {"type": "string"},
                "levels": {"type": "array", "minItems": 1, "items": {"type": "string"}},
            },
        },
        "kueueNamespaces": {"type": "array", "items": {"type": "string"}},
        "prometheusRelease": {"type": "string"},
        "storageClasses": {"type": "array", "items": {"type": "string"}},
        "protected": {"type": "boolean"},
        "multikueueManager": {"type": "boolean"},
        "external": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["kind", "name"],
                "properties": {
                    "kind": {"type": "string"},
                    "name": {"type": "string"},
                    "namespace": {"type": "string"},
                },
            },
        },
    },
}

#: GPU extended resources assumed when no cluster says otherwise (NVIDIA and AMD device plugins).
DEFAULT_GPU_RESOURCES: tuple[str, ...] = ("nvidia.com/gpu", "amd.com/gpu")


@dataclass(frozen=True)
class Facts:
    """What policy rules know about the target.

    Args:
        cluster: the cluster name, when the facts come from one.
        gpu_resources: extended resource names that count as GPUs. Default: NVIDIA and AMD.
        rdma_resources: extended resource names of RDMA devices (their pods may add IPC_LOCK).
            Default: ``rdma/hca``.
        gpu_taints: taints GPU pods must tolerate. Default: none known.
        gpu_node_selector: labels selecting GPU nodes. Default: none known.
        gang_scheduler: the gang scheduler the cluster runs, or ``None``.
        kueue: the cluster runs Kueue (``True``), does not (``False``), or it is not known (``None``:
            rules about gang admission only check what a job asks for itself).
        topology_levels: node labels of the cluster's Kueue Topology levels, broadest first; empty
            when the cluster declares no topology.
        topology_name: the Kueue Topology's name, or ``None``.
        kueue_namespaces: namespaces Kueue manages.
        prometheus_release: the ``release`` label Prometheus selects monitors by, or ``None``.
        storage_classes: StorageClass names that exist; empty means unknown (not checked).
        protected: a production cluster.
        external: objects that exist without being rendered.
        multikueue_manager: the cluster is a MultiKueue manager (``Cluster.multikueue``): its queued
            jobs run on workers.
    """

    cluster: str | None = None
    gpu_resources: tuple[str, ...] = DEFAULT_GPU_RESOURCES
    rdma_resources: tuple[str, ...] = ("rdma/hca",)
    gpu_taints: tuple[Taint, ...] = ()
    gpu_node_selector: Mapping[str, str] = field(default_factory=dict)
    gang_scheduler: str | None = None
    kueue: bool | None = None
    topology_levels: tuple[str, ...] = ()
    topology_name: str | None = None
    kueue_namespaces: tuple[str, ...] = ()
    prometheus_release: str | None = None
    storage_classes: tuple[str, ...] = ()
    protected: bool = False
    external: tuple[ExternalObject, ...] = ()
    multikueue_manager: bool = False

    @classmethod
    def of_cluster(cls, cluster: Cluster) -> Facts:
        """The facts a declared cluster gives (its storage classes and external objects included)."""
        return cls(
            cluster=cluster.name,
            gpu_resources=(cluster.gpu_resource,),
            rdma_resources=(cluster.rdma_resource,) if cluster.rdma_resource else (),
            gpu_taints=cluster.gpu_taints,
            gpu_node_selector=dict(cluster.gpu_node_selector),
            gang_scheduler=cluster.gang_scheduler,
            kueue=cluster.has_operator("kueue"),
            topology_levels=cluster.topology.node_labels if cluster.topology else (),
            topology_name=cluster.topology.name if cluster.topology else None,
            kueue_namespaces=cluster.kueue_namespaces,
            prometheus_release=cluster.prometheus_labels.get("release"),
            storage_classes=tuple(sorted(set(cluster.storage_classes.values()))),
            protected=cluster.protected,
            external=cluster.external,
            multikueue_manager=cluster.multikueue is not None,
        )

    def has_external(self, kind: str, name: str, namespace: str | None = None) -> bool:
        """Whether an external object of ``kind`` called ``name`` (in ``namespace``) is declared."""
        return any(
            o.kind == kind and o.name == name and (o.namespace is None or o.namespace == namespace)
            for o in self.external
        )


def load_facts(path: str) -> Facts:
    """Read a facts file (see the module docstring).

    Raises:
        UsageError: the file cannot be read, is not YAML, or does not match its schema.
    """
    try:
        data = yaml.safe_load(read_text(path))
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: invalid YAML: {exc}") from None
    data = {} if data is None else data
    check_schema(data, FACTS_SCHEMA, path)
    return Facts(
        gpu_resources=tuple(data.get("gpuResources", DEFAULT_GPU_RESOURCES)),
        rdma_resources=tuple(data.get("rdmaResources", ("rdma/hca",))),
        gpu_taints=tuple(
            Taint(t["key"], t.get("effect", "NoSchedule"), t.get("value")) for t in data.get("gpuTaints", ())
        ),
        gpu_node_selector=dict(data.get("gpuNodeSelector", {})),
        gang_scheduler=data.get("gangScheduler"),
        kueue=data.get("kueue"),
        topology_levels=tuple(data.get("topology", {}).get("levels", ())),
        topology_name=data.get("topology", {}).get("name", "default") if "topology" in data else None,
        kueue_namespaces=tuple(data.get("kueueNamespaces", ())),
        prometheus_release=data.get("prometheusRelease"),
        storage_classes=tuple(data.get("storageClasses", ())),
        protected=bool(data.get("protected", False)),
        multikueue_manager=bool(data.get("multikueueManager", False)),
        external=tuple(
            ExternalObject(o["kind"], o["name"], o.get("namespace")) for o in data.get("external", ())
        ),
    )
