"""DataPrepJob: golden manifest, run-once naming, credentials by reference only, validation, prop errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.cluster import Cluster
from trainops.constructs import DataPrepJob, VolumeClaim
from trainops.pipeline import Target, Text, check

RCLONE = "docker.io/rclone/rclone:1.68.2"
COPY = ["rclone", "copy", "--progress", "$(SOURCE_URI)", "$(TARGET_DIR)"]


def _build(chart: Any, cluster: Cluster, **kwargs: Any) -> DataPrepJob:
    volume = VolumeClaim(
        chart, "Data", cluster=cluster, name="imagenet", size="2Ti", access_mode="ReadWriteMany"
    )
    props: dict[str, Any] = {
        "name": "fetch-imagenet",
        "image": RCLONE,
        "command": COPY,
        "source": "s3://datasets/imagenet/",
        "volume": volume,
    }
    return DataPrepJob(chart, "Prep", cluster=cluster, **{**props, **kwargs})


def test_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster, schema_cache: Path) -> None:
    job = _build(chart, test_cluster, credentials_secret="s3-readonly")
    docs = synth(chart)
    text = docs[f"Job/{job.name}"]
    golden("data_prep_job/defaults.yaml", text)
    doc = yaml.safe_load(text)
    assert job.name.startswith("fetch-imagenet-") and len(job.name) == len("fetch-imagenet") + 7
    pod = doc["spec"]["template"]["spec"]
    [container] = pod["containers"]
    # Credentials only by Secret reference; source and target as env; no TTL under Argo CD.
    assert container["envFrom"] == [{"secretRef": {"name": "s3-readonly"}}]
    assert {e["name"]: e["value"] for e in container["env"]} == {
        "SOURCE_URI": "s3://datasets/imagenet/",
        "TARGET_DIR": "/data",
    }
    assert "ttlSecondsAfterFinished" not in doc["spec"] and pod["restartPolicy"] == "OnFailure"
    assert pod["volumes"][-1] == {"name": "imagenet", "persistentVolumeClaim": {"claimName": "imagenet"}}
    result = check(
        Target.of_cluster(test_cluster, schema_cache), [Text(f"{k}.yaml", t) for k, t in docs.items()]
    )
    assert result.findings == []


def test_a_new_source_is_a_new_run(chart: Any, test_cluster: Cluster) -> None:
    first = _build(chart, test_cluster)
    second = DataPrepJob(
        chart,
        "Prep2",
        cluster=test_cluster,
        name="fetch-imagenet",
        image=RCLONE,
        command=COPY,
        source="s3://datasets/imagenet-v2/",
        volume="imagenet",
    )
    assert first.name != second.name and second.source == "s3://datasets/imagenet-v2/"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"source": "/local/path"}, "DataPrepJob source='/local/path': must be an object-storage URI"),
        ({"command": []}, r"DataPrepJob command=\[\]: must not be empty"),
        ({"command": "rclone copy"}, "must be a sequence of strings"),
        ({"env": {"SOURCE_URI": "x"}}, "DataPrepJob env: SOURCE_URI is set by the construct"),
        ({"credentials_secret": "My Secret"}, "DataPrepJob credentials_secret='My Secret'"),
        ({"image": "rclone"}, "DataPrepJob image='rclone'"),
        ({"name": "x" * 57}, "at most 56 characters"),
        ({"path": "data"}, "DataPrepJob volume path='data'"),
    ],
)
def test_prop_errors(chart: Any, test_cluster: Cluster, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _build(chart, test_cluster, **kwargs)


def test_queued_on_kueue(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    from dataclasses import replace

    kueue = replace(test_cluster, operators={**test_cluster.operators, "kueue": "v0.19.2"})
    job = _build(chart, kueue, queue="data-prep")
    doc = yaml.safe_load(synth(chart)[f"Job/{job.name}"])
    assert doc["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "data-prep"
