"""Target clusters. Each app is synthesised for every cluster it targets."""

from __future__ import annotations

from trainops.cluster import Cluster, Taint

#: The bundled example target: a GPU cluster with NAS file storage (the seed scenarios run on
#: Alibaba Cloud ACK with alicloud-nas), Training Operator v1 and prometheus-operator.
GPU_PROD = Cluster(
    name="gpu-prod",
    kubernetes_version="1.34",
    operators={
        "training-operator": "v1.9.4",
        "prometheus-operator": "v0.93.0",
        "argo-cd": "v3.5.1",
    },
    storage_classes={"default": "alicloud-disk-essd", "shared": "alicloud-nas"},
    gpu_resource="nvidia.com/gpu",
    rdma_resource="rdma/hca",
    gpu_taints=(Taint("nvidia.com/gpu"),),
    gpu_node_selector={"nvidia.com/gpu.present": "true"},
    prometheus_release="kube-prometheus-stack",
)

CLUSTERS: tuple[Cluster, ...] = (GPU_PROD,)
