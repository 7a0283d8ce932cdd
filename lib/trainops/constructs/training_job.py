"""``TrainingJob``: one framework-neutral PyTorch training description, emitted as the API the
target cluster runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from trainops.constructs._core.base import Construct
from trainops.constructs._core.props import renamed_props
from trainops.constructs._core.protocols import ClaimSource
from trainops.constructs._core.topology import TopologyPlacement
from trainops.constructs.kubeflow import RunPolicy
from trainops.constructs.pytorch_job import PyTorchJob
from trainops.constructs.train_job import OPERATOR as TRAINER
from trainops.constructs.train_job import TrainJob
from trainops.core.cluster import Cluster

_KIND = "TrainingJob"
#: The Training Operator v1 (kubeflow.org/v1 PyTorchJob).
TRAINING_OPERATOR = "training-operator"


class TrainingJob(Construct):
    """Distributed PyTorch training on ``num_nodes`` pods of ``gpus_per_node`` GPUs, whatever the
    cluster runs: a Kubeflow Trainer v2 ``TrainJob`` (``torch-distributed`` runtime) on a cluster
    that lists ``trainer`` in its operators, else a Training Operator v1 ``PyTorchJob`` (a Master
    plus ``num_nodes - 1`` Workers, torchrun's usual layout) on one that lists ``training-operator``.
    Trainer v2 wins when a cluster runs both (the v1 operator is superseded by it).

    Both emit the same container command, resources (requests = limits), GPU placement, secure
    defaults, ``/dev/shm`` sizing and mounts; ``queue`` sets the Kueue queue label. ``job`` is the
    emitted construct, ``kind``/``api_version``/``name`` are its.

    Args:
        scope: the parent construct (a Chart with a namespace).
        id: construct id.
        cluster: target; must run Trainer v2 or the Training Operator v1.
        name: base name (DNS-1035 label; at most 40 characters so that both forms fit).
        image: training image with a tag or digest.
        command: the training command (e.g. ``torchrun ... train.py``). Default: the image's.
        args: its arguments. Default: none.
        num_nodes: pods. Default: 1.
        gpus_per_node: whole GPUs per pod. Default: 0.
        cpu: cpu cores per pod (quantity string). Default: ``"2"``.
        memory: memory bytes per pod (quantity string). Default: ``"8Gi"``.
        env: environment variables, in order. Default: none.
        active_deadline_seconds: wall-clock limit in seconds, or ``None``. Default: ``None``.
        queue: Kueue LocalQueue name, or ``None``. Default: ``None``.
        priority: Kueue WorkloadPriorityClass name (needs ``queue``), or ``None``. Default: ``None``.
        placement: where the pods sit in the cluster topology (needs ``queue``), or ``None``.
            Default: ``None``.

    Raises:
        ValueError: a bad prop, or a cluster that runs neither operator (naming the cluster and
            the APIs it lacks).

    Source: https://www.kubeflow.org/docs/components/trainer/operator-guides/migration/
    """

    @renamed_props(_KIND, nodes="num_nodes")
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        image: str,
        command: Sequence[str] | None = None,
        args: Sequence[str] | None = None,
        num_nodes: int = 1,
        gpus_per_node: int = 0,
        cpu: str = "2",
        memory: str = "8Gi",
        env: Mapping[str, str] | None = None,
        active_deadline_seconds: int | None = None,
        queue: str | None = None,
        priority: str | None = None,
        placement: TopologyPlacement | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._job: TrainJob | PyTorchJob
        if cluster.has_operator(TRAINER):
            self._job = TrainJob(
                self,
                "TrainJob",
                cluster=cluster,
                name=name,
                image=image,
                command=command,
                args=args,
                num_nodes=num_nodes,
                gpus_per_node=gpus_per_node,
                cpu=cpu,
                memory=memory,
                env=env,
                active_deadline_seconds=active_deadline_seconds,
                queue=queue,
                priority=priority,
                placement=placement,
            )
        elif cluster.has_operator(TRAINING_OPERATOR):
            if isinstance(num_nodes, bool) or not isinstance(num_nodes, int) or num_nodes < 1:
                raise ValueError(f"{_KIND} num_nodes={num_nodes!r}: must be a whole number of at least 1")
            self._job = PyTorchJob(
                self,
                "PyTorchJob",
                cluster=cluster,
                name=name,
                image=image,
                command=command,
                args=args,
                master=True,
                workers=num_nodes - 1,
                gpus_per_node=gpus_per_node,
                cpu=cpu,
                memory=memory,
                env=env,
                run_policy=RunPolicy(active_deadline_seconds=active_deadline_seconds),
                queue=queue,
                priority=priority,
                placement=placement,
            )
        else:
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: needs Kubeflow Trainer v2 (operator 'trainer', "
                "trainer.kubeflow.org/v1alpha1 TrainJob) or the Training Operator v1 (operator "
                "'training-operator', kubeflow.org/v1 PyTorchJob); the cluster runs neither"
            )

    @property
    def job(self) -> TrainJob | PyTorchJob:
        """The emitted construct."""
        return self._job

    @property
    def kind(self) -> str:
        """``TrainJob`` or ``PyTorchJob``."""
        return self._job.kind

    @property
    def api_version(self) -> str:
        """``trainer.kubeflow.org/v1alpha1`` or ``kubeflow.org/v1``."""
        return self._job.api_version

    @property
    def name(self) -> str:
        """The emitted run-once name ``<name>-<hash6>``."""
        return self._job.name

    def mount(self, volume: ClaimSource | str, path: str, *, read_only: bool = False) -> None:
        """Mount a PersistentVolumeClaim at ``path`` in every training pod (see the emitted
        construct's ``mount``)."""
        self._job.mount(volume, path, read_only=read_only)
