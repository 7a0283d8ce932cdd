"""More parity with upstream training examples: the same workload built with trainops constructs
equals the upstream object after normalisation; every intended difference is listed per test."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.constructs import (
    Algorithm,
    ClusterQueue,
    Experiment,
    FlavorQuota,
    LocalQueue,
    Objective,
    Parameter,
    PyTorchJob,
    ResourceFlavor,
)
from trainops.constructs._core.base import emit
from trainops.core.cluster import Cluster, Taint

pytestmark = needs_shared


def _upstream(path: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((EXAMPLES / path).read_text()) if d]


@pytest.fixture(scope="module")
def kueue_cluster(test_cluster: Cluster) -> Cluster:
    return replace(test_cluster, operators={**test_cluster.operators, "kueue": "v0.19.2", "katib": "v0.19.0"})


def _by_kind(synth: Any, chart: Any) -> dict[str, dict[str, Any]]:
    return {k.split("/")[0]: yaml.safe_load(t) for k, t in synth(chart).items()}


def test_kueue_quick_start(chart: Any, synth: Any, kueue_cluster: Cluster) -> None:
    """kueue site/static/examples/getting-started/quick-start-setup.yaml.

    Intended differences: the ClusterQueue states its preemption and queueing strategy (Kueue's
    defaults are Never/Never and BestEffortFIFO; trainops reclaims lent quota from lower priorities);
    the LocalQueue lives in the Chart's namespace, not ``default``; sync waves and labels.
    """
    flavor_up, queue_up, local_up = _upstream(
        "kueue/site/static/examples/getting-started/quick-start-setup.yaml"
    )
    flavor = ResourceFlavor(chart, "F", cluster=kueue_cluster, name="default-flavor")
    queue = ClusterQueue(
        chart,
        "Q",
        cluster=kueue_cluster,
        name="cluster-queue",
        flavors=[FlavorQuota(flavor, cpu="9", memory="9Gi")],
    )
    LocalQueue(chart, "L", cluster=kueue_cluster, name="user-queue", cluster_queue=queue)
    ours = _by_kind(synth, chart)
    assert ours["ResourceFlavor"]["apiVersion"] == flavor_up["apiVersion"]
    assert ours["ResourceFlavor"]["spec"] == flavor_up.get("spec", {})
    expected_groups = queue_up["spec"]["resourceGroups"]
    for group in expected_groups:
        for f in group["flavors"]:
            for r in f["resources"]:
                r["nominalQuota"] = str(r["nominalQuota"])
    assert ours["ClusterQueue"]["spec"]["resourceGroups"] == expected_groups
    assert ours["ClusterQueue"]["spec"]["namespaceSelector"] == queue_up["spec"]["namespaceSelector"]
    assert ours["LocalQueue"]["spec"] == local_up["spec"]


def test_kueue_spot_flavor_with_tolerations(chart: Any, synth: Any, kueue_cluster: Cluster) -> None:
    """kueue site/static/examples/admin/resource-flavor-tolerations.yaml: no intended difference in spec."""
    [upstream] = _upstream("kueue/site/static/examples/admin/resource-flavor-tolerations.yaml")
    ResourceFlavor(
        chart,
        "Spot",
        cluster=kueue_cluster,
        name="spot",
        node_labels={"instance-type": "spot"},
        tolerations=(Taint("spot-taint"),),
    )
    assert _by_kind(synth, chart)["ResourceFlavor"]["spec"] == upstream["spec"]


def test_pytorchjob_simple(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    """training-operator examples/pytorch/simple.yaml.

    Intended differences: a run-once name; no ``imagePullPolicy: Always`` (the image is pinned);
    resources (requests = limits), the secure pod defaults and ``/dev/shm`` (two pods); an explicit
    runPolicy (cleanPodPolicy Running, backoffLimit 3).
    """
    [upstream] = _upstream("training-operator/examples/pytorch/simple.yaml")
    master = upstream["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]
    job = PyTorchJob(
        chart,
        "J",
        cluster=test_cluster,
        name="pytorch-simple",
        image=master["image"],
        command=master["command"],
        workers=1,
    )
    ours = _by_kind(synth, chart)["PyTorchJob"]
    assert ours["metadata"]["name"].startswith("pytorch-simple-") and ours["metadata"]["name"] == job.name
    for role, spec in upstream["spec"]["pytorchReplicaSpecs"].items():
        mine = ours["spec"]["pytorchReplicaSpecs"][role]
        assert (mine["replicas"], mine["restartPolicy"]) == (spec["replicas"], spec["restartPolicy"])
        ours_c, up_c = mine["template"]["spec"]["containers"][0], spec["template"]["spec"]["containers"][0]
        assert {k: ours_c[k] for k in ("name", "image", "command")} == {
            k: up_c[k] for k in ("name", "image", "command")
        }


def test_katib_random_with_a_job_trial(chart: Any, synth: Any, kueue_cluster: Cluster) -> None:
    """katib examples/v1beta1/hp-tuning/random.yaml.

    Intended differences: a run-once name; explicit success/failure conditions (Katib's defaulter
    adds the same); trial parameters without descriptions; quantities in canonical form
    (cpu ``0.5`` is written ``500m``).
    """
    [upstream] = _upstream("katib/examples/v1beta1/hp-tuning/random.yaml")
    trial_spec = upstream["spec"]["trialTemplate"]["trialSpec"]

    def trial(scope: Any) -> None:
        emit(scope, {**trial_spec, "metadata": {"name": "trial"}})

    Experiment(
        chart,
        "E",
        cluster=kueue_cluster,
        name="random",
        objective=Objective("minimize", "loss", goal=0.001),
        algorithm=Algorithm("random"),
        parameters=[Parameter.double("lr", 0.01, 0.05), Parameter.double("momentum", 0.5, 0.9)],
        trial=trial,
        trial_parameters={"learningRate": "lr", "momentum": "momentum"},
    )
    ours = _by_kind(synth, chart)["Experiment"]["spec"]
    for key in (
        "objective",
        "algorithm",
        "parallelTrialCount",
        "maxTrialCount",
        "maxFailedTrialCount",
        "parameters",
    ):
        assert ours[key] == upstream["spec"][key], key
    container = ours["trialTemplate"]["trialSpec"]["spec"]["template"]["spec"]["containers"][0]
    assert container.pop("resources") == {"limits": {"memory": "1Gi", "cpu": "500m"}}
    trial_spec["spec"]["template"]["spec"]["containers"][0].pop("resources")
    assert ours["trialTemplate"]["trialSpec"] == trial_spec
    assert (
        ours["trialTemplate"]["primaryContainerName"]
        == upstream["spec"]["trialTemplate"]["primaryContainerName"]
    )
