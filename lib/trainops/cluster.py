"""The public home of the target-cluster types users declare in ``apps/clusters.py``:
``from trainops.cluster import Cluster, ClusterTopology, DeviceClass, ExternalObject, MultiKueueManager,
PlatformSettings, Taint``. Defined in :mod:`trainops.core.cluster`, the cluster facts every layer reads."""

from __future__ import annotations

from trainops.core.cluster import (
    PINNED_REVISION,
    Cluster,
    ClusterTopology,
    DeviceClass,
    ExternalObject,
    MultiKueueManager,
    OperatorName,
    PlatformSettings,
    Taint,
    TopologyLevel,
)

__all__ = [
    "PINNED_REVISION",
    "Cluster",
    "ClusterTopology",
    "DeviceClass",
    "ExternalObject",
    "MultiKueueManager",
    "OperatorName",
    "PlatformSettings",
    "Taint",
    "TopologyLevel",
]
