"""``TrainJob``: a Kubeflow Trainer v2 training run (trainer.kubeflow.org/v1alpha1)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, run_once_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name, run_once_name
from trainops.constructs._core.emission import Emitted, replace_op
from trainops.constructs._core.kueue import multikueue_managed_by, queue_labels
from trainops.constructs._core.pod import (
    SHM_PATH,
    TMP_PATH,
    Mount,
    container_security_context,
    env_entries,
    gpu_placement,
    guaranteed_resources,
    pod_security_context,
    resolve_mount,
    scratch_volumes,
)
from trainops.constructs._core.props import (
    require_env,
    require_image,
    require_labels,
    require_quantity,
    require_strings,
    require_whole,
)
from trainops.constructs._core.props import shm_size as shm_size_for
from trainops.constructs._core.protocols import ClaimSource
from trainops.constructs._core.topology import TopologyPlacement, podset_annotations
from trainops.core.cluster import Cluster
from trainops.core.kinds import KIND_TABLE
from trainops.core.naming import DNS1035_LABEL

_KIND = "TrainJob"
#: The operator a cluster must run (a key of ``Cluster.operators``, the catalog's operator name).
OPERATOR = KIND_TABLE[("trainer.kubeflow.org", _KIND)].operators[0]
#: The replicated job and container the torch runtimes train in (``constants.Node``).
NODE = "node"
#: The ``manager`` of the runtime patch trainops writes (``runtimePatches`` is a map keyed by it).
PATCH_MANAGER = "trainops.dev/trainops"
#: Longest base name: ``<name>-<hash6>`` plus the JobSet's ``-node-0-<i>`` pod names stay within 63.
MAX_BASE_NAME = 40

RuntimeKind = Literal["ClusterTrainingRuntime", "TrainingRuntime"]
#: Storage the Trainer v2 initializers read (``pkg/initializers``: HuggingFace, S3, GCS).
_INITIALIZER_URI = re.compile(r"^(hf|s3|gs)://\S+$")


class TrainJob(ObjectConstruct):
    """A Kubeflow Trainer v2 TrainJob that runs a training runtime (default: the
    ``torch-distributed`` ClusterTrainingRuntime) on ``num_nodes`` nodes.

    Like the v1 jobs it is run-once: named ``<name>-<hash6>`` from its spec, so a changed spec is a
    new run. The trainer overrides (image, command, args, env, ``numNodes``, ``resourcesPerNode``
    with requests equal to limits, ``numProcPerNode``) go in ``spec.trainer``; what the pod spec
    needs beyond that (GPU node selector and tolerations, the secure pod and container
    ``securityContext`` trainops gives every pod, ``/dev/shm`` and ``/tmp`` scratch volumes, mounted
    claims) goes in one ``runtimePatches`` entry with manager ``trainops.dev/trainops`` for the
    ``node`` replicated job, the only place Trainer v2.3 accepts them. ``queue`` sets the
    ``kueue.x-k8s.io/queue-name`` label; Kueue then manages ``suspend`` (trainops never sets it).

    Args:
        scope: the parent construct (a Chart with a namespace).
        id: construct id.
        cluster: target; must list ``trainer`` in ``operators``.
        name: base name, a DNS-1035 label of at most 40 characters.
        image: training image with a tag or digest; ``None`` keeps the runtime's. Default: ``None``.
        command: container command; ``None`` keeps the runtime's. Default: ``None``.
        args: container args. Default: none.
        runtime: the runtime's name. Default: ``torch-distributed``.
        runtime_kind: ``ClusterTrainingRuntime`` | ``TrainingRuntime``. Default: ``ClusterTrainingRuntime``.
        num_nodes: training nodes (pods). Default: 1.
        gpus_per_node: whole GPUs per node, as ``cluster.gpu_resource``. Default: 0.
        cpu: cpu cores per node (quantity string). Default: ``"2"``.
        memory: memory bytes per node (quantity string). Default: ``"8Gi"``.
        num_proc_per_node: processes per node; default: the GPU count when GPUs are requested,
            else unset (the runtime's ``auto``).
        env: environment variables, in order; with GPUs ``NCCL_DEBUG=WARN`` is added unless given.
            Default: none.
        shm_size: ``/dev/shm`` memory emptyDir size (bytes); default half of ``memory`` when the job
            has several GPUs or nodes, else none.
        active_deadline_seconds: wall-clock limit in seconds, or ``None``. Default: ``None``.
        queue: Kueue LocalQueue name (the ``kueue.x-k8s.io/queue-name`` label), or ``None``. Default: ``None``.
            On a MultiKueue manager a queued job gets ``spec.managedBy: kueue.x-k8s.io/multikueue``.
        priority: Kueue WorkloadPriorityClass name (needs ``queue``), or ``None``. Default: ``None``.
        placement: where the nodes sit in the cluster topology (Kueue Topology Aware Scheduling;
            needs ``queue``): its pod-set annotations go on the ``node`` pod template through the
            runtime patch. Default: ``None``.
        labels: extra labels on the TrainJob. Default: none.
        dataset_uri: a dataset the runtime's dataset initializer downloads before training
            (``hf://...``, ``s3://...``), or ``None``. Default: ``None``.
        model_uri: a pre-trained model the model initializer downloads, or ``None``. Default: ``None``.
        initializer_secret: a Secret (by name) with the initializers' credentials, e.g. an
            ``HF_TOKEN``; never values. Default: ``None``.

    Raises:
        ValueError: a bad prop (quoting prop and value), or a cluster without Trainer v2.

    Source: https://github.com/kubeflow/trainer/blob/v2.3.0/pkg/apis/trainer/v1alpha1/trainjob_types.go,
    https://www.kubeflow.org/docs/components/trainer/
    """

    KIND = "TrainJob"
    API_VERSION = "trainer.kubeflow.org/v1alpha1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        image: str | None = None,
        command: Sequence[str] | None = None,
        args: Sequence[str] | None = None,
        runtime: str = "torch-distributed",
        runtime_kind: RuntimeKind = "ClusterTrainingRuntime",
        num_nodes: int = 1,
        gpus_per_node: int = 0,
        cpu: str = "2",
        memory: str = "8Gi",
        num_proc_per_node: int | None = None,
        env: Mapping[str, str] | None = None,
        shm_size: str | None = None,
        active_deadline_seconds: int | None = None,
        queue: str | None = None,
        priority: str | None = None,
        placement: TopologyPlacement | None = None,
        labels: Mapping[str, str] | None = None,
        dataset_uri: str | None = None,
        model_uri: str | None = None,
        initializer_secret: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        if not cluster.has_operator(OPERATOR):
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the cluster does not list {OPERATOR} in operators "
                "(Kubeflow Trainer v2 serves trainer.kubeflow.org/v1alpha1 TrainJob)"
            )
        self._cluster = cluster
        self._base_name = require_name(_KIND, "name", name, max_length=MAX_BASE_NAME, syntax=DNS1035_LABEL)
        self._image = None if image is None else require_image(_KIND, "image", image)
        self._command = require_strings(_KIND, "command", command)
        self._args = require_strings(_KIND, "args", args)
        self._runtime = require_name(_KIND, "runtime", runtime)
        if runtime_kind not in ("ClusterTrainingRuntime", "TrainingRuntime"):
            raise ValueError(
                f"{_KIND} runtime_kind={runtime_kind!r}: must be ClusterTrainingRuntime or TrainingRuntime"
            )
        self._runtime_kind = runtime_kind
        self._nodes = require_whole(_KIND, "num_nodes", num_nodes, minimum=1)
        self._gpus = require_whole(_KIND, "gpus_per_node", gpus_per_node, minimum=0)
        self._cpu = require_quantity(_KIND, "cpu", cpu)
        self._memory = require_quantity(_KIND, "memory", memory, whole_bytes=True)
        if num_proc_per_node is None:
            self._nproc = self._gpus or None
        else:
            self._nproc = require_whole(_KIND, "num_proc_per_node", num_proc_per_node, minimum=1)
            if self._gpus and self._nproc != self._gpus:
                raise ValueError(
                    f"{_KIND} num_proc_per_node={num_proc_per_node!r}: must equal gpus_per_node={self._gpus} "
                    "(one process per GPU)"
                )
        self._env = require_env(_KIND, "env", env or {})
        self._shm = shm_size_for(_KIND, shm_size, self._memory, needed=self._gpus > 1 or self._nodes > 1)
        self._deadline = (
            None
            if active_deadline_seconds is None
            else require_whole(_KIND, "active_deadline_seconds", active_deadline_seconds, minimum=1)
        )
        self._labels = require_labels(_KIND, "labels", labels or {})
        queued = queue_labels(_KIND, cluster, queue, priority)
        self._labels.update(queued)
        self._placement = (
            {}
            if placement is None
            else podset_annotations(_KIND, cluster, placement, {NODE: self._nodes}, queued=bool(queued))[NODE]
        )
        self._initializer: dict[str, Any] = {}
        secret = (
            None
            if initializer_secret is None
            else require_name(_KIND, "initializer_secret", initializer_secret)
        )
        for prop, key, uri in (("dataset_uri", "dataset", dataset_uri), ("model_uri", "model", model_uri)):
            if uri is None:
                continue
            if not isinstance(uri, str) or not _INITIALIZER_URI.match(uri):
                raise ValueError(f"{_KIND} {prop}={uri!r}: must be an hf://, s3:// or gs:// URI")
            entry: dict[str, Any] = {"storageUri": uri}
            if secret is not None:
                entry["secretRef"] = {"name": secret}
            self._initializer[key] = entry
        if secret is not None and not self._initializer:
            raise ValueError(f"{_KIND} initializer_secret={secret!r}: needs dataset_uri or model_uri")
        self._mounts: list[Mount] = []
        spec = self._spec()
        self._name = run_once_name(self._base_name, spec)
        metadata: dict[str, Any] = {
            "name": self._name,
            "annotations": run_once_annotations(options=[SKIP_DRY_RUN_OPTIONS]),
        }
        if self._labels:
            metadata["labels"] = dict(self._labels)
        self._api_object: Emitted = emit(
            self, {"apiVersion": self.api_version, "kind": self.kind, "metadata": metadata, "spec": spec}
        )

    @property
    def num_nodes(self) -> int:
        """Training nodes (pods)."""
        return self._nodes

    @property
    def runtime(self) -> str:
        """The runtime's name."""
        return self._runtime

    @property
    def mounts(self) -> tuple[Mount, ...]:
        """The volumes added with ``mount()``, in order."""
        return tuple(self._mounts)

    def mount(self, volume: ClaimSource | str, path: str, *, read_only: bool = False) -> None:
        """Mount a PersistentVolumeClaim at ``path`` in the ``node`` container of every node.

        The name changes with the spec (a different mount is a different run).

        Raises:
            ValueError: a bad claim name or path, a path already mounted, or an access mode the
                nodes cannot share.
        """
        reserved = [TMP_PATH] + ([SHM_PATH] if self._shm is not None else [])
        mount = resolve_mount(
            _KIND,
            "mount",
            volume,
            path,
            read_only=read_only,
            pods=self._nodes,
            existing=self._mounts,
            reserved_paths=reserved,
        )
        if any(m.claim_name == mount.claim_name for m in self._mounts):
            raise ValueError(f"{_KIND} mount volume={mount.claim_name!r}: already mounted")
        self._mounts.append(mount)
        spec = self._spec()
        self._name = run_once_name(self._base_name, spec)
        self._api_object.patch(replace_op("/metadata/name", self._name), replace_op("/spec", spec))

    def _trainer(self) -> dict[str, Any]:
        extended = {self._cluster.gpu_resource: self._gpus} if self._gpus else {}
        trainer: dict[str, Any] = {
            "numNodes": self._nodes,
            "resourcesPerNode": guaranteed_resources(self._cpu, self._memory, extended),
        }
        if self._image is not None:
            trainer["image"] = self._image
        if self._command is not None:
            trainer["command"] = list(self._command)
        if self._args is not None:
            trainer["args"] = list(self._args)
        env = env_entries(self._env, {"NCCL_DEBUG": "WARN"} if self._gpus else {})
        if env:
            trainer["env"] = env
        if self._nproc is not None:
            trainer["numProcPerNode"] = self._nproc
        return trainer

    def _pod_patch(self) -> dict[str, Any]:
        volumes, mounts = scratch_volumes(shm_size=self._shm, tmp=True)
        volumes += [m.volume() for m in self._mounts]
        mounts += [m.volume_mount() for m in self._mounts]
        pod: dict[str, Any] = {
            "securityContext": pod_security_context(),
            "containers": [
                {"name": NODE, "securityContext": container_security_context(), "volumeMounts": mounts}
            ],
            "volumes": volumes,
        }
        if self._gpus:
            pod.update(gpu_placement(self._cluster))
        return pod

    def _pod_template_patch(self) -> dict[str, Any]:
        template: dict[str, Any] = {"spec": self._pod_patch()}
        if self._placement:
            template = {"metadata": {"annotations": dict(self._placement)}, **template}
        return template

    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "runtimeRef": {
                "apiGroup": "trainer.kubeflow.org",
                "kind": self._runtime_kind,
                "name": self._runtime,
            },
            "trainer": self._trainer(),
            "runtimePatches": [
                {
                    "manager": PATCH_MANAGER,
                    "trainingRuntimeSpec": {
                        "template": {
                            "spec": {
                                "replicatedJobs": [
                                    {
                                        "name": NODE,
                                        "template": {"spec": {"template": self._pod_template_patch()}},
                                    }
                                ]
                            }
                        }
                    },
                }
            ],
        }
        if self._deadline is not None:
            spec["activeDeadlineSeconds"] = self._deadline
        if self._initializer:
            spec["initializer"] = self._initializer
        managed_by = multikueue_managed_by(self._cluster, self._labels)
        if managed_by is not None:
            spec["managedBy"] = managed_by
        return spec
