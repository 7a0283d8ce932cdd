"""API-server checks beyond the schema (trainops.validate.checks.api_server): one passing and one failing case
per check, every pod template location, defensive handling of odd shapes, and the upstream examples."""

from __future__ import annotations

import copy
import itertools
from pathlib import Path
from typing import Any

import pytest

from trainops.core.kinds import EACH_ITEM, EACH_VALUE, POD_TEMPLATE_SITES
from trainops.validate.checks.api_server import semantic_issues
from trainops.yaml.load import load_file

EXAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "examples"

Obj = dict[str, Any]


def _container(name: str = "main", **fields: Any) -> Obj:
    return {"name": name, "image": "busybox", **fields}


def _pod_spec(*containers: Obj, **fields: Any) -> Obj:
    return {"containers": list(containers) or [_container()], **fields}


def _deployment(spec: Obj | None = None, *, labels: Obj | None = None, selector: Obj | None = None) -> Obj:
    labels = {"app": "web"} if labels is None else labels
    selector = {"matchLabels": {"app": "web"}} if selector is None else selector
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "ml"},
        "spec": {
            "selector": selector,
            "template": {"metadata": {"labels": labels}, "spec": spec or _pod_spec()},
        },
    }


def _job(
    spec: Obj | None = None, *, name: str = "train", labels: Obj | None = None, **job_fields: Any
) -> Obj:
    template: Obj = {"spec": spec if spec is not None else _pod_spec(restartPolicy="Never")}
    if labels is not None:
        template["metadata"] = {"labels": labels}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"template": template, **job_fields},
    }


def _pod(spec: Obj | None = None, **meta: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **meta}, "spec": spec or _pod_spec()}


def _service(*ports: Obj, name: str = "web") -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": "web"}, "ports": list(ports)},
    }


def _meta(kind: str = "ConfigMap", api_version: str = "v1", **meta: Any) -> Obj:
    return {"apiVersion": api_version, "kind": kind, "metadata": meta}


def _resources(**resources: Any) -> Obj:
    return _pod(_pod_spec(_container(resources=resources)))


def _found(obj: Obj) -> list[tuple[str | None, tuple[str | int, ...]]]:
    return [(i.keyword, i.parts) for i in semantic_issues(obj, obj["apiVersion"], obj["kind"])]


C0 = ("spec", "containers", 0)
T = ("spec", "template", "spec")
LONG = "a" * 64

