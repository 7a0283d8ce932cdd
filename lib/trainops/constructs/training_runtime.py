"""``TrainingRuntime``: a Kubeflow Trainer v2 (Cluster)TrainingRuntime, the blueprint TrainJobs run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.jobset import Dependency, JobTemplate, jobset_spec
from trainops.constructs._core.pod import (
    container_security_context,
    gpu_placement,
    guaranteed_resources,
    pod_security_context,
    scratch_volumes,
)
from trainops.constructs._core.props import (
    require_image,
    require_quantity,
    require_strings,
    require_whole,
    shm_size,
)
from trainops.constructs._core.topology import EXCLUSIVE_TOPOLOGY, exclusive_label
from trainops.constructs.train_job import NODE, OPERATOR
from trainops.core.cluster import Cluster

_KIND = "TrainingRuntime"
Framework = Literal["torch", "mpi", "deepspeed", "jax", "xgboost"]
Gang = Literal["coscheduling", "volcano"]
#: The label Trainer selects the trainer step by (``constants.LabelTrainJobAncestor``).
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
#: The label the Python SDK lists runtimes by (``constants.RuntimeFrameworkLabel``).
FRAMEWORK_LABEL = "trainer.kubeflow.org/framework"
#: Where the trainer mounts the MPI SSH keys; the upstream MPI runtimes run as ``mpiuser``.
SSH_AUTH_MOUNT_PATH = "/home/mpiuser/.ssh"


class TrainingRuntime(ObjectConstruct):
    """A ``ClusterTrainingRuntime`` (default) or namespaced ``TrainingRuntime``: the ML policy and
    JobSet template a TrainJob's ``runtimeRef`` names, with trainops's secure pod defaults.

    ``torch``, ``jax`` and ``xgboost`` runtimes have one replicated job ``node`` (the trainer step);
    ``mpi`` and ``deepspeed`` runtimes add a ``launcher`` that starts once the nodes are ready, with
    ``publishNotReadyAddresses`` so ranks resolve each other, and succeed when the launcher does (the
    shape of Trainer's ``deepspeed-distributed`` runtime; ``deepspeed`` also runs the launcher as a
    node, ``runLauncherAsNode``). The JobSet template is built and checked as the ``JobSet``
    construct's (:mod:`trainops.constructs._core.jobset`). The presets of
    :mod:`trainops.constructs.runtime_presets` write Trainer's own runtimes this way. Resources here are defaults; a TrainJob's
    ``resourcesPerNode`` overrides them. ``gang`` adds a ``podGroupPolicy`` (coscheduling or
    Volcano), so no node starts until all can. Long-lived, synced before workloads (wave ``-1``).

    Args:
        scope: the parent construct (a Chart).
        id: construct id.
        cluster: target; must list ``trainer`` in ``operators``.
        name: runtime name (what ``runtimeRef.name`` says), a DNS-1123 label.
        image: default training image, with a tag or digest.
        framework: ``torch`` | ``mpi`` | ``deepspeed`` | ``jax`` | ``xgboost``. Default: ``torch``.
        command: default container command. Default: the image's.
        num_nodes: default node count. Default: 1.
        gpus_per_node: default whole GPUs per node. Default: 0.
        cpu: default cpu cores per node. Default: ``"2"``.
        memory: default memory bytes per node. Default: ``"8Gi"``.
        num_proc_per_node: MPI slots per node (``mpi``/``deepspeed`` only). Default: the GPU count, else 1.
        cluster_scoped: a ClusterTrainingRuntime (every namespace) rather than a TrainingRuntime.
            Default: ``True``.
        gang: ``coscheduling`` | ``volcano`` gang scheduling, or ``None``. Default: ``None``.
        schedule_timeout_seconds: coscheduling timeout in seconds. Default: 120.
        exclusive_topology: one node Job per domain of this topology level (a level of
            ``cluster.topology`` or a node label: JobSet's ``alpha.jobset.sigs.k8s.io/exclusive-topology``
            on the template), or ``None``. Default: ``None``.

    Raises:
        ValueError: a bad prop (quoting prop and value), or a cluster without Trainer v2.

    Source: https://github.com/kubeflow/trainer/blob/v2.3.0/pkg/apis/trainer/v1alpha1/trainingruntime_types.go,
    ``manifests/base/runtimes/torch_distributed.yaml`` and ``deepspeed_distributed.yaml``
    """

    API_VERSION = "trainer.kubeflow.org/v1alpha1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        image: str,
        framework: Framework = "torch",
        command: Sequence[str] | None = None,
        num_nodes: int = 1,
        gpus_per_node: int = 0,
        cpu: str = "2",
        memory: str = "8Gi",
        num_proc_per_node: int | None = None,
        cluster_scoped: bool = True,
        gang: Gang | None = None,
        schedule_timeout_seconds: int = 120,
        exclusive_topology: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        if not cluster.has_operator(OPERATOR):
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the cluster does not list {OPERATOR} in operators"
            )
        if framework not in ("torch", "mpi", "deepspeed", "jax", "xgboost"):
            raise ValueError(
                f"{_KIND} framework={framework!r}: must be torch, mpi, deepspeed, jax or xgboost"
            )
        if gang not in (None, "coscheduling", "volcano"):
            raise ValueError(f"{_KIND} gang={gang!r}: must be coscheduling, volcano or None")
        self._kind = "ClusterTrainingRuntime" if cluster_scoped else "TrainingRuntime"
        self._name = require_name(_KIND, "name", name)
        self._framework = framework
        gpus = require_whole(_KIND, "gpus_per_node", gpus_per_node, minimum=0)
        nodes = require_whole(_KIND, "num_nodes", num_nodes, minimum=1)
        memory_q = require_quantity(_KIND, "memory", memory, whole_bytes=True)
        extended = {cluster.gpu_resource: gpus} if gpus else {}
        volumes, mounts = scratch_volumes(
            shm_size=shm_size(_KIND, None, memory_q, needed=gpus > 1 or nodes > 1), tmp=True
        )
        container: dict[str, Any] = {
            "name": NODE,
            "image": require_image(_KIND, "image", image),
            "resources": guaranteed_resources(require_quantity(_KIND, "cpu", cpu), memory_q, extended),
            "securityContext": container_security_context(),
            "volumeMounts": mounts,
        }
        commands = require_strings(_KIND, "command", command)
        if commands is not None:
            container["command"] = list(commands)
        pod: dict[str, Any] = {
            "securityContext": pod_security_context(),
            "containers": [container],
            "volumes": volumes,
            **(gpu_placement(cluster) if gpus else {}),
        }
        trainer_step = {
            "metadata": {"labels": {ANCESTOR_LABEL: "trainer"}},
            "spec": {"template": {"spec": pod}},
        }
        ml_policy: dict[str, Any] = {"numNodes": nodes}
        jobset: dict[str, Any]
        if framework in ("mpi", "deepspeed"):
            slots = require_whole(_KIND, "num_proc_per_node", num_proc_per_node or gpus or 1, minimum=1)
            ml_policy["mpi"] = {
                "numProcPerNode": slots,
                "mpiImplementation": "OpenMPI",
                "sshAuthMountPath": SSH_AUTH_MOUNT_PATH,
                "runLauncherAsNode": framework == "deepspeed",
            }
            node_pod = {**pod, "containers": [{**container, "command": ["/usr/sbin/sshd"], "args": ["-De"]}]}
            jobset = jobset_spec(
                _KIND,
                [
                    JobTemplate(NODE, None, 1, {"spec": {"template": {"spec": node_pod}}}),
                    JobTemplate("launcher", None, 1, trainer_step, (Dependency(NODE, "Ready"),)),
                ],
                success=("All", ("launcher",)),
                network={"publishNotReadyAddresses": True},
            )
        else:
            if num_proc_per_node is not None:
                raise ValueError(
                    f"{_KIND} num_proc_per_node={num_proc_per_node!r}: only for framework='mpi' or 'deepspeed'"
                )
            ml_policy[framework] = {}
            jobset = jobset_spec(_KIND, [JobTemplate(NODE, None, 1, trainer_step)])
        template: dict[str, Any] = {"spec": jobset}
        if exclusive_topology is not None:
            template = {
                "metadata": {
                    "annotations": {EXCLUSIVE_TOPOLOGY: exclusive_label(_KIND, cluster, exclusive_topology)}
                },
                **template,
            }
        spec: dict[str, Any] = {"mlPolicy": ml_policy, "template": template}
        if gang == "coscheduling":
            timeout = require_whole(_KIND, "schedule_timeout_seconds", schedule_timeout_seconds, minimum=1)
            spec["podGroupPolicy"] = {"coscheduling": {"scheduleTimeoutSeconds": timeout}}
        elif gang == "volcano":
            spec["podGroupPolicy"] = {"volcano": {}}
        self.emit_object(
            {"spec": spec}, labels={FRAMEWORK_LABEL: framework}, annotations=argocd_annotations(wave=-1)
        )

    @property
    def kind(self) -> str:
        """``ClusterTrainingRuntime`` or ``TrainingRuntime``."""
        return self._kind

    @property
    def framework(self) -> str:
        """The ML policy: ``torch``, ``mpi``, ``jax`` or ``xgboost``."""
        return self._framework
