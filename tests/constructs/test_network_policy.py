"""NetworkPolicy: default-deny, allow rules (DNS, serving, scraping), prop errors, parity with upstream."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import raw_object, upstream_doc, validate_docs, without_paths

from trainops.constructs import ModelServer, NetworkPolicy
from trainops.constructs.network_policy import Peer, Port, Rule
from trainops.core.cluster import Cluster

_WAVE = {"metadata.annotations.argocd.argoproj.io/sync-wave": "-2"}  # synced with the Namespace


def test_defaults(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    NetworkPolicy(chart, "Deny")
    docs = synth(chart)
    text = docs["NetworkPolicy/default-deny"]
    golden("network_policy/defaults.yaml", text)
    spec = yaml.safe_load(text)["spec"]
    # Every pod of the namespace, both directions restricted, nothing allowed.
    assert spec == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    validate_docs(cli, tmp_path, docs)


def test_custom(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    NetworkPolicy(
        chart,
        "Custom",
        name="trainer-egress",
        pod_labels={"training.kubeflow.org/job-role": "master"},
        policy_types=["Egress"],
        egress=[
            Rule(peers=(Peer(cidr="10.0.0.0/8", except_cidrs=("10.96.0.0/12",)),), ports=(Port(443),)),
            Rule(
                peers=(Peer(namespace="ml-data", pod_labels={"app": "minio"}),),
                ports=(Port(9000, end_port=9001),),
            ),
        ],
        labels={"team": "vision"},
    )
    docs = synth(chart)
    text = docs["NetworkPolicy/trainer-egress"]
    golden("network_policy/custom.yaml", text)
    spec = yaml.safe_load(text)["spec"]
    assert spec["policyTypes"] == ["Egress"] and "ingress" not in spec
    assert spec["egress"][1]["to"] == [
        {
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ml-data"}},
            "podSelector": {"matchLabels": {"app": "minio"}},
        }
    ]
    assert spec["egress"][1]["ports"] == [{"endPort": 9001, "port": 9000, "protocol": "TCP"}]
    validate_docs(cli, tmp_path, docs)


def test_allow_rules(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Any
) -> None:
    server = ModelServer(
        chart, "Server", cluster=test_cluster, name="resnet", image="tensorflow/serving:2.14.1"
    )
    NetworkPolicy(chart, "Deny")
    NetworkPolicy.allow_dns(chart, "Dns")
    NetworkPolicy.allow_serving(chart, "Serving", target=server)
    NetworkPolicy.allow_scrape(chart, "Scrape", cluster=test_cluster, ports=["http"])
    docs = synth(chart)
    golden("network_policy/allow_serving.yaml", docs["NetworkPolicy/resnet-allow-serving"])
    dns = yaml.safe_load(docs["NetworkPolicy/allow-dns"])["spec"]
    serving = yaml.safe_load(docs["NetworkPolicy/resnet-allow-serving"])["spec"]
    scrape = yaml.safe_load(docs["NetworkPolicy/allow-prometheus-scrape"])["spec"]
    # DNS: egress to kube-dns on 53/UDP and 53/TCP only.
    assert dns["egress"][0]["ports"] == [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]
    # Serving: only the server's pods, only its named port, from the ingress controller and the namespace.
    deployment = yaml.safe_load(docs["Deployment/resnet"])
    assert serving["podSelector"] == deployment["spec"]["selector"]
    assert serving["ingress"][0]["ports"] == [{"port": "http", "protocol": "TCP"}]
    assert serving["ingress"][0]["from"] == [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ingress-nginx"}}},
        {"podSelector": {}},
    ]
    # Scrape: from the cluster's Prometheus namespace.
    assert scrape["ingress"][0]["from"] == [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}
    ]
    validate_docs(cli, tmp_path, docs)


def test_allow_serving_takes_cluster_ingress_namespace(chart: Any, synth: Any) -> None:
    cluster = Cluster(name="c", kubernetes_version="1.34", ingress_namespace="istio-system")
    server = ModelServer(chart, "Server", cluster=cluster, name="resnet", image="tensorflow/serving:2.14.1")
    NetworkPolicy.allow_serving(chart, "Serving", target=server, same_namespace=False)
    spec = yaml.safe_load(synth(chart)["NetworkPolicy/resnet-allow-serving"])["spec"]
    assert spec["ingress"][0]["from"] == [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "istio-system"}}}
    ]


def test_allow_serving_from_nobody_is_refused(chart: Any, test_cluster: Cluster) -> None:
    server = ModelServer(
        chart, "Server", cluster=test_cluster, name="resnet", image="tensorflow/serving:2.14.1"
    )
    with pytest.raises(
        ValueError, match=r"^NetworkPolicy from_namespaces=\[\]: with same_namespace=False nobody"
    ):
        NetworkPolicy.allow_serving(chart, "Serving", target=server, from_namespaces=[], same_namespace=False)


def test_allow_scrape_needs_prometheus_operator(chart: Any) -> None:
    bare = Cluster(name="bare", kubernetes_version="1.34")
    with pytest.raises(
        ValueError, match=r"^NetworkPolicy 'allow-prometheus-scrape': cluster 'bare' does not list"
    ):
        NetworkPolicy.allow_scrape(chart, "Scrape", cluster=bare)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"policy_types": []}, "NetworkPolicy policy_types=[]: must be Ingress and/or Egress, each once"),
        (
            {"policy_types": ["Ingres"]},
            "NetworkPolicy policy_types=['Ingres']: must be Ingress and/or Egress",
        ),
        (
            {"policy_types": ["Ingress", "Ingress"]},
            "NetworkPolicy policy_types=['Ingress', 'Ingress']: must be",
        ),
        (
            {"policy_types": ["Ingress"], "egress": [Rule()]},
            "NetworkPolicy egress: rules given but policy_types=['Ingress'] lacks Egress",
        ),
        ({"ingress": [{"from": []}]}, "NetworkPolicy ingress: {'from': []} is not a Rule"),
        (
            {"pod_labels": {"role": "a b"}},
            "NetworkPolicy pod_labels: label role='a b' is not a valid label value",
        ),
        ({"labels": {"a": "b c"}}, "NetworkPolicy labels: label a='b c' is not a valid label value"),
        ({"name": "Deny"}, "NetworkPolicy name='Deny': must be a DNS-1123 label"),
    ],
)
def test_bad_prop(chart: Any, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        NetworkPolicy(chart, "Policy", **props)


@pytest.mark.parametrize(
    ("kind", "props", "message"),
    [
        (Peer, {}, "NetworkPolicy Peer: give pod_labels, namespace_labels, namespace or cidr"),
        (
            Peer,
            {"cidr": "10.0.0.0/8", "pod_labels": {}},
            "NetworkPolicy Peer cidr='10.0.0.0/8': an IP block cannot",
        ),
        (
            Peer,
            {"namespace": "a", "namespace_labels": {}},
            "NetworkPolicy Peer namespace='a': not together with",
        ),
        (Peer, {"namespace": "A"}, "NetworkPolicy Peer namespace='A': must be a DNS-1123 label"),
        (Peer, {"cidr": "10.0.0.1/8"}, "NetworkPolicy Peer cidr: '10.0.0.1/8' is not a CIDR network address"),
        (
            Peer,
            {"cidr": "10.0.0.0/8", "except_cidrs": ("11.0.0.0/16",)},
            "NetworkPolicy Peer except_cidrs: '11.0.0.0/16' is not inside",
        ),
        (
            Peer,
            {"pod_labels": {"role": "a b"}},
            "NetworkPolicy Peer pod_labels: label role='a b' is not a valid label value",
        ),
        (
            Peer,
            {"namespace": "a", "except_cidrs": ("1.0.0.0/8",)},
            "NetworkPolicy Peer except_cidrs=['1.0.0.0/8']: needs a cidr",
        ),
        (Port, {"port": 0}, "NetworkPolicy Port port=0: must be at least 1"),
        (Port, {"port": 70000}, "NetworkPolicy Port port=70000: must be at most 65535"),
        (Port, {"port": "HTTP"}, "NetworkPolicy Port port='HTTP': not a port name"),
        (Port, {"port": "metrics-port-long"}, "NetworkPolicy Port port='metrics-port-long': not a port name"),
        (Port, {"protocol": "ICMP"}, "NetworkPolicy Port protocol='ICMP': must be one of TCP, UDP, SCTP"),
        (Port, {"port": "http", "end_port": 90}, "NetworkPolicy Port end_port=90: needs a numeric port"),
        (Port, {"port": 100, "end_port": 90}, "NetworkPolicy Port end_port=90: must be at least port=100"),
    ],
)
def test_bad_rule_part(kind: Any, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        kind(**props)


@pytest.mark.parametrize(
    ("example", "props"),
    [
        ("network-policy-default-deny-all.yaml", {"name": "default-deny-all"}),
        (
            "network-policy-default-deny-ingress.yaml",
            {"name": "default-deny-ingress", "policy_types": ["Ingress"]},
        ),
    ],
)
def test_parity_kubernetes_website_default_deny(chart: Any, example: str, props: dict[str, Any]) -> None:
    expected = upstream_doc(f"k8s-website/content/en/examples/service/networking/{example}")
    NetworkPolicy(chart, "Policy", **props)
    ours = without_paths(
        raw_object(chart, f"NetworkPolicy/{props['name']}"), {"metadata.namespace": "ml-test", **_WAVE}
    )
    assert ours == expected


def test_parity_kubernetes_website_networkpolicy(chart: Any) -> None:
    expected = upstream_doc("k8s-website/content/en/examples/service/networking/networkpolicy.yaml")
    NetworkPolicy(
        chart,
        "Policy",
        name="test-network-policy",
        pod_labels={"role": "db"},
        ingress=[
            Rule(
                peers=(
                    Peer(cidr="172.17.0.0/16", except_cidrs=("172.17.1.0/24",)),
                    Peer(namespace_labels={"project": "myproject"}),
                    Peer(pod_labels={"role": "frontend"}),
                ),
                ports=(Port(6379),),
            )
        ],
        egress=[Rule(peers=(Peer(cidr="10.0.0.0/24"),), ports=(Port(5978),))],
    )
    ours = without_paths(
        raw_object(chart, "NetworkPolicy/test-network-policy"), {"metadata.namespace": "ml-test", **_WAVE}
    )
    # Upstream deploys to namespace "default"; trainops takes the Chart's namespace.
    assert ours == without_paths(expected, {"metadata.namespace": "default"})