#: (id, object, expected (keyword, parts) pairs, text the first message must contain)
CASES: list[tuple[str, Obj, list[tuple[str, tuple[str | int, ...]]], str]] = [
    # --- metadata.name / generateName / namespace --------------------------------------------------
    ("subdomain-ok", _meta(name="train.v2-a"), [], ""),
    (
        "subdomain-bad",
        _meta(name="My_Job"),
        [("dns1123-subdomain", ("metadata", "name"))],
        "metadata.name \"My_Job\" is not a DNS-1123 subdomain (lower-case alphanumerics, '-' and '.', "
        "at most 253 characters)",
    ),
    (
        "subdomain-too-long",
        _meta(name="a" * 254),
        [("dns1123-subdomain", ("metadata", "name"))],
        "(254 characters) is not a DNS-1123 subdomain",
    ),
    ("service-dns1035-ok", _service(name="web-1"), [], ""),
    (
        "service-dns1035-digit",
        _service(name="1web"),
        [("dns1035-label", ("metadata", "name"))],
        "is not a DNS-1035 label",
    ),
    ("service-dns1035-dot", _service(name="web.api"), [("dns1035-label", ("metadata", "name"))], "DNS-1035"),
    ("namespace-label-ok", _meta("Namespace", name="team-a"), [], ""),
    ("namespace-label-dot", _meta("Namespace", name="team.a"), [("dns1123-label", ("metadata", "name"))], ""),
    (
        "statefulset-label",
        {**_deployment(), "kind": "StatefulSet", "metadata": {"name": "db.main"}},
        [("dns1123-label", ("metadata", "name"))],
        'metadata.name "db.main" is not a DNS-1123 label',
    ),
    (
        "rbac-path-segment-ok",
        _meta("ClusterRole", "rbac.authorization.k8s.io/v1", name="system:controller:x"),
        [],
        "",
    ),
    (
        "rbac-path-segment-bad",
        _meta("ClusterRole", "rbac.authorization.k8s.io/v1", name="a/b"),
        [("path-segment-name", ("metadata", "name"))],
        "may not contain '/' or '%'",
    ),
    ("generate-name-ok", _meta(generateName="train-"), [], ""),
    (
        "generate-name-bad",
        _meta(generateName="Train-"),
        [("dns1123-subdomain", ("metadata", "generateName"))],
        'metadata.generateName "Train-"',
    ),
    (
        "name-required",
        _meta(labels={"a": "b"}),
        [("name-required", ("metadata",))],
        "metadata.name is required",
    ),
    ("namespace-ok", _meta(name="c", namespace="ml-team"), [], ""),
    (
        "namespace-bad",
        _meta(name="c", namespace="ML"),
        [("dns1123-label", ("metadata", "namespace"))],
        'metadata.namespace "ML" is not a DNS-1123 label',
    ),
    ("namespace-ignored-cluster-scoped", _meta("Namespace", name="ns", namespace="Bad_NS"), [], ""),
    ("cronjob-name-52", _meta("CronJob", "batch/v1", name="a" * 52), [], ""),
    (
        "cronjob-name-53",
        _meta("CronJob", "batch/v1", name="a" * 53),
        [("name-length", ("metadata", "name"))],
        "53 characters, more than the 52 allowed for a CronJob",
    ),
    ("job-name-63", _job(name="a" * 63), [], ""),
    (
        "job-name-64",
        _job(name=LONG),
        [("name-length", ("metadata", "name"))],
        "64 characters, more than the 63 allowed for a Job",
    ),
    (
        "job-name-64-manual-selector",
        _job(
            name=LONG,
            labels={"app": "x"},
            manualSelector=True,
            selector={"matchLabels": {"app": "x"}},
        ),
        [],
        "",
    ),
    # --- labels and annotations --------------------------------------------------------------------
    ("label-ok", _meta(name="c", labels={"app.kubernetes.io/name": "web", "v": "1.0_a", "e": ""}), [], ""),
    (
        "label-key-leading-dash",
        _meta(name="c", labels={"-bad": "x"}),
        [("label-key", ("metadata", "labels", "-bad"))],
        'metadata.labels key "-bad" has an invalid name part "-bad"',
    ),
    (
        "label-key-two-slashes",
        _meta(name="c", labels={"a/b/c": "x"}),
        [("label-key", ("metadata", "labels", "a/b/c"))],
        "has more than one '/'",
    ),
    (
        "label-key-upper-prefix",
        _meta(name="c", labels={"Example.com/x": "y"}),
        [("label-key", ("metadata", "labels", "Example.com/x"))],
        'has a prefix "Example.com" that is not a DNS-1123 subdomain',
    ),
    (
        "label-key-name-too-long",
        _meta(name="c", labels={"x/" + LONG: "y"}),
        [("label-key", ("metadata", "labels", "x/" + LONG))],
        "has a name part of 64 characters, more than 63",
    ),
    (
        "label-value-too-long",
        _meta(name="c", labels={"v": LONG}),
        [("label-value", ("metadata", "labels", "v"))],
        "(64 characters) is not a valid label value",
    ),
    (
        "label-value-charset",
        _meta(name="c", labels={"v": "a b"}),
        [("label-value", ("metadata", "labels", "v"))],
        'metadata.labels "v" value "a b" is not a valid label value',
    ),
    ("annotation-key-case-insensitive-prefix", _meta(name="c", annotations={"Example.com/x": "y"}), [], ""),
    (
        "annotation-key-bad",
        _meta(name="c", annotations={"bad key": "y"}),
        [("annotation-key", ("metadata", "annotations", "bad key"))],
        'metadata.annotations key "bad key"',
    ),
    ("annotations-size-ok", _meta(name="c", annotations={"k": "x" * (262144 - 1)}), [], ""),
    (
        "annotations-size-over",
        _meta(name="c", annotations={"k": "x" * 262144}),
        [("annotations-size", ("metadata", "annotations"))],
        "metadata.annotations total 262145 bytes (keys + values), more than the 262144-byte limit",
    ),
    (
        "template-label",
        _deployment(labels={"app": "web", "tier": "a b"}),
        [("label-value", ("spec", "template", "metadata", "labels", "tier"))],
        'template label "tier" value "a b"',
    ),
    (
        "node-selector",
        _pod(_pod_spec(nodeSelector={"gpu type": "a100"})),
        [("label-key", ("spec", "nodeSelector", "gpu type"))],
        'nodeSelector key "gpu type"',
    ),
    # --- containers ----------------------------------------------------------------------------------
    (
        "container-name",
        _pod(_pod_spec(_container("Main"))),
        [("dns1123-label", (*C0, "name"))],
        'container name "Main" is not a DNS-1123 label',
    ),
    (
        "container-name-duplicate-init",
        _pod(_pod_spec(_container("main"), initContainers=[_container("main")])),
        [("duplicate-name", ("spec", "initContainers", 0, "name"))],
        'container name "main" is already used by spec.containers[0]',
    ),
    (
        "ephemeral-in-template",
        _deployment(_pod_spec(ephemeralContainers=[_container("debug")])),
        [("ephemeral-containers", (*T, "ephemeralContainers"))],
        "ephemeral containers are not allowed in a pod template",
    ),
    ("port-name-ok", _pod(_pod_spec(_container(ports=[{"name": "metrics", "containerPort": 9090}]))), [], ""),
    (
        "port-name-too-long",
        _pod(_pod_spec(_container(ports=[{"name": "xgboostjob-ports", "containerPort": 9991}]))),
        [("port-name", (*C0, "ports", 0, "name"))],
        'port name "xgboostjob-ports" is not an IANA_SVC_NAME: 16 characters, more than 15',
    ),
    (
        "port-name-no-letter",
        _pod(_pod_spec(_container(ports=[{"name": "8080", "containerPort": 8080}]))),
        [("port-name", (*C0, "ports", 0, "name"))],
        "needs at least one letter",
    ),
    (
        "port-name-double-dash",
        _pod(_pod_spec(_container(ports=[{"name": "a--b", "containerPort": 80}]))),
        [("port-name", (*C0, "ports", 0, "name"))],
        "may not contain '--'",
    ),
    (
        "port-name-duplicate-in-container",
        _pod(
            _pod_spec(
                _container(
                    ports=[{"name": "http", "containerPort": 80}, {"name": "http", "containerPort": 81}]
                )
            )
        ),
        [("duplicate-name", (*C0, "ports", 1, "name"))],
        'port name "http" is used twice',
    ),
    (
        "port-name-duplicate-across-containers",
        _pod(
            _pod_spec(
                _container("a", ports=[{"name": "metrics", "containerPort": 80}]),
                _container("b", ports=[{"name": "metrics", "containerPort": 81}]),
            )
        ),
        [("duplicate-port-name", ("spec", "containers", 1, "ports", 0, "name"))],
        "is also defined by spec.containers[0].ports[0]",
    ),
    (
        "container-port-range",
        _pod(_pod_spec(_container(ports=[{"containerPort": 70000}]))),
        [("port-number", (*C0, "ports", 0, "containerPort"))],
        "containerPort 70000 is not between 1 and 65535",
    ),
    # --- volumes -----------------------------------------------------------------------------------
    (
        "volume-mount-ok",
        _pod(
            _pod_spec(
                _container(volumeMounts=[{"name": "data", "mountPath": "/d"}]), volumes=[{"name": "data"}]
            )
        ),
        [],
        "",
    ),
    (
        "volume-mount-ref",
        _pod(
            _pod_spec(
                _container(volumeMounts=[{"name": "dta", "mountPath": "/d"}]), volumes=[{"name": "data"}]
            )
        ),
        [("volume-mount-ref", (*C0, "volumeMounts", 0, "name"))],
        'container "main" mounts volume "dta", which the pod does not declare (volumes: data)',
    ),
    (
        "volume-name",
        _pod(_pod_spec(volumes=[{"name": "Data"}])),
        [("dns1123-label", ("spec", "volumes", 0, "name"))],
        'volume name "Data" is not a DNS-1123 label',
    ),
    (
        "volume-duplicate",
        _pod(_pod_spec(volumes=[{"name": "data"}, {"name": "data"}])),
        [("duplicate-name", ("spec", "volumes", 1, "name"))],
        'volume name "data" is already used by volumes[0]',
    ),
    (
        "mount-path-duplicate",
        _pod(
            _pod_spec(
                _container(volumeMounts=[{"name": "a", "mountPath": "/d"}, {"name": "b", "mountPath": "/d"}]),
                volumes=[{"name": "a"}, {"name": "b"}],
            )
        ),
        [("duplicate-mount-path", (*C0, "volumeMounts", 1, "mountPath"))],
        'mountPath "/d" is already used by volumeMounts[0]',
    ),
    (
        "statefulset-claim-template-volume",
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "db"},
            "spec": {
                "selector": {"matchLabels": {"app": "web"}},
                "volumeClaimTemplates": [{"metadata": {"name": "data"}}],
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": _pod_spec(_container(volumeMounts=[{"name": "data", "mountPath": "/d"}])),
                },
            },
        },
        [],
        "",
    ),
    (
        "jobset-claim-policy-volume",
        {
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSet",
            "metadata": {"name": "js"},
            "spec": {
                "volumeClaimPolicies": [{"templates": [{"metadata": {"name": "cache"}}]}],
                "replicatedJobs": [
                    {
                        "name": "w",
                        "template": {
                            "spec": {
                                "template": {
                                    "spec": _pod_spec(
                                        _container(volumeMounts=[{"name": "cache", "mountPath": "/c"}])
                                    )
                                }
                            }
                        },
                    }
                ],
            },
        },
        [],
        "",
    ),
    # --- resources ---------------------------------------------------------------------------------
    (
        "requests-le-limits",
        _resources(requests={"cpu": "500m", "memory": "1024Mi"}, limits={"cpu": 1, "memory": "1Gi"}),
        [],
        "",
    ),
    (
        "requests-exceed-limits",
        _resources(requests={"cpu": "2"}, limits={"cpu": "1500m"}),
        [("requests-exceed-limits", (*C0, "resources", "requests", "cpu"))],
        'container "main" requests cpu "2", more than its limit "1500m"',
    ),
    (
        "quantity-unparsable",
        _resources(limits={"memory": "1 GiB"}),
        [("quantity", (*C0, "resources", "limits", "memory"))],
        'limits memory "1 GiB" is not a quantity',
    ),
    (
        "quantity-negative",
        _resources(requests={"cpu": "-1"}),
        [("quantity", (*C0, "resources", "requests", "cpu"))],
        'requests cpu "-1" is negative',
    ),
    (
        "resource-name-nonstandard",
        _resources(limits={"gpu": 1}),
        [("resource-name", (*C0, "resources", "limits", "gpu"))],
        "not a standard container resource",
    ),
    ("extended-limit-only", _resources(limits={"nvidia.com/gpu": 1}), [], ""),
    ("extended-equal", _resources(requests={"nvidia.com/gpu": "2"}, limits={"nvidia.com/gpu": 2}), [], ""),
    (
        "extended-fraction",
        _resources(limits={"nvidia.com/gpu": 0.5}),
        [("extended-resource", (*C0, "resources", "limits", "nvidia.com/gpu"))],
        'limits "nvidia.com/gpu" 0.5 is not a whole number',
    ),
    (
        "extended-request-below-limit",
        _resources(requests={"nvidia.com/gpu": 1}, limits={"nvidia.com/gpu": 2}),
        [("extended-resource", (*C0, "resources", "requests", "nvidia.com/gpu"))],
        'requests "nvidia.com/gpu" 1, which must equal its limit 2',
    ),
    (
        "extended-request-without-limit",
        _resources(requests={"nvidia.com/gpu": 1}),
        [("extended-resource", (*C0, "resources", "requests", "nvidia.com/gpu"))],
        "without a limit; nvidia.com/gpu cannot be overcommitted",
    ),
    (
        "hugepages-request-without-limit",
        _resources(requests={"hugepages-2Mi": "1Gi", "memory": "1Gi"}),
        [("extended-resource", (*C0, "resources", "requests", "hugepages-2Mi"))],
        "hugepages-2Mi cannot be overcommitted",
    ),
    # --- restart policies --------------------------------------------------------------------------
    (
        "job-restart-unset",
        _job(_pod_spec()),
        [("restart-policy", T)],
        'restartPolicy is unset and defaults to "Always", which a Job\'s pods may not use (set "OnFailure" or "Never")',
    ),
    (
        "job-restart-always",
        _job(_pod_spec(restartPolicy="Always")),
        [("restart-policy", (*T, "restartPolicy"))],
        'restartPolicy "Always" is not allowed here (must be "OnFailure" or "Never")',
    ),
    ("deployment-restart-always", _deployment(_pod_spec(restartPolicy="Always")), [], ""),
    (
        "deployment-restart-never",
        _deployment(_pod_spec(restartPolicy="Never")),
        [("restart-policy", (*T, "restartPolicy"))],
        'must be "Always"',
    ),
    # --- selectors ---------------------------------------------------------------------------------
    ("selector-match-labels", _deployment(labels={"app": "web", "tier": "fe"}), [], ""),
    (
        "selector-mismatch",
        _deployment(labels={"app": "api"}),
        [("selector-mismatch", ("spec", "template", "metadata", "labels"))],
        "selector does not match template labels: selector {app=web}, template labels {app: api}",
    ),
    (
        "selector-in",
        _deployment(
            selector={"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "api"]}]}
        ),
        [],
        "",
    ),
    (
        "selector-in-mismatch",
        _deployment(selector={"matchExpressions": [{"key": "app", "operator": "In", "values": ["api"]}]}),
        [("selector-mismatch", ("spec", "template", "metadata", "labels"))],
        "selector {app in (api)}",
    ),
    (
        "selector-notin-absent-key",
        _deployment(
            selector={
                "matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "track", "operator": "NotIn", "values": ["canary"]}],
            }
        ),
        [],
        "",
    ),
    (
        "selector-notin-mismatch",
        _deployment(
            labels={"app": "web", "track": "canary"},
            selector={
                "matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "track", "operator": "NotIn", "values": ["canary"]}],
            },
        ),
        [("selector-mismatch", ("spec", "template", "metadata", "labels"))],
        "track notin (canary)",
    ),
    (
        "selector-exists-mismatch",
        _deployment(selector={"matchExpressions": [{"key": "tier", "operator": "Exists"}]}),
        [("selector-mismatch", ("spec", "template", "metadata", "labels"))],
        "selector {tier}",
    ),
    (
        "selector-does-not-exist",
        _deployment(selector={"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}),
        [],
        "",
    ),
    (
        "selector-empty",
        _deployment(selector={}),
        [("label-selector", ("spec", "selector"))],
        "spec.selector is empty, which is invalid for a Deployment",
    ),
    (
        "selector-in-without-values",
        _deployment(selector={"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}),
        [("label-selector", ("spec", "selector", "matchExpressions", 0, "values"))],
        "selector operator In needs at least one value",
    ),
    (
        "selector-exists-with-values",
        _deployment(selector={"matchExpressions": [{"key": "app", "operator": "Exists", "values": ["x"]}]}),
        [("label-selector", ("spec", "selector", "matchExpressions", 0, "values"))],
        "takes no values",
    ),
    ("job-generated-selector-not-checked", _job(selector={"matchLabels": {"other": "x"}}), [], ""),
    (
        "job-manual-selector-required",
        _job(manualSelector=True),
        [("label-selector", ("spec",))],
        "spec.selector is required when spec.manualSelector is true",
    ),
    (
        "job-manual-selector-mismatch",
        _job(manualSelector=True, selector={"matchLabels": {"app": "x"}}),
        [("selector-mismatch", ("spec", "template", "metadata", "labels"))],
        "selector does not match template labels",
    ),
    # --- Service -----------------------------------------------------------------------------------
    ("service-one-unnamed-port", _service({"port": 80}), [], ""),
    (
        "service-unnamed-port-of-two",
        _service({"name": "http", "port": 80}, {"port": 443}),
        [("service-port", ("spec", "ports", 1))],
        "spec.ports[1] has no name; every port of a Service with 2 ports needs one",
    ),
    (
        "service-port-name-duplicate",
        _service({"name": "http", "port": 80}, {"name": "http", "port": 81}),
        [("duplicate-name", ("spec", "ports", 1, "name"))],
        'port name "http" is already used by spec.ports[0]',
    ),
    (
        "service-port-name-syntax",
        _service({"name": "HTTP", "port": 80}),
        [("dns1123-label", ("spec", "ports", 0, "name"))],
        'port name "HTTP" is not a DNS-1123 label',
    ),
    (
        "service-same-port-two-protocols",
        _service({"name": "dns-udp", "port": 53, "protocol": "UDP"}, {"name": "dns-tcp", "port": 53}),
        [],
        "",
    ),
    (
        "service-port-duplicate",
        _service({"name": "a", "port": 80}, {"name": "b", "port": 80, "protocol": "TCP"}),
        [("service-port", ("spec", "ports", 1))],
        "port 80/TCP is already defined by spec.ports[0]",
    ),
    (
        "service-port-range",
        _service({"port": 0}),
        [("port-number", ("spec", "ports", 0, "port"))],
        "port 0 is not between 1 and 65535",
    ),
    ("service-target-port-ok", _service({"port": 80, "targetPort": "metrics"}), [], ""),
    ("service-target-port-zero-defaults", _service({"port": 80, "targetPort": 0}), [], ""),
    (
        "service-target-port-name",
        _service({"port": 80, "targetPort": "http_port"}),
        [("target-port", ("spec", "ports", 0, "targetPort"))],
        'targetPort "http_port" is not an IANA_SVC_NAME',
    ),
    (
        "service-target-port-range",
        _service({"port": 80, "targetPort": 70000}),
        [("target-port", ("spec", "ports", 0, "targetPort"))],
        "targetPort 70000 is not between 1 and 65535",
    ),
    (
        "service-selector",
        {**_service({"port": 80}), "spec": {"selector": {"app": "a b"}, "ports": [{"port": 80}]}},
        [("label-value", ("spec", "selector", "app"))],
        'spec.selector "app" value "a b"',
    ),
]


@pytest.mark.parametrize(("obj", "expected", "text"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_check(obj: Obj, expected: list[tuple[str, tuple[str | int, ...]]], text: str) -> None:
    issues = semantic_issues(obj, obj["apiVersion"], obj["kind"])
    assert [(i.keyword, i.parts) for i in issues] == expected, [i.message for i in issues]
    assert all(i.rule == "api-server" and "\n" not in i.message for i in issues)
    if text:
        assert text in issues[0].message


def test_case_ids_are_unique() -> None:
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))


def test_cross_container_port_name_is_a_warning() -> None:
    obj = _pod(
        _pod_spec(
            _container("a", ports=[{"name": "metrics", "containerPort": 80}]),
            _container("b", ports=[{"name": "metrics", "containerPort": 81}]),
        )
    )
    (issue,) = semantic_issues(obj, "v1", "Pod")
    assert issue.level == "warning"
    assert issue.message == (
        'container "b" port name "metrics" is also defined by spec.containers[0].ports[0]; Services and '
        "probes that select the port by name use spec.containers[0].ports[0]"
    )


def test_namespaced_argument_overrides_the_builtin_scope() -> None:
    obj = _meta("Widget", "example.com/v1", name="w", namespace="Bad_NS")
    assert _found(obj) == [("dns1123-label", ("metadata", "namespace"))]
    assert semantic_issues(obj, "example.com/v1", "Widget", namespaced=False) == []


# --- every pod template location ----------------------------------------------------------------


def _concrete(path: tuple[str, ...]) -> tuple[str | int, ...]:
    return tuple(0 if step == EACH_ITEM else "Worker" if step == EACH_VALUE else step for step in path)


def _place(obj: Obj, path: tuple[str | int, ...], value: Any) -> None:
    """Set ``value`` at ``path``, creating mappings (and one-item lists before an index) on the way."""
    node: Any = obj
    for step, following in itertools.pairwise(path):
        if isinstance(node, list):
            node = node[int(step)]
        else:
            node = node.setdefault(step, [{}] if isinstance(following, int) else {})
    node[path[-1]] = value


SITES: list[tuple[str, str]] = [
    ("v1", "Pod"),
    ("v1", "PodTemplate"),
    ("v1", "ReplicationController"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("kubeflow.org/v1", "PyTorchJob"),
    ("kubeflow.org/v1", "TFJob"),
    ("kubeflow.org/v1", "MPIJob"),
    ("kubeflow.org/v2beta1", "MPIJob"),
    ("kubeflow.org/v1", "XGBoostJob"),
    ("kubeflow.org/v1", "PaddleJob"),
    ("kubeflow.org/v1", "JAXJob"),
    ("jobset.x-k8s.io/v1alpha2", "JobSet"),
    ("trainer.kubeflow.org/v1alpha1", "TrainingRuntime"),
    ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"),
]


def test_every_declared_site_is_tested() -> None:
    groups = {(a.rpartition("/")[0], k) for a, k in SITES}
    assert groups == set(POD_TEMPLATE_SITES)


@pytest.mark.parametrize(("api_version", "kind"), SITES, ids=[f"{a}/{k}" for a, k in SITES])
def test_pod_template_location(api_version: str, kind: str) -> None:
    (site,) = POD_TEMPLATE_SITES[(api_version.rpartition("/")[0], kind)]
    path = _concrete(site.path)
    obj: Obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}
    spec = _pod_spec(
        _container("Bad"), restartPolicy="Never" if site.restart and "Never" in site.restart else ""
    )
    if not spec["restartPolicy"]:
        del spec["restartPolicy"]
    if path:
        _place(obj, path, {"metadata": {"labels": {"app": "x"}}, "spec": spec})
    else:
        obj["spec"] = spec
    if kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"):
        obj["spec"]["selector"] = {"matchLabels": {"app": "x"}}
    assert _found(obj) == [("dns1123-label", (*path, "spec", "containers", 0, "name"))]


# --- Katib: the trial template is an embedded object with ${trialParameters.*} placeholders ----------


def _experiment(trial_spec: Obj) -> Obj:
    return {
        "apiVersion": "kubeflow.org/v1beta1",
        "kind": "Experiment",
        "metadata": {"name": "hp"},
        "spec": {"trialTemplate": {"primaryContainerName": "main", "trialSpec": trial_spec}},
    }


def test_katib_trial_spec_is_checked_as_its_kind() -> None:
    obj = _experiment(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "spec": {"template": {"spec": _pod_spec(_container("Main"))}},
        }
    )
    base = ("spec", "trialTemplate", "trialSpec", "spec", "template", "spec")
    assert _found(obj) == [("restart-policy", base), ("dns1123-label", (*base, "containers", 0, "name"))]


def test_katib_placeholders_are_skipped() -> None:
    container = _container(
        "main",
        resources={
            "requests": {"cpu": "${trialParameters.cpu}", "nvidia.com/gpu": "${trialParameters.gpus}"},
            "limits": {"cpu": "${trialParameters.cpu}", "nvidia.com/gpu": "${trialParameters.gpus}"},
        },
        ports=[{"name": "${trialParameters.portName}", "containerPort": 80}],
    )
    obj = _experiment(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "spec": {
                "template": {
                    "metadata": {"labels": {"trial": "${trialSpec.Name}"}},
                    "spec": _pod_spec(container, restartPolicy="Never"),
                }
            },
        }
    )
    assert _found(obj) == []


# --- defensive: odd shapes never raise ------------------------------------------------------------

ODD = [
    {"apiVersion": "v1", "kind": "Pod", "metadata": "x", "spec": []},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": 5, "labels": ["a"], "annotations": {"a": 1}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": "x", "volumes": 3}},
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "containers": [None, 1, {"name": None, "ports": [None, {"name": 5, "containerPort": "80"}]}],
            "volumes": [None, {"name": None}],
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "containers": [{"name": "c", "resources": {"limits": [], "requests": {"cpu": True, 5: "1"}}}]
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "containers": [{"name": "c", "resources": {"limits": None, "requests": {"nvidia.com/gpu": None}}}]
        },
    },
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"selector": "x"}},
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": [], "matchExpressions": [None, {"key": 1}]}, "template": []},
    },
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"selector": {"matchExpressions": {"key": "a"}}, "template": {"metadata": {"labels": None}}},
    },
    {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s"},
        "spec": {"ports": [None, {"port": "80", "targetPort": None}]},
    },
    {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "j"},
        "spec": {"pytorchReplicaSpecs": []},
    },
    {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "j"},
        "spec": {"pytorchReplicaSpecs": {"W": None}},
    },
    {
        "apiVersion": "kubeflow.org/v1beta1",
        "kind": "Experiment",
        "metadata": {"name": "e"},
        "spec": {"trialTemplate": {"trialSpec": {"kind": 3}}},
    },
    {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "j"},
        "spec": {"replicatedJobs": [None, {"template": 1}], "volumeClaimPolicies": 3},
    },
]


