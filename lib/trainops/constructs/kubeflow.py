"""The shape every Kubeflow Training Operator v1 job shares (kubeflow.org/v1 PyTorchJob, TFJob,
XGBoostJob, PaddleJob, JAXJob, MPIJob): ``runPolicy``, replica specs of pod templates, run-once
content-hash names, Argo CD annotations and ``mount()``.

- :class:`RunPolicy`: ``spec.runPolicy`` (kubeflow/trainer ``pkg/apis/kubeflow.org/v1/common_types.go``).
- :class:`ReplicaPod`: the training pod of one replica type (secure defaults, guaranteed resources,
  GPU placement, NCCL defaults, ``/dev/shm`` and ``/tmp`` scratch volumes, mounted claims).
- :class:`KubeflowJob`: the construct base: a subclass validates its own props, describes its
  replica specs in :meth:`KubeflowJob._spec` and calls :meth:`KubeflowJob._emit`.

Source: https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/apis/kubeflow.org/v1/common_types.go
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, run_once_annotations
from trainops.constructs._core.base import ObjectConstruct, emit, require_name, run_once_name
from trainops.constructs._core.devices import DeviceClaim, DevicePlan
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
    shm_size,
)
from trainops.constructs._core.protocols import ClaimSource
from trainops.constructs._core.topology import TopologyPlacement, podset_annotations
from trainops.core.cluster import Cluster
from trainops.core.kinds import KIND_TABLE, pod_templates
from trainops.core.naming import DNS1035_LABEL
from trainops.core.quantity import Quantity

CleanPodPolicy = Literal["None", "Running", "All"]


@dataclass(frozen=True)
class SchedulingPolicy:
    """``runPolicy.schedulingPolicy``: gang scheduling through a PodGroup (Volcano or the
    scheduler-plugins coscheduling plugin), so no pod of the job starts until all can.

    Args:
        min_available: pods that must be schedulable together; ``None`` means all of the job's pods.
        queue: the gang scheduler's queue (Volcano), or ``None``.
        priority_class: the PodGroup's priority class, or ``None``.
        schedule_timeout_seconds: give up after this many seconds (coscheduling), or ``None``.

    Source: https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/apis/kubeflow.org/v1/common_types.go
    (``SchedulingPolicy``)
    """

    min_available: int | None = None
    queue: str | None = None
    priority_class: str | None = None
    schedule_timeout_seconds: int | None = None

    def to_spec(self) -> dict[str, Any]:
        """The ``schedulingPolicy`` object."""
        spec: dict[str, Any] = {}
        if self.min_available is not None:
            spec["minAvailable"] = require_whole(
                "SchedulingPolicy", "min_available", self.min_available, minimum=1
            )
        if self.queue is not None:
            spec["queue"] = self.queue
        if self.priority_class is not None:
            spec["priorityClass"] = require_name("SchedulingPolicy", "priority_class", self.priority_class)
        if self.schedule_timeout_seconds is not None:
            spec["scheduleTimeoutSeconds"] = require_whole(
                "SchedulingPolicy", "schedule_timeout_seconds", self.schedule_timeout_seconds, minimum=1
            )
        return spec


@dataclass(frozen=True)
class RunPolicy:
    """``spec.runPolicy`` of a Kubeflow v1 job.

    No ``ttlSecondsAfterFinished``: Argo CD owns the job and would re-create a deleted one.

    Args:
        clean_pod_policy: which pods to delete when the job finishes: ``None`` | ``Running`` |
            ``All``. Default: ``Running`` (stop leftover pods, keep finished ones for their logs;
            the operator's own default is ``None``).
        backoff_limit: retries before the job is marked failed. Default: 3.
        active_deadline_seconds: wall-clock limit in seconds from the job's start, or ``None`` for
            none. Default: ``None``.
        scheduling_policy: gang scheduling, or ``None``. Default: ``None``.
        suspend: create the job suspended (resume it by editing git). Not with a Kueue ``queue``:
            Kueue owns ``suspend`` then. Default: ``False``.

    Raises:
        ValueError: an unknown clean-pod policy, a negative backoff limit or a non-positive deadline.

    Source: https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/apis/kubeflow.org/v1/common_types.go
    """

    clean_pod_policy: CleanPodPolicy = "Running"
    backoff_limit: int = 3
    active_deadline_seconds: int | None = None
    scheduling_policy: SchedulingPolicy | None = None
    suspend: bool = False

    def __post_init__(self) -> None:
        if self.clean_pod_policy not in ("None", "Running", "All"):
            raise ValueError(
                f"RunPolicy clean_pod_policy={self.clean_pod_policy!r}: must be one of None, Running, All"
            )
        require_whole("RunPolicy", "backoff_limit", self.backoff_limit, minimum=0)
        if self.active_deadline_seconds is not None:
            require_whole("RunPolicy", "active_deadline_seconds", self.active_deadline_seconds, minimum=1)

    def to_spec(self) -> dict[str, Any]:
        """The ``spec.runPolicy`` object."""
        spec: dict[str, Any] = {
            "cleanPodPolicy": self.clean_pod_policy,
            "backoffLimit": int(self.backoff_limit),
        }
        if self.active_deadline_seconds is not None:
            spec["activeDeadlineSeconds"] = int(self.active_deadline_seconds)
        if self.scheduling_policy is not None:
            spec["schedulingPolicy"] = self.scheduling_policy.to_spec()
        if self.suspend:
            spec["suspend"] = True
        return spec


@dataclass(frozen=True)
class ReplicaPod:
    """The pod of one replica type, with the secure, GPU-aware defaults of every training job.

    Args:
        cluster: target cluster (GPU and RDMA resource names, GPU taints and node selector).
        container_name: the training container's name, as the operator requires (e.g. ``pytorch``).
        image: training image (checked by the job).
        command: container command, or ``None`` for the image's entrypoint.
        args: container args, or ``None``.
        cpu: cpu cores per pod (requests = limits).
        memory: memory bytes per pod (requests = limits).
        gpus: whole GPUs per pod, as limits of ``cluster.gpu_resource``.
        rdma: RDMA HCAs per pod, as limits of ``cluster.rdma_resource``.
        env: environment variables in order; they override the NCCL defaults
            (``NCCL_DEBUG=WARN``, ``NCCL_IB_DISABLE=0`` with RDMA else ``1``) set when ``gpus`` > 0.
        shm: size of the ``/dev/shm`` memory emptyDir, or ``None`` for none.
        labels: pod template labels.
        service_account: ``serviceAccountName``, or ``None`` for the namespace default.
        read_only_root: read-only root filesystem with an emptyDir at ``/tmp``.
    """

    cluster: Cluster
    container_name: str
    image: str
    command: tuple[str, ...] | None
    args: tuple[str, ...] | None
    cpu: Quantity
    memory: Quantity
    gpus: int = 0
    rdma: int = 0
    env: Mapping[str, str] | None = None
    shm: Quantity | None = None
    labels: Mapping[str, str] | None = None
    service_account: str | None = None
    read_only_root: bool = True

    def without_gpus(
        self, kind: str, *, cpu_prop: str, cpu: str | None, memory_prop: str, memory: str | None
    ) -> ReplicaPod:
        """This pod for a replica type that runs no training ranks (TFJob parameter servers, PaddleJob
        servers): no GPUs, RDMA or ``/dev/shm``, and its own cpu cores and memory bytes when given.

        Args:
            kind: the construct's kind, for messages.
            cpu_prop: the prop name of ``cpu``, for messages (e.g. ``"ps_cpu"``).
            cpu: cpu cores as a quantity string, or ``None`` to keep this pod's.
            memory_prop: the prop name of ``memory``, for messages.
            memory: memory bytes as a quantity string, or ``None`` to keep this pod's.

        Raises:
            ValueError: a quantity that does not parse, quoting the prop.
        """
        return replace(
            self,
            gpus=0,
            rdma=0,
            shm=None,
            cpu=self.cpu if cpu is None else require_quantity(kind, cpu_prop, cpu),
            memory=self.memory
            if memory is None
            else require_quantity(kind, memory_prop, memory, whole_bytes=True),
        )

    def container(self, mounts: Sequence[Mount]) -> dict[str, Any]:
        """The training container, with ``mounts`` after the scratch mounts."""
        extended: dict[str, int] = {}
        if self.gpus:
            extended[self.cluster.gpu_resource] = self.gpus
        if self.rdma and self.cluster.rdma_resource is not None:
            extended[self.cluster.rdma_resource] = self.rdma
        defaults: dict[str, str] = {}
        if self.gpus:
            defaults = {"NCCL_DEBUG": "WARN", "NCCL_IB_DISABLE": "0" if self.rdma else "1"}
        _, scratch_mounts = scratch_volumes(shm_size=self.shm, tmp=self.read_only_root)
        container: dict[str, Any] = {
            "name": self.container_name,
            "image": self.image,
            "resources": guaranteed_resources(self.cpu, self.memory, extended),
            "securityContext": container_security_context(
                read_only_root_filesystem=self.read_only_root,
                add_capabilities=["IPC_LOCK"] if self.rdma else (),
            ),
        }
        if self.command is not None:
            container["command"] = list(self.command)
        if self.args is not None:
            container["args"] = list(self.args)
        env = env_entries(self.env or {}, defaults)
        if env:
            container["env"] = env
        volume_mounts = scratch_mounts + [m.volume_mount() for m in mounts]
        if volume_mounts:
            container["volumeMounts"] = volume_mounts
        return container

    def pod_spec(self, mounts: Sequence[Mount]) -> dict[str, Any]:
        """The pod spec: secure pod defaults, the container, GPU placement and volumes."""
        volumes, _ = scratch_volumes(shm_size=self.shm, tmp=self.read_only_root)
        volumes += [m.volume() for m in mounts]
        spec: dict[str, Any] = {
            "automountServiceAccountToken": False,
            "securityContext": pod_security_context(),
            "containers": [self.container(mounts)],
        }
        if self.gpus:
            spec.update(gpu_placement(self.cluster))
        if volumes:
            spec["volumes"] = volumes
        if self.service_account is not None:
            spec["serviceAccountName"] = self.service_account
        return spec

    def replica(self, replicas: int, restart_policy: str, mounts: Sequence[Mount]) -> dict[str, Any]:
        """A ``ReplicaSpec``: ``replicas``, ``restartPolicy`` and the pod template."""
        template: dict[str, Any] = {"spec": self.pod_spec(mounts)}
        if self.labels:
            template["metadata"] = {"labels": dict(self.labels)}
        return {"replicas": replicas, "restartPolicy": restart_policy, "template": template}


#: The environment variable that tells training code where checkpoints live.
CHECKPOINT_ENV = "CHECKPOINT_DIR"
#: The container port name a PodMonitor scrapes (``expose_metrics``).
METRICS_PORT_NAME = "metrics"


@dataclass(frozen=True)
class Placement:
    """Job-wide pod settings applied to every pod template after the replicas are built.

    Args:
        gpu_labels: node labels of a GPU model, added to the node selector of pods with GPUs.
        checkpoint_dir: the checkpoint mount path, exported as ``CHECKPOINT_DIR``, or ``None``.
        spot: tolerate the cluster's spot taints and prefer its spot nodes.
        priority_class: the pods' ``priorityClassName`` (scheduling.k8s.io PriorityClass), or ``None``.
        metrics_port: a container port named ``metrics`` on every training container, or ``None``.
    """

    gpu_labels: dict[str, str] = field(default_factory=dict)
    checkpoint_dir: str | None = None
    spot: bool = False
    priority_class: str | None = None
    metrics_port: int | None = None

    def apply(self, cluster: Cluster, obj: dict[str, Any]) -> None:
        """Apply to every pod template of ``obj`` in place (:func:`trainops.core.kinds.pod_templates`)."""
        if not (
            self.gpu_labels or self.checkpoint_dir or self.spot or self.priority_class or self.metrics_port
        ):
            return
        for site in pod_templates(obj):
            pod = site.spec
            if self.priority_class is not None:
                pod["priorityClassName"] = self.priority_class
            containers = [c for c in pod.get("containers", []) if isinstance(c, dict)]
            has_gpu = any(
                cluster.gpu_resource in (c.get("resources") or {}).get("limits", {}) for c in containers
            )
            if self.gpu_labels and has_gpu:
                pod["nodeSelector"] = {**pod.get("nodeSelector", {}), **self.gpu_labels}
            if self.metrics_port is not None and containers:
                ports = [p for p in containers[0].get("ports", []) if p.get("name") != METRICS_PORT_NAME]
                containers[0]["ports"] = [
                    *ports,
                    {"name": METRICS_PORT_NAME, "containerPort": self.metrics_port},
                ]
            if self.checkpoint_dir is not None:
                for container in containers:
                    env = [e for e in container.get("env", []) if e.get("name") != CHECKPOINT_ENV]
                    container["env"] = [*env, {"name": CHECKPOINT_ENV, "value": self.checkpoint_dir}]
            if self.spot:
                pod["tolerations"] = [
                    *pod.get("tolerations", []),
                    *(t.toleration() for t in cluster.spot_taints),
                ]
                if cluster.spot_node_labels:
                    terms = [
                        {"key": k, "operator": "In", "values": [v]}
                        for k, v in sorted(cluster.spot_node_labels.items())
                    ]
                    pod["affinity"] = {
                        "nodeAffinity": {
                            "preferredDuringSchedulingIgnoredDuringExecution": [
                                {"weight": 100, "preference": {"matchExpressions": terms}}
                            ]
                        }
                    }


class KubeflowJob(ObjectConstruct):
    """Base of the kubeflow.org/v1 job constructs: run-once naming, emission and ``mount()``.

    A subclass sets ``KIND``, ``API_VERSION`` and ``OPERATOR`` (the operator name a cluster must list),
    calls :meth:`_setup` first, validates its own props, implements :meth:`_spec` and :attr:`pods`,
    and calls :meth:`_emit` last. The object is named ``<name>-<hash6>`` where the hash covers the
    whole spec, so a changed spec is a new run rather than an in-place patch of an immutable one
    (``name`` returns the emitted name; it changes with ``mount()``).
    """

    #: The operator a target cluster must run (a key of ``Cluster.operators``).
    OPERATOR: ClassVar[str] = KIND_TABLE[("kubeflow.org", "PyTorchJob")].operators[0]

    _cluster: Cluster
    _base_name: str
    _labels: dict[str, str]
    _run_policy: RunPolicy
    _mounts: list[Mount]
    _api_object: Emitted

    def _setup(
        self,
        cluster: Cluster,
        name: str,
        *,
        max_base_name: int,
        run_policy: RunPolicy | None,
        operator: str | None = None,
        queue: str | None = None,
        priority: str | None = None,
        placement: TopologyPlacement | None = None,
    ) -> None:
        """Check the target runs ``operator`` (default :attr:`OPERATOR`) and the base name is a
        DNS-1035 label of at most ``max_base_name`` characters; remember the Kueue ``queue`` and
        ``priority`` (WorkloadPriorityClass), written as the job's ``kueue.x-k8s.io/queue-name`` and
        ``kueue.x-k8s.io/priority-class`` labels, and the topology ``placement`` (written on each
        replica's pod template by :meth:`_full_spec`).

        Raises:
            ValueError: the cluster lacks the operator (or Kueue, for a queue); a bad name; a queue
                with ``run_policy.suspend`` (Kueue owns ``suspend``).
        """
        needed = operator or self.OPERATOR
        if not cluster.has_operator(needed):
            raise ValueError(
                f"{self.KIND} cluster={cluster.name!r}: the cluster does not list {needed} in operators"
            )
        self._cluster = cluster
        self._base_name = require_name(
            self.KIND, "name", name, max_length=max_base_name, syntax=DNS1035_LABEL
        )
        self._run_policy = run_policy if run_policy is not None else RunPolicy()
        self._mounts = []
        self._placement = Placement()
        self._devices: DevicePlan | None = None
        self._queue_labels = queue_labels(self.KIND, cluster, queue, priority)
        self._topology = placement
        if self._queue_labels and self._run_policy.suspend:
            raise ValueError(
                f"{self.KIND} run_policy.suspend=True: Kueue suspends and resumes a queued job itself (queue={queue!r})"
            )

    @property
    def pods(self) -> int:
        """How many pods the job runs (all replica types)."""
        raise NotImplementedError

    @property
    def mounts(self) -> tuple[Mount, ...]:
        """The volumes added with ``mount()``, in order."""
        return tuple(self._mounts)

    def _spec(self) -> dict[str, Any]:
        raise NotImplementedError

    def _waivers(self) -> dict[str, str]:
        """Policy waivers the construct itself declares, as ``trainops.dev/waive-<rule>`` annotations
        with their reason (:func:`~trainops.constructs._core.base.waiver`); none by default."""
        return {}

    def _reserved_paths(self) -> list[str]:
        """Mount paths the job's own scratch volumes use (``mount()`` refuses them)."""
        return []

    def _full_spec(self) -> dict[str, Any]:
        """:meth:`_spec` with the job-wide placement (GPU type, spot, checkpoint env) and the device
        claims (:meth:`claim_devices`) applied to every pod template, the topology placement's
        pod-set annotations on each replica's template, gang admission (:meth:`_gang`), and
        ``runPolicy.managedBy`` on a MultiKueue manager
        (:func:`~trainops.constructs._core.kueue.multikueue_managed_by`)."""
        spec = self._spec()
        obj = {"apiVersion": self.api_version, "kind": self.kind, "spec": spec}
        self._placement.apply(self._cluster, obj)
        if self._devices is not None:
            self._devices.apply(obj)
        replicas = spec.get(KIND_TABLE[("kubeflow.org", self.KIND)].replica_field or "", {})
        if self._topology is not None:
            found = podset_annotations(
                self.KIND,
                self._cluster,
                self._topology,
                {name: int(r["replicas"]) for name, r in replicas.items()},
                queued=bool(self._queue_labels),
            )
            for name, annotations in found.items():
                metadata = replicas[name]["template"].setdefault("metadata", {})
                metadata["annotations"] = {**metadata.get("annotations", {}), **annotations}
        self._gang(spec, sum(int(r["replicas"]) for r in replicas.values()))
        managed_by = multikueue_managed_by(self._cluster, self._queue_labels)
        if managed_by is not None:
            spec["runPolicy"]["managedBy"] = managed_by
        return spec

    def _gang(self, spec: dict[str, Any], pods: int) -> None:
        """Gang admission of a multi-pod job: Kueue admits a queued job all or nothing; otherwise, on a
        cluster that declares a gang scheduler, ``runPolicy.schedulingPolicy.minAvailable`` is set to
        every pod of the job (the operator then creates a PodGroup for it) unless the run policy
        gives its own scheduling policy."""
        if pods <= 1 or self._queue_labels or not self._cluster.gang_scheduler:
            return
        run_policy = spec.setdefault("runPolicy", {})
        run_policy.setdefault("schedulingPolicy", {"minAvailable": pods})

    def _respec(self) -> None:
        """Recompute the spec and the run-once name after an integration method changed them."""
        spec = self._full_spec()
        self._name = run_once_name(self._base_name, spec)
        self._api_object.patch(replace_op("/metadata/name", self._name), replace_op("/spec", spec))

    def place_on(self, gpu_type: str) -> None:
        """Run the GPU pods only on nodes with the GPU model ``gpu_type`` (the node labels of
        ``cluster.gpu_types[gpu_type]``, added to their node selector). The name changes with the spec.

        Raises:
            ValueError: the cluster declares no such GPU type.
        """
        labels = self._cluster.gpu_types.get(gpu_type)
        if labels is None:
            known = ", ".join(sorted(self._cluster.gpu_types)) or "none"
            raise ValueError(
                f"{self.KIND} gpu_type={gpu_type!r}: cluster {self._cluster.name!r} declares no such GPU type (declared: {known})"
            )
        self._placement = replace(self._placement, gpu_labels=dict(labels))
        self._respec()

    def expose_metrics(self, port: int = 9090) -> None:
        """Declare a container port named ``metrics`` on the training container of every replica,
        so a PodMonitor (``port: metrics``) can scrape the job; Prometheus only scrapes declared
        ports. The name changes with the spec.

        Raises:
            ValueError: a port outside 1-65535.
        """
        number = require_whole(self.KIND, "metrics port", port, minimum=1)
        if number > 65535:
            raise ValueError(f"{self.KIND} expose_metrics port={port!r}: must be at most 65535")
        self._placement = replace(self._placement, metrics_port=number)
        self._respec()

    def use_priority_class(self, name: str) -> None:
        """Give every pod of the job the PriorityClass ``name`` (scheduler priority and preemption;
        for Kueue admission order use ``priority=`` instead). The name changes with the spec.

        Raises:
            ValueError: ``name`` is not a DNS-1123 label.
        """
        self._placement = replace(
            self._placement, priority_class=require_name(self.KIND, "priority_class", name)
        )
        self._respec()

    def use_checkpoints(
        self, volume: ClaimSource | str, path: str = "/checkpoints", *, spot: bool = False
    ) -> None:
        """Make the job restartable from checkpoints: mount ``volume`` at ``path`` in every replica and
        set ``CHECKPOINT_DIR`` to it (training code resumes from the newest checkpoint there); with
        ``spot=True`` the pods also tolerate ``cluster.spot_taints`` and prefer nodes with
        ``cluster.spot_node_labels``, so a preempted pod is restarted (``restartPolicy`` OnFailure or
        ExitCode) on any node and resumes. The name changes with the spec.

        Raises:
            ValueError: a bad mount (see :meth:`mount`); ``spot=True`` on a cluster that declares no
                spot taints or labels.
        """
        if spot and not (self._cluster.spot_taints or self._cluster.spot_node_labels):
            raise ValueError(
                f"{self.KIND} use_checkpoints spot=True: cluster {self._cluster.name!r} declares no spot_taints "
                "or spot_node_labels"
            )
        self._placement = replace(self._placement, checkpoint_dir=path, spot=spot)
        self.mount(volume, path)

    def claim_devices(self, claim: DeviceClaim) -> None:
        """Claim the job's GPUs through Dynamic Resource Allocation: on a cluster that uses DRA
        (``Cluster.uses_dra``) a ResourceClaimTemplate ``<job>-<claim name>-<hash6>`` (a child
        construct, :class:`~trainops.constructs.resource_claim_template.ResourceClaimTemplate`) and,
        in every pod that requests GPUs, a ``resourceClaims`` entry naming it and a
        ``resources.claims`` entry in each GPU container instead of the extended resource; on
        another cluster the GPUs stay ``cluster.gpu_resource`` (then ``claim`` may not select by
        attributes). The job's name changes with its spec. Call it once.

        Args:
            claim: the DeviceClass, count (default: ``gpus_per_node``) and selectors.

        Raises:
            ValueError: the job requests no GPUs, or GPU pods with different counts; a second call;
                a count other than the pods' GPUs; an undeclared DeviceClass; selectors on a cluster
                that does not use DRA (:func:`~trainops.constructs._core.devices.plan_devices`).
        """
        from trainops.constructs.resource_claim_template import claim_job_devices

        if self._devices is not None:
            raise ValueError(f"{self.KIND} claim_devices: the job already claims devices")
        obj = {"apiVersion": self.api_version, "kind": self.kind, "spec": self._spec()}
        plan = claim_job_devices(self, self.KIND, self._cluster, self._base_name, claim, obj)
        self._devices = plan
        self._respec()

    def _emit(self) -> None:
        spec = self._full_spec()
        self._name = run_once_name(self._base_name, spec)
        metadata: dict[str, Any] = {
            "name": self._name,
            "annotations": {**run_once_annotations(options=[SKIP_DRY_RUN_OPTIONS]), **self._waivers()},
        }
        labels = {**self._labels, **self._queue_labels}
        if labels:
            metadata["labels"] = labels
        self._api_object = emit(
            self, {"apiVersion": self.api_version, "kind": self.kind, "metadata": metadata, "spec": spec}
        )

    def mount(self, volume: ClaimSource | str, path: str, *, read_only: bool = False) -> None:
        """Mount a PersistentVolumeClaim at ``path`` in the container of every replica.

        The job's name changes with its spec (a different mount is a different run).

        Args:
            volume: a ``VolumeClaim`` (its access mode is checked against the pod count) or the
                name of an existing claim, e.g. one another app creates.
            path: absolute mount path.
            read_only: mount read-only. Default: ``False``.

        Raises:
            ValueError: a bad claim name or path, a path already mounted, a claim mounted twice,
                or an access mode the job's pods cannot share.
        """
        mount = resolve_mount(
            self.KIND,
            "mount",
            volume,
            path,
            read_only=read_only,
            pods=self.pods,
            existing=self._mounts,
            reserved_paths=self._reserved_paths(),
        )
        if any(m.claim_name == mount.claim_name for m in self._mounts):
            raise ValueError(f"{self.KIND} mount volume={mount.claim_name!r}: already mounted")
        self._mounts.append(mount)
        self._respec()


def scratch_paths(pod: ReplicaPod) -> list[str]:
    """The mount paths ``pod``'s scratch volumes take: ``/tmp`` (read-only root), ``/dev/shm``."""
    paths = [TMP_PATH] if pod.read_only_root else []
    if pod.shm is not None:
        paths.append(SHM_PATH)
    return paths


#: Characters ``run_once_name`` appends to the base name (``-<hash6>``).
_HASH_SUFFIX = 7
#: Digits of the replica index a replica Service name leaves room for (up to 1000 replicas per type).
_INDEX_DIGITS = 3


def max_base_name(*replica_types: str) -> int:
    """The longest base name a job with ``replica_types`` may have.

    The operator names each replica's pod and Service ``<job>-<lower(type)>-<index>``
    (``GenGeneralName`` in kubeflow/trainer ``pkg/core/utils.go``, v1.9) and a Service name must be
    a DNS-1035 label of at most 63 characters; the job is named ``<base>-<hash6>`` and the index
    may have up to three digits. E.g. ``max_base_name("Master", "Worker")`` is 45.

    Args:
        replica_types: the replica type names the job kind allows, e.g. ``"Chief"``, ``"Evaluator"``.

    Source: https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/core/utils.go
    """
    longest = max(len(t) for t in replica_types)
    return 63 - _HASH_SUFFIX - (longest + 2) - _INDEX_DIGITS


@dataclass(frozen=True)
class PodProps:
    """The pod props every kubeflow.org/v1 job construct shares, before checking.

    Args:
        image: training image with a tag or digest (never ``latest``).
        command: container command, or ``None`` for the image's entrypoint.
        args: container args, or ``None``.
        gpus: whole GPUs per pod.
        cpu: cpu cores per pod as a quantity string.
        memory: memory per pod as a quantity string in bytes.
        rdma: RDMA HCAs per pod.
        env: environment variables in order, or ``None``.
        shm_size: ``/dev/shm`` size as a quantity string, or ``None`` for the default rule.
        labels: extra labels, or ``None``.
        service_account: ``serviceAccountName``, or ``None``.
        read_only_root: read-only root filesystem.
    """

    image: str
    command: Sequence[str] | None
    args: Sequence[str] | None
    gpus: int
    cpu: str
    memory: str
    rdma: int
    env: Mapping[str, str] | None
    shm_size: str | None
    labels: Mapping[str, str] | None
    service_account: str | None
    read_only_root: bool

    def check(self, kind: str, cluster: Cluster, container_name: str, *, pods: int) -> ReplicaPod:
        """Check every prop and build the :class:`ReplicaPod` (the same rules as ``PyTorchJob``).

        ``/dev/shm`` is a memory emptyDir of half ``memory`` when the pod has several GPUs or the
        job several pods, unless ``shm_size`` is given (then always, at most ``memory``).

        Args:
            kind: the construct's kind, for messages.
            cluster: target cluster.
            container_name: the container name the operator requires.
            pods: how many pods the job runs (for the ``/dev/shm`` rule).

        Raises:
            ValueError: quoting ``kind``, the prop and its value.
        """
        image = require_image(kind, "image", self.image)
        command = require_strings(kind, "command", self.command)
        args = require_strings(kind, "args", self.args)
        gpus = require_whole(kind, "gpus_per_node", self.gpus, minimum=0)
        cpu = require_quantity(kind, "cpu", self.cpu)
        memory = require_quantity(kind, "memory", self.memory, whole_bytes=True)
        rdma = require_whole(kind, "rdma", self.rdma, minimum=0)
        if rdma and cluster.rdma_resource is None:
            raise ValueError(f"{kind} rdma={self.rdma!r}: cluster {cluster.name!r} declares no rdma_resource")
        env = require_env(kind, "env", self.env or {})
        labels = require_labels(kind, "labels", self.labels or {})
        service_account = (
            None
            if self.service_account is None
            else require_name(kind, "service_account", self.service_account)
        )
        shm = shm_size(kind, self.shm_size, memory, needed=gpus > 1 or pods > 1)
        return ReplicaPod(
            cluster=cluster,
            container_name=container_name,
            image=image,
            command=command,
            args=args,
            cpu=cpu,
            memory=memory,
            gpus=gpus,
            rdma=rdma,
            env=env,
            shm=shm,
            labels=labels,
            service_account=service_account,
            read_only_root=bool(self.read_only_root),
        )


def require_port(kind: str, prop: str, value: int | None) -> int | None:
    """``value`` as a container port (1-65535), or ``None``.

    Raises:
        ValueError: not a whole number within 1-65535, quoting ``kind``, prop and value.
    """
    if value is None:
        return None
    port = require_whole(kind, prop, value, minimum=1)
    if port > 65535:
        raise ValueError(f"{kind} {prop}={value!r}: must be at most 65535")
    return port


def with_port(replica: dict[str, Any], name: str, port: int | None) -> dict[str, Any]:
    """``replica`` (a ``ReplicaSpec`` from :meth:`ReplicaPod.replica`) with the container port
    ``name`` set to ``port`` in its training container; unchanged when ``port`` is ``None`` (the
    operator's defaulting then adds its default port of that name, e.g. ``setXGBoostJobDefaultPort``).
    """
    if port is not None:
        container = replica["template"]["spec"]["containers"][0]
        container["ports"] = [{"name": name, "containerPort": port}]
    return replica
