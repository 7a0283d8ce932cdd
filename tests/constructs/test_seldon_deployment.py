"""SeldonDeployment (optional, Seldon Core v1.17.1): golden manifests, canary traffic, prop errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import validate_docs

from trainops.constructs import SeldonDeployment
from trainops.constructs.seldon_deployment import __doc__ as module_doc
from trainops.core.cluster import Cluster

SELDON = Cluster(name="legacy", kubernetes_version="1.34", operators={"seldon-core": "v1.17.1"})


def test_seed_scenario_with_canary(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    # The seed's SeldonDeployment (gs:// model, 3 replicas) with a 10 % canary of the next model.
    SeldonDeployment(
        chart,
        "Seldon",
        cluster=SELDON,
        name="my-model",
        implementation="TENSORFLOW_SERVER",
        model_uri="gs://my-model-bucket/model",
        replicas=3,
        protocol="tensorflow",
        credentials_secret="model-bucket",
        canary_model_uri="gs://my-model-bucket/model-v2",
        canary_traffic_percent=10,
    )
    docs = synth(chart)
    text = docs["SeldonDeployment/my-model"]
    golden("seldon_deployment/canary.yaml", text)
    predictors = yaml.safe_load(text)["spec"]["predictors"]
    # Traffic sums to 100 as Seldon's webhook requires; each model container is named like its graph node.
    assert [(p["name"], p["traffic"]) for p in predictors] == [("default", 90), ("canary", 10)]
    assert all(
        p["componentSpecs"][0]["spec"]["containers"][0]["name"] == p["graph"]["name"] for p in predictors
    )
    validate_docs(cli, tmp_path, docs)


def test_without_canary_no_traffic_split(chart: Any, synth: Any) -> None:
    seldon = SeldonDeployment(
        chart,
        "Seldon",
        cluster=SELDON,
        name="iris",
        implementation="SKLEARN_SERVER",
        model_uri="s3://models/iris",
    )
    (predictor,) = yaml.safe_load(synth(chart)["SeldonDeployment/iris"])["spec"]["predictors"]
    assert "traffic" not in predictor and seldon.predictors == ("default",)


def test_docstring_states_the_licence_change() -> None:
    assert "Business Source License" in (SeldonDeployment.__doc__ or "")
    assert "1.17.1" in (SeldonDeployment.__doc__ or "") and "InferenceService" in (module_doc or "")


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"implementation": "MODEL_SERVER"},
            "SeldonDeployment implementation='MODEL_SERVER': must be one of",
        ),
        ({"model_uri": "ftp://m"}, "SeldonDeployment model_uri='ftp://m': must start with one of"),
        ({"model_uri": "gs://"}, "SeldonDeployment model_uri='gs://': names no bucket or path"),
        ({"protocol": "grpc"}, "SeldonDeployment protocol='grpc': must be 'seldon', 'tensorflow' or 'v2'"),
        ({"replicas": 0}, "SeldonDeployment replicas=0: must be at least 1"),
        (
            {"canary_model_uri": "gs://b/m2", "canary_traffic_percent": 100},
            "SeldonDeployment canary_traffic_percent=100: must be at most 99",
        ),
        (
            {"canary_model_uri": "gs://b/m2", "canary_traffic_percent": 0},
            "SeldonDeployment canary_traffic_percent=0: must be at least 1",
        ),
        ({"credentials_secret": "Bucket"}, "SeldonDeployment credentials_secret='Bucket'"),
        ({"memory": "1.5"}, "SeldonDeployment memory='1.5': must be a whole number of bytes"),
    ],
)
def test_bad_prop(chart: Any, props: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {"name": "m", "implementation": "SKLEARN_SERVER", "model_uri": "gs://b/m"}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        SeldonDeployment(chart, "Seldon", cluster=SELDON, **{**base, **props})


def test_cluster_without_seldon_is_refused(chart: Any, test_cluster: Cluster) -> None:
    with pytest.raises(
        ValueError, match=r"^SeldonDeployment cluster='test': the cluster does not list seldon-core"
    ):
        SeldonDeployment(
            chart,
            "Seldon",
            cluster=test_cluster,
            name="m",
            implementation="SKLEARN_SERVER",
            model_uri="gs://b/m",
        )
