"""VolumeClaim: golden manifests, Argo CD protection and prop errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from trainops.cluster import Cluster
from trainops.constructs import VolumeClaim


def _doc(synth: Any, chart: Any, name: str) -> tuple[str, dict[str, Any]]:
    text = synth(chart)[f"PersistentVolumeClaim/{name}"]
    return text, yaml.safe_load(text)


def test_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    volume = VolumeClaim(chart, "Data", cluster=test_cluster, name="checkpoints", size="100Gi")
    text, doc = _doc(synth, chart, volume.name)
    golden("volume_claim/defaults.yaml", text)
    # Protected from prune/delete, synced in the workloads' wave (a WaitForFirstConsumer claim binds
    # only once its pod exists: argo-cd issue 12840), on the cluster's default class.
    annotations = doc["metadata"]["annotations"]
    assert annotations["argocd.argoproj.io/sync-options"] == "Prune=false,Delete=false"
    assert annotations["argocd.argoproj.io/sync-wave"] == "0"
    assert doc["spec"]["storageClassName"] == "standard-rwo" and doc["spec"]["accessModes"] == [
        "ReadWriteOnce"
    ]


def test_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    volume = VolumeClaim(
        chart,
        "Data",
        cluster=test_cluster,
        name="training-data",
        size="512000Mi",
        access_mode="ReadWriteMany",
        storage_role="shared",
        protect=False,
        labels={"data.example.com/set": "imagenet"},
    )
    text, doc = _doc(synth, chart, volume.claim_name)
    golden("volume_claim/custom.yaml", text)
    # Size in canonical form, shared class, unprotected: only the sync wave remains.
    assert doc["spec"]["resources"]["requests"]["storage"] == "500Gi" == volume.size
    assert doc["spec"]["storageClassName"] == "nfs" == volume.storage_class
    assert "argocd.argoproj.io/sync-options" not in doc["metadata"]["annotations"]


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "Data"}, "VolumeClaim name='Data': must be a DNS-1123 label"),
        ({"size": "lots"}, "VolumeClaim size='lots': 'lots' is not a quantity"),
        ({"size": "0"}, "VolumeClaim size='0': must be greater than zero"),
        ({"size": "100m"}, "VolumeClaim size='100m': must be a whole number of bytes"),
        (
            {"access_mode": "RWX"},
            "VolumeClaim access_mode='RWX': must be one of ReadWriteOnce, ReadWriteMany",
        ),
        (
            {"storage_role": "fast"},
            "VolumeClaim storage_role='fast': cluster 'test' has no storage class for role 'fast'",
        ),
        ({"labels": {"a": "-x"}}, "VolumeClaim labels: label a='-x' is not a valid label value"),
    ],
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    props = {"cluster": test_cluster, "name": "data", "size": "1Gi", **props}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        VolumeClaim(chart, "Data", **props)
