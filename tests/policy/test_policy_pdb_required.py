"""pdb-required on the shapes its fixtures leave out: a budget defined in a companion file (an
external object of the workload's name, as prometheus-operator's admission-webhook example ships
it), a single replica, and the option that turns the eviction-policy check off."""

from __future__ import annotations

from dataclasses import replace

from tests.policy.test_policy_rules import FACTS, run_rule
from trainops.core.cluster import ExternalObject

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: webhook, namespace: monitoring}
spec:
  replicas: 2
  selector: {matchLabels: {app: webhook}}
  template:
    metadata: {labels: {app: webhook}}
    spec:
      containers: [{name: webhook, image: quay.io/prometheus-operator/admission-webhook:v0.80.0}]
"""


def test_a_budget_in_a_companion_file_counts_by_name() -> None:
    facts = replace(FACTS, external=(ExternalObject("PodDisruptionBudget", "webhook", "monitoring"),))
    assert run_rule("pdb-required", DEPLOYMENT, facts=facts) == []
    assert [f.path for f in run_rule("pdb-required", DEPLOYMENT)] == ["$.spec.selector"]


def test_one_replica_needs_no_budget() -> None:
    assert run_rule("pdb-required", DEPLOYMENT.replace("replicas: 2", "replicas: 1")) == []


def test_the_eviction_policy_check_can_be_turned_off() -> None:
    pdb = """
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: webhook, namespace: monitoring}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: webhook}}
"""
    assert len(run_rule("pdb-required", pdb)) == 1
    assert run_rule("pdb-required", pdb, options={"unhealthy-pod-eviction-policy": ""}) == []