@pytest.mark.parametrize("obj", ODD, ids=[f"odd-{i}" for i in range(len(ODD))])
def test_odd_shapes_do_not_raise(obj: Obj) -> None:
    issues = semantic_issues(copy.deepcopy(obj), obj["apiVersion"], obj["kind"])
    assert isinstance(issues, list)


def test_not_a_mapping() -> None:
    assert semantic_issues([], "v1", "Pod") == []


def test_input_is_not_modified() -> None:
    obj = _deployment(
        _pod_spec(_container("Bad", resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}))
    )
    before = copy.deepcopy(obj)
    assert semantic_issues(obj, "apps/v1", "Deployment")
    assert obj == before


# --- upstream examples ---------------------------------------------------------------------------

UPSTREAM = ("training-operator", "prometheus-operator", "k8s-website", "kueue", "trainer", "katib")

#: file (relative to ../shared/examples) → messages the checks give, with why upstream is wrong.
#: kind cluster configs (kind.x-k8s.io Cluster) are not API objects and carry no metadata; the engine
#: reports their kind as unknown and never runs these checks on them.
_KIND_CONFIG = ["metadata.name is required (or metadata.generateName)"]
UPSTREAM_FLAGGED: dict[str, list[str]] = {
    "kueue/site/static/examples/multikueue/dev/manager-kind-config.yaml": _KIND_CONFIG,
    "kueue/site/static/examples/multikueue/dev/worker-kind-config.yaml": _KIND_CONFIG,
}


def _upstream_files() -> list[str]:
    if not EXAMPLES.is_dir():
        return []
    return sorted(
        str(p.relative_to(EXAMPLES))
        for corpus in UPSTREAM
        for p in (EXAMPLES / corpus).rglob("*")
        if p.is_file() and p.suffix in (".yaml", ".yml")
    )


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="../shared/examples is not beside the repo")
@pytest.mark.parametrize("rel", _upstream_files())
def test_upstream_example(rel: str) -> None:
    messages = []
    for document in load_file(str(EXAMPLES / rel)).documents:
        data = document.data
        if (
            isinstance(data, dict)
            and isinstance(data.get("apiVersion"), str)
            and isinstance(data.get("kind"), str)
        ):
            messages += [i.message for i in semantic_issues(data, data["apiVersion"], data["kind"])]
    assert messages == UPSTREAM_FLAGGED.get(rel, [])


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="../shared/examples is not beside the repo")
def test_upstream_corpora_are_present() -> None:
    files = _upstream_files()
    assert set(UPSTREAM_FLAGGED) <= set(files)
    for corpus in UPSTREAM:
        assert any(f.startswith(corpus + "/") for f in files), corpus
