"""``team-vision``: the vision team's namespace with a GPU quota, default limits and network policy.

Seed: the resource-management and security practices of the ML workloads guide (namespace
quotas, GPU allocation, network policies). The namespace enforces the restricted Pod Security
Standard; the quota caps requests, limits, GPUs, PVCs and storage; the LimitRange gives
containers without resources a default; the NetworkPolicies deny everything but DNS and the
cluster Prometheus' scrapes (the serving app adds its own ingress rule); the ``ci``
ServiceAccount may submit training jobs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import LimitRange, NetworkPolicy, ResourceQuota, Role, ServiceAccount, TeamNamespace

if TYPE_CHECKING:
    from cdk8s import Chart

#: The namespace of the vision team's apps.
NAMESPACE = "team-vision"


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the namespace, its quota, limits, network policies and CI account."""
    TeamNamespace(chart, "Namespace", cluster=cluster)
    ResourceQuota(
        chart,
        "Quota",
        cluster=cluster,
        cpu="128",
        memory="1Ti",
        limits_cpu="256",
        limits_memory="2Ti",
        gpus=16,
        pvcs=20,
        storage="20Ti",
    )
    LimitRange(chart, "Limits")
    NetworkPolicy(chart, "DefaultDeny")
    NetworkPolicy.allow_dns(chart, "Dns")
    NetworkPolicy.allow_scrape(chart, "Scrape", cluster=cluster)
    account = ServiceAccount(chart, "Ci", name="ci")
    Role.training_submitter(chart, "Submitter").bind(account)


APP = AppDef(
    name="team-vision",
    build=build,
    namespace=NAMESPACE,
    team="vision",
    description="Team namespace: GPU quota, limits, default-deny network policy, CI account",
)
