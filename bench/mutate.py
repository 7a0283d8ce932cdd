"""Break a valid object in exactly one known way (one invalid-document *category*).

Each category has a candidate finder that lists the edits applicable to a given object (a
ConfigMap has no int32 field, a Namespace no quantity); :func:`break_document` applies one of them
and says where a validator should point, in trainops's convention: the JSON path of the offending
value, of the unknown field, of the duplicated key, or — for a missing required field — of the
object that lacks it.

Categories (all detected by trainops's strict schemas today; checked by tests/bench/test_bench.py):

``wrong-type``        ``containerPort: "8080"``, ``value: 32`` in env, ``replicas: "3"``, a label
                      value ``1.5``, ``automountServiceAccountToken: "false"``
``unknown-field``     typos and misplaced keys: ``resource:``, ``imagePullpolicy:``, ``selectors:``,
                      ``minAvailible:``, a top-level ``namespace:``
``missing-required``  container ``name``, Deployment ``spec.selector``, Service port ``port``, HPA
                      ``maxReplicas``, volume mount ``mountPath``, ipBlock ``cidr``
``int32-range``       ``replicas: 3000000000``, ``backoffLimit: 2147483648``, ``periodSeconds`` in µs
``date-time``         ``metadata.creationTimestamp: "yesterday"`` (``format: date-time`` in ObjectMeta)
``quantity``          ``cpu: "2 cores"``, ``memory: 8GiB``, ``storage: 1TB``, ``sizeLimit: 64 GB``
``duplicate-key``     a key written twice in one mapping (the API server's strict decoding rejects it)
``api-server``        schema-valid but rejected by the API server's own validation: ``containerPort:
                      80800``, ``metadata.name: Bert_Server``, a Job pod ``restartPolicy: Always``,
                      requests above limits, a selector that does not match the template labels

Not used because trainops does not detect it today: ``enum`` — Kubernetes 1.34's OpenAPI has
enums only on apiVersion/kind, so ``imagePullPolicy: Sometimes``, Service ``type: Internal``,
port ``protocol: HTTP``, ``accessModes: [ReadWrite]``, toleration ``operator: Equals`` and HPA
metric ``type: Resources`` all pass (only a pod ``restartPolicy`` is checked, per workload kind).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from bench.emit import Pairs, Parts

Category = Literal[
    "wrong-type",
    "unknown-field",
    "missing-required",
    "int32-range",
    "date-time",
    "quantity",
    "duplicate-key",
    "api-server",
]
CATEGORIES: tuple[Category, ...] = get_args(Category)
Op = Literal["set", "rename", "delete", "insert", "duplicate"]


@dataclass(frozen=True)
class Edit:
    """One change to a document.

    Args:
        op: ``set`` the value at ``path``; ``rename`` its key to ``value``; ``delete`` it;
            ``insert`` a new key ``path[-1]`` with ``value`` into the mapping at ``path[:-1]``;
            ``duplicate`` the key ``path[-1]`` with a second entry holding ``value``.
        path: where.
        value: the new value (or new key name for ``rename``).
        report: where a validator reports the problem when that is not derived from ``op`` and
            ``path`` (a selector mismatch is reported on the template's labels, not on one label).
    """

    op: Op
    path: Parts
    value: Any = None
    report: Parts | None = None

    @property
    def points_to(self) -> Parts:
        """The path a validator should report."""
        if self.report is not None:
            return self.report
        if self.op == "rename":
            return (*self.path[:-1], self.value)
        if self.op == "delete":
            return self.path[:-1]
        return self.path


def get(doc: Any, path: Parts) -> Any:
    """The value at ``path`` (``KeyError``/``IndexError`` when absent)."""
    for part in path:
        doc = doc[part]
    return doc


def has(doc: Any, path: Parts) -> bool:
    """Whether ``path`` exists in ``doc``."""
    try:
        get(doc, path)
    except (KeyError, IndexError, TypeError):
        return False
    return True


def apply(doc: dict[str, Any], edit: Edit, rng: random.Random) -> None:
    """Apply ``edit`` in place (mappings keep their key order)."""
    *parent_path, key = edit.path
    parent = get(doc, tuple(parent_path))
    if edit.op == "set":
        parent[key] = edit.value
        return
    if edit.op == "delete":
        del parent[key]
        return
    items = list(parent.items())
    if edit.op == "rename":
        items = [(edit.value if k == key else k, v) for k, v in items]
    elif edit.op == "insert":
        items.insert(rng.randint(0, len(items)), (str(key), edit.value))
    else:  # duplicate: right after the original (a merge slip) or at the end of the mapping
        position = next(i for i, (k, _) in enumerate(items) if k == key)
        items.insert(position + 1 if rng.random() < 0.5 else len(items), (str(key), edit.value))
    replacement: dict[str, Any] | Pairs = Pairs(items) if edit.op == "duplicate" else dict(items)
    if parent_path:
        get(doc, tuple(parent_path[:-1]))[parent_path[-1]] = replacement
    elif isinstance(replacement, dict):
        doc.clear()
        doc.update(replacement)
    else:
        raise ValueError("cannot duplicate a top-level key in place")


# --- where things are --------------------------------------------------------------------------------


def pod_specs(doc: dict[str, Any]) -> list[Parts]:
    """Paths of the pod specs of a workload (empty for other kinds)."""
    kind = doc.get("kind")
    if kind in ("Deployment", "StatefulSet", "Job"):
        return [("spec", "template", "spec")]
    if kind == "PyTorchJob":
        return [
            ("spec", "pytorchReplicaSpecs", role, "template", "spec")
            for role in doc["spec"]["pytorchReplicaSpecs"]
        ]
    return []


def containers(doc: dict[str, Any]) -> list[Parts]:
    """Paths of every container and init container."""
    out: list[Parts] = []
    for pod in pod_specs(doc):
        spec = get(doc, pod)
        for field in ("initContainers", "containers"):
            out.extend((*pod, field, i) for i in range(len(spec.get(field, []))))
    return out


def _items(doc: dict[str, Any], path: Parts) -> list[Parts]:
    """Paths of the items of the list at ``path`` (none when absent)."""
    if not has(doc, path):
        return []
    return [(*path, i) for i in range(len(get(doc, path)))]


def _if(doc: dict[str, Any], path: Parts) -> list[Parts]:
    return [path] if has(doc, path) else []


# --- candidates per category ---------------------------------------------------------------------------


def wrong_type(doc: dict[str, Any], rng: random.Random) -> list[Edit]:
    """A value of the wrong JSON type where the schema says otherwise."""
    edits = [Edit("set", ("metadata", "labels", "app.kubernetes.io/version"), rng.choice((1.5, 2.0, 0.9)))]
    for c in containers(doc):
        container = get(doc, c)
        for p in _items(doc, (*c, "ports")):
            edits.append(Edit("set", (*p, "containerPort"), str(get(doc, p)["containerPort"])))
        for e in _items(doc, (*c, "env")):
            value = get(doc, e).get("value")
            if isinstance(value, str) and value.isdigit():
                edits.append(Edit("set", (*e, "value"), int(value)))
        if "args" in container:
            edits.append(Edit("set", (*c, "args"), " ".join(container["args"])))
    for path in _if(doc, ("spec", "replicas")) + _if(doc, ("spec", "maxReplicas")):
        edits.append(Edit("set", path, str(get(doc, path))))
    if doc["kind"] == "Service":
        edits.extend(
            Edit("set", (*p, "port"), str(get(doc, p)["port"])) for p in _items(doc, ("spec", "ports"))
        )
    if doc["kind"] == "ConfigMap":
        edits.extend(
            Edit("set", ("data", k), v == "true") for k, v in doc["data"].items() if v in ("true", "false")
        )
        edits.append(Edit("set", ("data", "MAX_BATCH_SIZE"), int(doc["data"]["MAX_BATCH_SIZE"])))
    for path in _if(doc, ("spec", "accessModes")) + _if(doc, ("spec", "policyTypes")):
        edits.append(Edit("set", path, ",".join(get(doc, path))))
    if "automountServiceAccountToken" in doc:
        edits.append(Edit("set", ("automountServiceAccountToken",), "false"))
    return edits


#: Misspelt container keys: (key, wrong key).
_TYPOS = (
    ("resources", "resource"),
    ("imagePullPolicy", "imagePullpolicy"),
    ("volumeMounts", "volumeMount"),
    ("readinessProbe", "readynessProbe"),
    ("env", "environment"),
)
#: Misspelt ``spec`` keys: (key, wrong key).
_SPEC_TYPOS = (
    ("revisionHistoryLimit", "revisionHistorylimit"),
    ("sessionAffinity", "sessionAfinity"),
    ("namespaceSelector", "namespaceSelectors"),
    ("storageClassName", "storageClass"),
    ("minReplicas", "minReplica"),
    ("backoffLimit", "backoffLimits"),
    ("ttlSecondsAfterFinished", "ttlSecondAfterFinished"),
    ("ingress", "ingres"),
    ("minAvailable", "minAvailible"),
    ("maxUnavailable", "maxUnavailble"),
    ("podManagementPolicy", "podManagementpolicy"),
)


def unknown_field(doc: dict[str, Any], rng: random.Random) -> list[Edit]:
    """A key the schema does not define (typo, or a field at the wrong level)."""
    edits = [Edit("rename", ("metadata", "labels"), "label"), Edit("insert", ("namespace",), "ml-serving")]
    for c in containers(doc):
        container = get(doc, c)
        edits.extend(Edit("rename", (*c, key), typo) for key, typo in _TYPOS if key in container)
    for pod in pod_specs(doc):
        spec = get(doc, pod)
        edits.extend(
            Edit("rename", (*pod, key), typo)
            for key, typo in (("nodeSelector", "nodeselector"), ("tolerations", "toleration"))
            if key in spec
        )
    spec = doc.get("spec", {})
    edits.extend(Edit("rename", ("spec", key), typo) for key, typo in _SPEC_TYPOS if key in spec)
    if doc["kind"] == "Service":
        edits.extend(Edit("rename", (*p, "targetPort"), "targetport") for p in _items(doc, ("spec", "ports")))
    if doc["kind"] == "PersistentVolumeClaim":
        edits.append(Edit("rename", ("spec", "resources", "requests"), "request"))
    if doc["kind"] == "ConfigMap":
        edits.append(Edit("rename", ("data",), "Data"))
    if "imagePullSecrets" in doc:
        edits.append(Edit("rename", ("imagePullSecrets",), "imagePullSecret"))
    return edits


def missing_required(doc: dict[str, Any], rng: random.Random) -> list[Edit]:
    """A required field left out."""
    edits = [Edit("delete", (*c, "name")) for c in containers(doc)]
    for c in containers(doc):
        edits.extend(Edit("delete", (*m, "mountPath")) for m in _items(doc, (*c, "volumeMounts")))
        edits.extend(Edit("delete", (*p, "containerPort")) for p in _items(doc, (*c, "ports")))
    kind = doc["kind"]
    if kind in ("Deployment", "StatefulSet"):
        edits.append(Edit("delete", ("spec", "selector")))
    if kind == "Service":
        edits.extend(Edit("delete", (*p, "port")) for p in _items(doc, ("spec", "ports")))
    if kind == "HorizontalPodAutoscaler":
        edits.append(Edit("delete", ("spec", "maxReplicas")))
        edits.append(Edit("delete", ("spec", "scaleTargetRef", "name")))
        edits.extend(Edit("delete", (*m, "type")) for m in _items(doc, ("spec", "metrics")))
    if kind == "NetworkPolicy":
        edits.append(Edit("delete", ("spec", "egress", 0, "to", 0, "ipBlock", "cidr")))
    edits.extend(
        Edit("delete", (*e, "operator")) for e in _items(doc, ("spec", "selector", "matchExpressions"))
    )
    if kind == "ServiceMonitor":
        edits.append(Edit("delete", ("spec", "selector")))
    return edits


_INT32_OVERFLOW = (2147483648, 3000000000, 4294967296, 10000000000)


def int32_range(doc: dict[str, Any], rng: random.Random) -> list[Edit]:
    """An integer outside int32 where the schema says ``format: int32``."""
    big = rng.choice(_INT32_OVERFLOW)
    paths = [
        ("spec", "replicas"),
        ("spec", "backoffLimit"),
        ("spec", "parallelism"),
        ("spec", "completions"),
        ("spec", "maxReplicas"),
        ("spec", "minReplicas"),
    ]
    edits = [Edit("set", p, big) for p in paths if has(doc, p)]
    for c in containers(doc):
        for probe in ("readinessProbe", "livenessProbe"):
            if has(doc, (*c, probe)):
                edits.append(
                    Edit(
                        "set",
                        (*c, probe, "periodSeconds"),
                        get(doc, (*c, probe, "periodSeconds")) * 1_000_000_000,
                    )
                )
        edits.extend(Edit("set", (*p, "containerPort"), big) for p in _items(doc, (*c, "ports")))
    for pod in pod_specs(doc):
        for v in _items(doc, (*pod, "volumes")):
            if "configMap" in get(doc, v):
                edits.append(Edit("set", (*v, "configMap", "defaultMode"), 4294967295))
    if doc["kind"] == "Service":
        edits.extend(Edit("set", (*p, "port"), big) for p in _items(doc, ("spec", "ports")))
    if doc["kind"] == "NetworkPolicy":
        edits.append(Edit("set", ("spec", "egress", 1, "ports", 1, "endPort"), big))
    if doc["kind"] == "HorizontalPodAutoscaler":
        edits.append(Edit("set", ("spec", "metrics", 0, "resource", "target", "averageUtilization"), big))
    return edits


_BAD_TIMES = ("yesterday", "now", "2024-06-01", "06/01/2024 10:00", "2024-06-01T25:00:00Z", "1717236000")


def date_time(doc: dict[str, Any], rng: random.Random) -> list[Edit]:
    """``metadata.creationTimestamp`` that is not an RFC 3339 date-time."""
    value = rng.choice(_BAD_TIMES)
    path = ("metadata", "creationTimestamp")
    return [Edit("set" if has(doc, path) else "insert", path, value)]


_BAD_CPU = ("2 cores", "2vCPU", "1.5 cpu", "500 m")
_BAD_MEMORY = ("8GiB", "16gb", "8 GB", "1.5 Gi")
_BAD_STORAGE = ("500 GB", "1TB", "2TiB", "100gi")


def quantity(doc: dict[str, Any], rng: random.Random) -> list[Edit]:
    """A resource quantity apimachinery cannot parse."""
    edits: list[Edit] = []
    for c in containers(doc):
        for section in ("limits", "requests"):
            values = get(doc, (*c, "resources")).get(section, {}) if has(doc, (*c, "resources")) else {}
            if "cpu" in values:
                edits.append(Edit("set", (*c, "resources", section, "cpu"), rng.choice(_BAD_CPU)))
            if "memory" in values:
                edits.append(Edit("set", (*c, "resources", section, "memory"), rng.choice(_BAD_MEMORY)))
            if "nvidia.com/gpu" in values:
                edits.append(Edit("set", (*c, "resources", section, "nvidia.com/gpu"), "one"))
    for pod in pod_specs(doc):
        for v in _items(doc, (*pod, "volumes")):
            if "sizeLimit" in get(doc, v).get("emptyDir", {}):
                edits.append(Edit("set", (*v, "emptyDir", "sizeLimit"), rng.choice(_BAD_STORAGE)))
    if has(doc, ("spec", "resources", "requests", "storage")):
        edits.append(Edit("set", ("spec", "resources", "requests", "storage"), rng.choice(_BAD_STORAGE)))
    for t in _items(doc, ("spec", "volumeClaimTemplates")):
        edits.append(Edit("set", (*t, "spec", "resources", "requests", "storage"), rng.choice(_BAD_STORAGE)))
    for m in _items(doc, ("spec", "metrics")):
        metric = get(doc, m)
        for source in ("resource", "pods"):
            if "averageValue" in metric.get(source, {}).get("target", {}):
                edits.append(
                    Edit("set", (*m, source, "target", "averageValue"), rng.choice(("6 GiB", "30 requests")))
                )
    return edits


def duplicate_key(doc: dict[str, Any], rng: random.Random) -> list[Edit]:
    """A key written twice in one mapping; the second value is valid on its own."""
    edits = [
        Edit("duplicate", ("metadata", "name"), f"{doc['metadata']['name']}-v2"),
        Edit("duplicate", ("metadata", "labels", "app.kubernetes.io/version"), "1.0.0"),
    ]
    for c in containers(doc):
        edits.append(Edit("duplicate", (*c, "image"), get(doc, c)["image"].rsplit(":", 1)[0] + ":latest"))
        for e in _items(doc, (*c, "env")):
            if "value" in get(doc, e):
                edits.append(Edit("duplicate", (*e, "value"), "1"))
    if has(doc, ("spec", "replicas")):
        edits.append(Edit("duplicate", ("spec", "replicas"), 2))
    if doc["kind"] == "ConfigMap":
        edits.extend(
            Edit("duplicate", ("data", k), "false") for k in doc["data"] if k.startswith("feature_flag_")
        )
    if doc["kind"] == "Service":
        edits.extend(Edit("duplicate", (*p, "port"), 8080) for p in _items(doc, ("spec", "ports")))
    return edits


def api_server(doc: dict[str, Any], rng: random.Random) -> list[Edit]:
    """Schema-valid values the API server's hand-written validation rejects."""
    name = str(doc["metadata"]["name"])
    edits = [Edit("set", ("metadata", "name"), name.replace("-", "_", 1).capitalize())]
    for c in containers(doc):
        edits.extend(
            Edit("set", (*p, "containerPort"), rng.choice((0, 80800, 65536)))
            for p in _items(doc, (*c, "ports"))
        )
        resources = get(doc, c).get("resources", {})
        if "memory" in resources.get("requests", {}) and "memory" in resources.get("limits", {}):
            edits.append(Edit("set", (*c, "resources", "requests", "memory"), "512Gi"))
    for pod in pod_specs(doc):
        if doc["kind"] == "Job":
            edits.append(Edit("set", (*pod, "restartPolicy"), "Always"))
        elif doc["kind"] in ("Deployment", "StatefulSet"):
            edits.append(Edit("insert", (*pod, "restartPolicy"), rng.choice(("Never", "OnFailure"))))
    labels = ("spec", "template", "metadata", "labels")
    if doc["kind"] in ("Deployment", "StatefulSet") and has(doc, labels):
        edits.append(Edit("set", (*labels, "app.kubernetes.io/component"), "canary", report=labels))
    if doc["kind"] == "Service":
        edits.extend(
            Edit("set", (*p, "port"), rng.choice((0, 80800))) for p in _items(doc, ("spec", "ports"))
        )
    return edits


FINDERS: dict[Category, Callable[[dict[str, Any], random.Random], list[Edit]]] = {
    "wrong-type": wrong_type,
    "unknown-field": unknown_field,
    "missing-required": missing_required,
    "int32-range": int32_range,
    "date-time": date_time,
    "quantity": quantity,
    "duplicate-key": duplicate_key,
    "api-server": api_server,
}


def break_document(doc: dict[str, Any], rng: random.Random) -> tuple[Category, Parts]:
    """Break ``doc`` in place in one category applicable to it; return (category, path to report)."""
    order = list(CATEGORIES)
    rng.shuffle(order)
    for category in order:
        edits = FINDERS[category](doc, rng)
        if edits:
            edit = edits[rng.randrange(len(edits))]
            apply(doc, edit, rng)
            return category, edit.points_to
    raise AssertionError(f"no way to break a {doc.get('kind')}")  # date-time applies to every object
