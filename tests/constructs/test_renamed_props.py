"""Renamed props and constructs (issue 28 point 5): one name per concept, old names one release as
deprecated aliases that give the same output."""

from __future__ import annotations

from typing import Any

import pytest

from trainops.cluster import Cluster
from trainops.constructs import (
    DataVolume,
    JAXJob,
    MPIJob,
    PaddleJob,
    PyTorchJob,
    TFJob,
    TrainingJob,
    VolumeClaim,
    XGBoostJob,
)


def _chart() -> Any:
    """A new Chart in a new App, as the ``chart`` fixture makes one."""
    from cdk8s import App, Chart

    from trainops.nodeenv import configure_node

    configure_node()
    return Chart(App(), "test", namespace="ml-test", disable_resource_name_hashes=True)


_JOBS = [
    (PyTorchJob, "gpus_per_replica", {"workers": 2}),
    (TFJob, "gpus_per_replica", {"workers": 2}),
    (PaddleJob, "gpus_per_replica", {"workers": 2}),
    (JAXJob, "gpus_per_replica", {"workers": 2}),
    (XGBoostJob, "gpus_per_replica", {"workers": 2}),
    (MPIJob, "gpus_per_worker", {"workers": 2, "command": ["python", "train.py"]}),
]


@pytest.mark.parametrize(("construct", "old", "props"), _JOBS, ids=[c.__name__ for c, _, _ in _JOBS])
def test_old_gpu_prop_warns_and_gives_the_same_job(
    construct: Any, old: str, props: dict[str, Any], synth: Any, test_cluster: Cluster
) -> None:
    new_chart, old_chart = _chart(), _chart()
    new = construct(
        new_chart, "Job", cluster=test_cluster, name="j", image="x.io/t:1", gpus_per_node=2, **props
    )
    with pytest.warns(DeprecationWarning, match=f"{old}= is deprecated .*: use gpus_per_node="):
        before = construct(
            old_chart, "Job", cluster=test_cluster, name="j", image="x.io/t:1", **{old: 2}, **props
        )
    assert before.name == new.name
    assert synth(old_chart) == synth(new_chart)


def test_old_and_new_name_together_is_an_error(chart: Any, test_cluster: Cluster) -> None:
    with pytest.raises(
        TypeError, match="PyTorchJob gpus_per_replica=1: renamed to gpus_per_node, which is also given"
    ):
        PyTorchJob(
            chart,
            "Job",
            cluster=test_cluster,
            name="j",
            image="x.io/t:1",
            gpus_per_replica=1,
            gpus_per_node=1,
        )


def test_training_job_nodes_is_num_nodes(chart: Any, test_cluster: Cluster) -> None:
    with pytest.warns(DeprecationWarning, match="TrainingJob nodes= is deprecated .*: use num_nodes="):
        job = TrainingJob(chart, "Job", cluster=test_cluster, name="j", image="x.io/t:1", nodes=3)
    assert job.kind == "PyTorchJob"
    with pytest.raises(ValueError, match="TrainingJob num_nodes=0: must be a whole number of at least 1"):
        TrainingJob(chart, "Other", cluster=test_cluster, name="k", image="x.io/t:1", num_nodes=0)


def test_data_volume_is_a_deprecated_volume_claim(synth: Any, test_cluster: Cluster) -> None:
    new_chart, old_chart = _chart(), _chart()
    VolumeClaim(new_chart, "Data", cluster=test_cluster, name="data", size="10Gi")
    with pytest.warns(DeprecationWarning, match="DataVolume is deprecated .*: use VolumeClaim"):
        old = DataVolume(old_chart, "Data", cluster=test_cluster, name="data", size="10Gi")
    assert isinstance(old, VolumeClaim)
    assert synth(old_chart) == synth(new_chart)
