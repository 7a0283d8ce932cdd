"""Target clusters. Each app is synthesised for every cluster it targets."""

from __future__ import annotations

from dataclasses import replace

from trainops.cluster import Cluster, ClusterTopology, DeviceClass, ExternalObject, MultiKueueManager, Taint

#: The git repository holding generated/ (Argo CD's source for every cluster).
REPO_URL = "https://git.example.com/ml/platform.git"

#: The ``release`` label the clusters' Prometheus (kube-prometheus-stack) selects monitors by.
PROMETHEUS_RELEASE = "kube-prometheus-stack"
#: Objects every cluster has that trainops does not render: the dataset credentials the platform
#: team provisions out of band (never in git).
EXTERNAL = (ExternalObject("Secret", "dataset-s3-readonly", "ml-training"),)

#: The bundled example target: a GPU cluster with NAS file storage (the seed scenarios run on
#: Alibaba Cloud ACK with alicloud-nas), Training Operator v1 and prometheus-operator; it still runs
#: Seldon Core v1.17.1 (the last Apache-2.0 release) for the legacy ``seldon-legacy`` app.
#: Protected: Argo CD syncs it from the release tag only (move the tag to promote). Volcano gang-schedules
#: its multi-node jobs (the Training Operator runs with ``--gang-scheduler-name=volcano``). Every
#: operator listed is also installed by Argo CD from its upstream release (generated/<cluster>/argocd/,
#: README "Installing the platform"), the NVIDIA GPU operator included.
GPU_PROD = Cluster(
    name="gpu-prod",
    kubernetes_version="1.34",
    operators={
        "training-operator": "v1.9.4",
        "katib": "v0.19.0",
        "prometheus-operator": "v0.93.0",
        "argo-cd": "v3.5.1",
        "seldon-core": "v1.17.1",
        "argo-rollouts": "v1.9.1",
        "gpu-operator": "v26.3.3",
    },
    storage_classes={"default": "alicloud-disk-essd", "shared": "alicloud-nas"},
    gpu_resource="nvidia.com/gpu",
    rdma_resource="rdma/hca",
    gpu_taints=(Taint("nvidia.com/gpu"),),
    gpu_node_selector={"nvidia.com/gpu.present": "true"},
    gang_scheduler="volcano",
    prometheus_labels={"release": PROMETHEUS_RELEASE},
    external=EXTERNAL,
    argocd_server="https://gpu-prod.k8s.example.com:6443",
    cluster_class="gpu",
    protected=True,
    target_revision="v0.1.0",
    repo_url=REPO_URL,
)

#: A staging cluster of the same class as gpu-prod (same operators, storage, GPUs): one
#: ApplicationSet per team and app class covers both; it follows the default branch (HEAD).
GPU_STAGING = replace(
    GPU_PROD,
    name="gpu-staging",
    argocd_server="https://gpu-staging.k8s.example.com:6443",
    protected=False,
    target_revision="HEAD",
)

#: The MultiKueue workers of ``gpu-next`` (below): GPU clusters with the same operators, to which
#: Kueue on gpu-next dispatches the queued jobs.
WORKERS = ("gpu-west", "gpu-east")
#: The NVIDIA DRA driver's DeviceClass (the driver's Helm chart creates it; the driver itself is
#: delivered as a platform component, ``nvidia-dra-driver-gpu`` in gpu-next's operators).
NVIDIA_GPU = DeviceClass(name="gpu.nvidia.com", driver="gpu.nvidia.com")

#: The next-generation GPU cluster: Kubeflow Trainer v2 instead of the Training Operator v1, the
#: MPI operator v0.8 (kubeflow.org/v2beta1 MPIJob), Kueue for team quotas, KServe v0.20 and the
#: LeaderWorkerSet controller v0.10 (multi-node LLM servers). The same
#: ``TrainingJob`` becomes a TrainJob here and a PyTorchJob on ``gpu-prod``. Its GPU nodes sit in
#: InfiniBand blocks of racks (node labels from the cloud's topology discovery): Kueue places multi-node
#: jobs by the ``gpu-fabric`` Topology (block, rack, host) and admits them all or nothing; JobSet
#: v0.12.0 (installed with Trainer v2) runs the JobSets. It is the MultiKueue manager of ``gpu-west``
#: and ``gpu-east`` (their kubeconfig Secrets live in kueue-system, created out of band) and claims
#: GPUs through Dynamic Resource Allocation.
GPU_FABRIC = ClusterTopology(
    {
        "block": "cloud.example.com/topology-block",
        "rack": "cloud.example.com/topology-rack",
        "host": "kubernetes.io/hostname",
    },
    name="gpu-fabric",
)
GPU_NEXT = Cluster(
    name="gpu-next",
    kubernetes_version="1.34",
    operators={
        "trainer": "v2.3.0",
        "jobset": "v0.12.0",
        "mpi-operator": "v0.8.0",
        "kueue": "v0.19.2",
        "katib": "v0.19.0",
        "prometheus-operator": "v0.93.0",
        "argo-cd": "v3.5.1",
        "kserve": "v0.20.0",
        "cert-manager": "v1.17.0",
        "gpu-operator": "v26.3.3",
        "nvidia-dra-driver-gpu": "v25.12.0",
        "lws": "v0.10.0",
    },
    storage_classes={"default": "gp3", "shared": "efs-sc"},
    gpu_resource="nvidia.com/gpu",
    rdma_resource="rdma/ib",
    gpu_taints=(Taint("nvidia.com/gpu"),),
    gpu_node_selector={"nvidia.com/gpu.present": "true"},
    argocd_server="https://gpu-next.k8s.example.com:6443",
    topology=GPU_FABRIC,
    repo_url=REPO_URL,
    prometheus_labels={"release": PROMETHEUS_RELEASE},
    external=(
        *EXTERNAL,
        *(ExternalObject("Secret", f"{worker}-kubeconfig", "kueue-system") for worker in WORKERS),
    ),
    multikueue=MultiKueueManager(workers=WORKERS),
    device_classes=(NVIDIA_GPU,),
)

#: The MultiKueue workers: gpu-next's operators and DeviceClasses, their own Argo CD destination.
#: Every app of gpu-next is rendered for them without its jobs (MultiKueue creates those).
GPU_WORKERS = tuple(
    replace(
        GPU_NEXT,
        name=worker,
        argocd_server=f"https://{worker}.k8s.example.com:6443",
        external=EXTERNAL,
        multikueue=None,
    )
    for worker in WORKERS
)

CLUSTERS: tuple[Cluster, ...] = (GPU_PROD, GPU_STAGING, GPU_NEXT, *GPU_WORKERS)
