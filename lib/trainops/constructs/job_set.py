"""``JobSet``: a group of replicated batch Jobs run as one unit (jobset.x-k8s.io/v1alpha2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, run_once_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name, run_once_name
from trainops.constructs._core.devices import DeviceClaim, DevicePlan
from trainops.constructs._core.emission import Emitted, replace_op
from trainops.constructs._core.jobset import (
    API_VERSION,
    Dependency,
    FailurePolicy,
    FailureRule,
    JobTemplate,
    StartupOrder,
    SuccessOperator,
    jobset_spec,
)
from trainops.constructs._core.kueue import multikueue_managed_by, queue_labels
from trainops.constructs._core.pod import Mount, resolve_mount
from trainops.constructs._core.props import require_whole
from trainops.constructs._core.protocols import ClaimSource
from trainops.constructs._core.topology import (
    EXCLUSIVE_TOPOLOGY,
    TopologyPlacement,
    exclusive_label,
    podset_annotations,
)
from trainops.constructs.kubeflow import PodProps, ReplicaPod, scratch_paths
from trainops.core.cluster import Cluster
from trainops.core.gang import PODGROUP_OPERATOR, pod_group, pod_reference
from trainops.core.jobset import POD_SUFFIX, pod_name
from trainops.core.kinds import KIND_TABLE
from trainops.core.naming import DNS1035_LABEL, DNS1123_LABEL_MAX

__all__ = ["Dependency", "FailurePolicy", "FailureRule", "JobSet", "ReplicatedJob"]

_KIND = "JobSet"
#: The operator a cluster must run (a key of ``Cluster.operators``).
OPERATOR = KIND_TABLE[("jobset.x-k8s.io", _KIND)].operators[0]


@dataclass(frozen=True)
class ReplicatedJob:
    """One replicated job of a :class:`JobSet`: ``replicas`` identical Indexed Jobs of ``pods`` pods
    each, every pod with the secure, GPU-aware defaults of the training constructs (requests equal
    to limits, GPU tolerations and node selector, ``/dev/shm`` and ``/tmp`` scratch volumes, NCCL
    defaults, ``IPC_LOCK`` with RDMA).

    Args:
        name: the replicated job's name (a DNS-1035 label; also its container's name).
        image: the image, with a tag or digest.
        command: container command. Default: the image's.
        args: container args. Default: none.
        replicas: Jobs. Default: 1.
        pods: pods per Job (``parallelism`` and ``completions``). Default: 1.
        gpus: whole GPUs per pod, as ``cluster.gpu_resource``. Default: 0.
        cpu: cpu cores per pod (quantity string). Default: ``"2"``.
        memory: memory bytes per pod (quantity string). Default: ``"8Gi"``.
        rdma: RDMA devices per pod, as ``cluster.rdma_resource``. Default: 0.
        env: environment variables, in order. Default: none.
        depends_on: earlier replicated jobs this one waits for. Default: none.
        backoff_limit: pod failures each Job tolerates before it fails (the JobSet failure policy
            then restarts or fails the whole set). Default: 0.
    """

    name: str
    image: str
    command: Sequence[str] | None = None
    args: Sequence[str] | None = None
    replicas: int = 1
    pods: int = 1
    gpus: int = 0
    cpu: str = "2"
    memory: str = "8Gi"
    rdma: int = 0
    env: Mapping[str, str] | None = None
    depends_on: tuple[Dependency, ...] = ()
    backoff_limit: int = 0


class JobSet(ObjectConstruct):
    """A ``jobset.x-k8s.io/v1alpha2`` JobSet: replicated Jobs (e.g. a leader and workers, or slices of
    a multi-node training) that start, succeed, fail and restart together.

    Run-once, like the other training jobs: named ``<name>-<hash6>`` from its spec, never patched in
    place. Every Job is Indexed with ``parallelism`` = ``completions`` = ``pods`` and pod restart policy
    ``Never`` (a failed pod fails its Job, and the JobSet's ``failure_policy`` decides: restart the
    whole set up to ``max_restarts`` times, or fail). ``queue`` hands it to Kueue, which admits all of
    its pods at once (gang admission); without a queue, on a cluster that declares a gang scheduler
    (``Cluster.gang_scheduler``), a JobSet of several pods gets a ``PodGroup`` of that scheduler named
    as the run (``minMember``: every pod) and its pods name it and the scheduler
    (:mod:`trainops.core.gang`); ``placement`` asks Kueue to place each replicated job's pods in
    one topology domain; ``exclusive_topology`` asks JobSet to give each Job a domain of its own (one
    Job per rack or block).

    Args:
        scope: the parent construct (a Chart with a namespace).
        id: construct id.
        cluster: target; must list ``jobset`` in ``operators``.
        name: base name, a DNS-1035 label.
        replicated_jobs: the replicated jobs, in order (:class:`ReplicatedJob`).
        startup_order: ``InOrder`` (each replicated job waits until the previous one's pods are
            ready) or ``AnyOrder``; not with ``depends_on``. Default: ``None`` (JobSet's ``AnyOrder``).
        success_operator: ``All`` or ``Any`` of ``success_targets`` must complete. Default: ``All``.
        success_targets: the replicated jobs whose completion completes the set. Default: all.
        failure_policy: restarts and rules (:class:`~trainops.constructs._core.jobset.FailurePolicy`).
            Default: ``None`` (fail at the first failed Job).
        enable_dns_hostnames: pods reach each other as ``<pod>.<subdomain>`` (JobSet's headless
            Service). Default: ``True``.
        subdomain: the headless Service's name. Default: the JobSet's name.
        exclusive_topology: one Job per domain of this topology level (a level of
            ``cluster.topology`` or a node label), or ``None``. Default: ``None``.
        placement: Kueue topology-aware placement (needs ``queue``), or ``None``. Default: ``None``.
        queue: Kueue LocalQueue name, or ``None``. Default: ``None``.
        priority: Kueue WorkloadPriorityClass name (needs ``queue``), or ``None``. Default: ``None``.
        labels: extra labels on the JobSet and its pods. Default: none.
        service_account: ``serviceAccountName`` of the pods. Default: the namespace default.

    Raises:
        ValueError: a bad prop (quoting prop and value), what JobSet's webhook rejects (see
            :mod:`trainops.constructs._core.jobset`), generated pod names longer than 63 characters
            (``ValidateCreate``), a cluster without JobSet; gang scheduling without a queue on a cluster
            that does not list ``podgroup`` in ``operators`` (no PodGroup CRD).

    Source: https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/api/jobset/v1alpha2/jobset_types.go,
    ``pkg/webhooks/jobset_webhook.go`` (``ValidateCreate``), https://jobset.sigs.k8s.io/docs/
    """

    KIND = _KIND
    API_VERSION = API_VERSION

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        replicated_jobs: Sequence[ReplicatedJob],
        startup_order: StartupOrder | None = None,
        success_operator: SuccessOperator = "All",
        success_targets: Sequence[str] = (),
        failure_policy: FailurePolicy | None = None,
        enable_dns_hostnames: bool = True,
        subdomain: str | None = None,
        exclusive_topology: str | None = None,
        placement: TopologyPlacement | None = None,
        queue: str | None = None,
        priority: str | None = None,
        labels: Mapping[str, str] | None = None,
        service_account: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        if not cluster.has_operator(OPERATOR):
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the cluster does not list {OPERATOR} in operators"
            )
        self._cluster = cluster
        self._base_name = require_name(_KIND, "name", name, max_length=56, syntax=DNS1035_LABEL)
        if not replicated_jobs:
            raise ValueError(f"{_KIND} replicated_jobs=[]: at least one replicated job is required")
        self._jobs = tuple(replicated_jobs)
        self._counts: dict[str, tuple[int, int]] = {}
        for job in self._jobs:
            if not isinstance(job, ReplicatedJob):
                raise ValueError(f"{_KIND} replicated_jobs: {job!r} is not a ReplicatedJob")
            self._counts[job.name] = (
                require_whole(_KIND, f"replicated job {job.name!r} replicas", job.replicas, minimum=1),
                require_whole(_KIND, f"replicated job {job.name!r} pods", job.pods, minimum=1),
            )
        total = sum(r * p for r, p in self._counts.values())
        self._pods: dict[str, ReplicaPod] = {
            job.name: PodProps(
                image=job.image,
                command=job.command,
                args=job.args,
                gpus=job.gpus,
                cpu=job.cpu,
                memory=job.memory,
                rdma=job.rdma,
                env=job.env,
                shm_size=None,
                labels=labels,
                service_account=service_account,
                read_only_root=True,
            ).check(_KIND, cluster, job.name, pods=total)
            for job in self._jobs
        }
        self._labels = dict(next(iter(self._pods.values())).labels or {})
        self._labels.update(queue_labels(_KIND, cluster, queue, priority))
        self._annotations = (
            podset_annotations(
                _KIND,
                cluster,
                placement,
                {n: r * p for n, (r, p) in self._counts.items()},
                queued=queue is not None,
            )
            if placement is not None
            else {}
        )
        self._exclusive = (
            None if exclusive_topology is None else exclusive_label(_KIND, cluster, exclusive_topology)
        )
        if subdomain is not None:
            require_name(_KIND, "subdomain", subdomain, syntax=DNS1035_LABEL)
        self._network: dict[str, Any] = {"enableDNSHostnames": bool(enable_dns_hostnames)}
        if subdomain is not None:
            self._network["subdomain"] = subdomain
        self._startup = startup_order
        self._success = (success_operator, tuple(success_targets))
        self._failure = failure_policy
        self._mounts: list[Mount] = []
        self._devices: DevicePlan | None = None
        self._gang = cluster.gang_scheduler if queue is None and total > 1 else None
        if self._gang is not None and not cluster.has_operator(PODGROUP_OPERATOR):
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: {total} pods gang-scheduled by {self._gang} need its PodGroup "
                f"CRD (list {PODGROUP_OPERATOR} in operators), or give a queue for Kueue to admit them"
            )
        spec = self._named_spec()
        annotations = run_once_annotations(options=[SKIP_DRY_RUN_OPTIONS])
        if self._exclusive is not None:
            annotations[EXCLUSIVE_TOPOLOGY] = self._exclusive
        metadata: dict[str, Any] = {"name": self._name, "annotations": annotations}
        if self._labels:
            metadata["labels"] = dict(self._labels)
        self._api_object: Emitted = emit(
            self, {"apiVersion": API_VERSION, "kind": _KIND, "metadata": metadata, "spec": spec}
        )
        self._pod_group: Emitted | None = None
        if self._gang is not None:
            group = pod_group(self._gang, self._name, self.pods)
            group["metadata"]["annotations"] = run_once_annotations(options=[SKIP_DRY_RUN_OPTIONS])
            if self._labels:
                group["metadata"]["labels"] = dict(self._labels)
            self._pod_group = emit(self, group, id="PodGroup")

    @property
    def replicated_jobs(self) -> tuple[str, ...]:
        """The replicated jobs' names, in order."""
        return tuple(job.name for job in self._jobs)

    @property
    def pods(self) -> int:
        """How many pods the JobSet runs (every Job of every replicated job)."""
        return sum(r * p for r, p in self._counts.values())

    @property
    def mounts(self) -> tuple[Mount, ...]:
        """The volumes added with ``mount()``, in order."""
        return tuple(self._mounts)

    def mount(self, volume: ClaimSource | str, path: str, *, read_only: bool = False) -> None:
        """Mount a PersistentVolumeClaim at ``path`` in every pod. The name changes with the spec.

        Raises:
            ValueError: a bad claim name or path, a path already mounted, a claim mounted twice, or an
                access mode the pods cannot share.
        """
        reserved = sorted({p for pod in self._pods.values() for p in scratch_paths(pod)})
        mount = resolve_mount(
            _KIND,
            "mount",
            volume,
            path,
            read_only=read_only,
            pods=self.pods,
            existing=self._mounts,
            reserved_paths=reserved,
        )
        if any(m.claim_name == mount.claim_name for m in self._mounts):
            raise ValueError(f"{_KIND} mount volume={mount.claim_name!r}: already mounted")
        self._mounts.append(mount)
        self._respec()

    def claim_devices(self, claim: DeviceClaim) -> None:
        """Claim the GPUs of every GPU pod through Dynamic Resource Allocation: on a cluster that uses
        DRA (``Cluster.uses_dra``) a ResourceClaimTemplate ``<jobset>-<claim name>-<hash6>`` (a child
        construct) and, in every pod that requests GPUs, a ``resourceClaims`` entry naming it and a
        ``resources.claims`` entry in each GPU container instead of the extended resource; on another
        cluster the GPUs stay ``cluster.gpu_resource`` (then ``claim`` may not select by attributes).
        The name changes with the spec. Call it once.

        Args:
            claim: the DeviceClass, count (default: the pods' ``gpus``) and selectors.

        Raises:
            ValueError: no replicated job requests GPUs, or they request different counts; a second
                call; a count other than the pods' GPUs; an undeclared DeviceClass; selectors on a
                cluster that does not use DRA
                (:func:`~trainops.constructs.resource_claim_template.claim_job_devices`).
        """
        from trainops.constructs.resource_claim_template import claim_job_devices

        if self._devices is not None:
            raise ValueError(f"{_KIND} claim_devices: the job already claims devices")
        obj = {"apiVersion": API_VERSION, "kind": _KIND, "spec": self._spec()}
        self._devices = claim_job_devices(self, _KIND, self._cluster, self._base_name, claim, obj)
        self._respec()

    def _respec(self) -> None:
        """Recompute the spec and the run-once name after an integration method changed them (the
        PodGroup of a gang-scheduled JobSet follows the name)."""
        spec = self._named_spec()
        self._api_object.patch(replace_op("/metadata/name", self._name), replace_op("/spec", spec))
        if self._pod_group is not None:
            self._pod_group.patch(replace_op("/metadata/name", self._name))

    def _named_spec(self) -> dict[str, Any]:
        """:meth:`_spec`, its run-once name (set as :attr:`name`, checked by :meth:`_check_names`), and on a
        gang-scheduling cluster without a queue each pod's reference to the PodGroup of that name
        (:func:`trainops.core.gang.pod_reference`: Volcano's ``scheduling.k8s.io/group-name`` annotation,
        scheduler-plugins' ``scheduling.x-k8s.io/pod-group`` label, and the scheduler's name). The
        name hashes the spec without the reference, which only repeats the name."""
        spec = self._spec()
        self._name = self._check_names(run_once_name(self._base_name, spec))
        if self._gang is None:
            return spec
        labels, annotations, scheduler = pod_reference(self._gang, self._name)
        for job in spec["replicatedJobs"]:
            template = job["template"]["spec"]["template"]
            metadata = template.setdefault("metadata", {})
            for key, values in (("labels", labels), ("annotations", annotations)):
                if values:
                    metadata[key] = {**metadata.get(key, {}), **values}
            template["spec"]["schedulerName"] = scheduler
        return spec

    def _check_names(self, name: str) -> str:
        """``name`` if every Job and pod name JobSet generates from it is a DNS-1035 label of at most
        63 characters (``<jobset>-<job>-<index>-<pod index>-<5 random>``, ``ValidateCreate``)."""
        for job in self._jobs:
            replicas, pods = self._counts[job.name]
            longest = pod_name(name, job.name, replicas - 1, pods - 1)
            if len(longest) > DNS1123_LABEL_MAX:
                raise ValueError(
                    f"{_KIND} name={self._base_name!r}: pod names of replicated job {job.name!r} "
                    f"({longest.removesuffix(POD_SUFFIX)}-xxxxx) would exceed 63 characters; shorten the name or the replicated job's"
                )
        return name

    def _job_template(self, job: ReplicatedJob) -> dict[str, Any]:
        _, pods = self._counts[job.name]
        pod = self._pods[job.name]
        template: dict[str, Any] = {"spec": {**pod.pod_spec(self._mounts), "restartPolicy": "Never"}}
        metadata: dict[str, Any] = {}
        if pod.labels:
            metadata["labels"] = dict(pod.labels)
        if self._annotations.get(job.name):
            metadata["annotations"] = dict(self._annotations[job.name])
        if metadata:
            template = {"metadata": metadata, **template}
        return {
            "spec": {
                "parallelism": pods,
                "completions": pods,
                "completionMode": "Indexed",
                "backoffLimit": require_whole(
                    _KIND, f"replicated job {job.name!r} backoff_limit", job.backoff_limit, minimum=0
                ),
                "template": template,
            }
        }

    def _spec(self) -> dict[str, Any]:
        """The JobSet spec, with ``managedBy: kueue.x-k8s.io/multikueue`` when the job is queued on a
        MultiKueue manager (:func:`~trainops.constructs._core.kueue.multikueue_managed_by`; JobSet
        v0.12.0 ``JobSetSpec.ManagedBy``)."""
        operator, targets = self._success
        spec = jobset_spec(
            _KIND,
            [
                JobTemplate(
                    job.name,
                    self._counts[job.name][0],
                    self._counts[job.name][1],
                    self._job_template(job),
                    tuple(job.depends_on),
                )
                for job in self._jobs
            ],
            startup_order=self._startup,
            success=(operator, targets) if (targets or operator != "All") else None,
            failure=self._failure,
            network=self._network,
        )
        if self._devices is not None:
            self._devices.apply({"apiVersion": API_VERSION, "kind": _KIND, "spec": spec})
        managed_by = multikueue_managed_by(self._cluster, self._labels)
        if managed_by is not None:
            spec["managedBy"] = managed_by
        return spec
