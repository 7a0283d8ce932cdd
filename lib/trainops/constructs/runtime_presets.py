"""Presets of the common Kubeflow Trainer v2 runtimes, written with trainops's secure defaults: the
``ClusterTrainingRuntime`` s Trainer ships (``torch-distributed``, ``deepspeed-distributed``) and an
OpenMPI runtime (``mpi-distributed``), each a :class:`~trainops.constructs.TrainingRuntime` whose
JobSet template is checked as the ``JobSet`` construct's.

Each preset keeps Trainer's runtime name and shape, so that a ``TrainJob`` with
``runtime="torch-distributed"`` finds it: torch has one ``node`` replicated job (the trainer step);
DeepSpeed and MPI have ``node`` pods running sshd and a ``launcher`` that starts once the nodes are
ready and completes the set (DeepSpeed also runs the launcher as a node, ``runLauncherAsNode``).
Trainops adds what the upstream files leave out: non-root security contexts, resources, GPU placement,
``/dev/shm`` and ``/tmp``, an optional gang ``podGroupPolicy`` and exclusive placement per topology
domain.

Source: https://github.com/kubeflow/trainer/tree/v2.3.0/manifests/base/runtimes
(``torch_distributed.yaml``, ``deepspeed_distributed.yaml``); the MPI runtime follows the DeepSpeed
one with ``runLauncherAsNode: false`` (the removed ``mpi_distributed.yaml``, kubeflow/trainer#2545).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from trainops.constructs._core.base import Construct
from trainops.constructs.training_runtime import Framework, Gang, TrainingRuntime
from trainops.core.cluster import Cluster

#: Preset name → the runtime's framework (its ML policy).
PRESETS: dict[str, Framework] = {
    "torch-distributed": "torch",
    "deepspeed-distributed": "deepspeed",
    "mpi-distributed": "mpi",
}
PresetName = Literal["torch-distributed", "deepspeed-distributed", "mpi-distributed"]


def runtime_preset(
    scope: Construct,
    id: str,
    *,
    preset: PresetName,
    cluster: Cluster,
    image: str,
    command: Sequence[str] | None = None,
    gpus_per_node: int = 0,
    cpu: str = "2",
    memory: str = "8Gi",
    gang: Gang | None = None,
    exclusive_topology: str | None = None,
) -> TrainingRuntime:
    """A ClusterTrainingRuntime named ``preset`` with that preset's shape (see the module docstring).

    Args:
        scope: the parent construct (a Chart).
        id: construct id.
        preset: ``torch-distributed`` | ``deepspeed-distributed`` | ``mpi-distributed``.
        cluster: target; must list ``trainer`` in ``operators``.
        image: the runtime's default image (a TrainJob's ``image`` overrides it), with a tag or digest.
        command: default container command of the trainer step. Default: the image's.
        gpus_per_node: default whole GPUs per node. Default: 0.
        cpu: default cpu cores per node. Default: ``"2"``.
        memory: default memory bytes per node. Default: ``"8Gi"``.
        gang: ``coscheduling`` | ``volcano`` gang scheduling when Kueue does not admit the jobs, or
            ``None``. Default: ``None``.
        exclusive_topology: one node Job per domain of this topology level, or ``None``. Default: ``None``.

    Raises:
        ValueError: an unknown preset, quoting it; a bad prop (see :class:`TrainingRuntime`).
    """
    framework = PRESETS.get(preset) if isinstance(preset, str) else None
    if framework is None:
        raise ValueError(f"runtime_preset preset={preset!r}: must be one of {', '.join(PRESETS)}")
    return TrainingRuntime(
        scope,
        id,
        cluster=cluster,
        name=preset,
        image=image,
        framework=framework,
        command=command,
        gpus_per_node=gpus_per_node,
        cpu=cpu,
        memory=memory,
        gang=gang,
        exclusive_topology=exclusive_topology,
    )
