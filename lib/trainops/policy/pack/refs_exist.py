"""ConfigMaps, Secrets, ServiceAccounts and PriorityClasses that pod templates reference exist:
rendered in the checked set (in the pod's namespace) or declared as external objects of the cluster;
so do the Role or ClusterRole that each RoleBinding and ClusterRoleBinding binds (``roleRef``).
LocalQueues are checked by ``kueue-queue``.

Why: a pod referencing a missing ConfigMap or Secret stays in CreateContainerConfigError, a missing
ServiceAccount or PriorityClass makes the controller fail to create pods at all; either way the
job hangs instead of failing the PR. A binding to a missing role grants nothing today and, silently,
whatever a role created later under that name grants (Polaris fails such bindings in its
``*PodExecAttach`` binding checks). The ClusterRoles every cluster has are taken as present:
``cluster-admin``, ``admin``, ``edit``, ``view`` and every ``system:`` role (kubernetes
``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`` ``ClusterRoles``).

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: ml}
    data: {epochs: "10"}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: train, namespace: ml}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        envFrom: [{configMapRef: {name: settings}}]
        env:
        - name: HF_TOKEN
          valueFrom: {secretKeyRef: {name: hf-token, key: token}}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train, namespace: ml}
    spec:
      serviceAccountName: trainer
      containers:
      - name: train
        image: registry.example.com/train:1.0
        envFrom: [{configMapRef: {name: settings}}]

Remediation: Render the referenced object, fix the name, mark the reference optional, or declare the object as external in apps/clusters.py.

Source: https://kubernetes.io/docs/concepts/configuration/configmap/#configmaps-and-pods
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import Parts, group_kind
from trainops.core.rules import register
from trainops.policy.index import ObjectIndex, where
from trainops.policy.pods import as_dict, as_list, as_str, containers, dig, metadata_of, pod_templates
from trainops.policy.rbac import BINDINGS, ROLE_BINDING
from trainops.policy.rule import Context, describe

ID = "refs-exist"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

#: Built-in PriorityClasses every cluster has.
BUILTIN_PRIORITY_CLASSES = frozenset({"system-cluster-critical", "system-node-critical"})
#: Built-in ClusterRoles every cluster has, besides the ``system:`` ones (bootstrap policy).
BUILTIN_CLUSTER_ROLES = frozenset({"cluster-admin", "admin", "edit", "view"})


def _refs(spec: dict[str, Any], base: Parts) -> Iterator[tuple[str, Any, Parts, bool]]:
    """(kind, name, path, optional) of every reference in a pod spec."""
    account = spec.get("serviceAccountName")
    if isinstance(account, str) and account and account != "default":
        yield "ServiceAccount", account, (*base, "serviceAccountName"), False
    priority = spec.get("priorityClassName")
    if isinstance(priority, str) and priority and priority not in BUILTIN_PRIORITY_CLASSES:
        yield "PriorityClass", priority, (*base, "priorityClassName"), False
    for number, item in enumerate(as_list(spec.get("imagePullSecrets"))):
        if isinstance(item, dict):
            yield "Secret", item.get("name"), (*base, "imagePullSecrets", number, "name"), False
    for number, volume in enumerate(as_list(spec.get("volumes"))):
        if not isinstance(volume, dict):
            continue
        where = (*base, "volumes", number)
        if isinstance(volume.get("configMap"), dict):
            source = volume["configMap"]
            yield (
                "ConfigMap",
                source.get("name"),
                (*where, "configMap", "name"),
                source.get("optional") is True,
            )
        if isinstance(volume.get("secret"), dict):
            source = volume["secret"]
            yield (
                "Secret",
                source.get("secretName"),
                (*where, "secret", "secretName"),
                source.get("optional") is True,
            )
        for s_number, projected in enumerate(as_list(as_dict(volume.get("projected")).get("sources"))):
            for key, kind in (("configMap", "ConfigMap"), ("secret", "Secret")):
                source = projected.get(key) if isinstance(projected, dict) else None
                if isinstance(source, dict):
                    path = (*where, "projected", "sources", s_number, key, "name")
                    yield kind, source.get("name"), path, source.get("optional") is True


def _container_refs(container: Any) -> Iterator[tuple[str, Any, Parts, bool]]:
    for number, item in enumerate(as_list(container.get("envFrom"))):
        for key, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
            source = item.get(key) if isinstance(item, dict) else None
            if isinstance(source, dict):
                yield (
                    kind,
                    source.get("name"),
                    container.at("envFrom", number, key, "name"),
                    source.get("optional") is True,
                )
    for number, item in enumerate(as_list(container.get("env"))):
        for key, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
            source = (
                item.get("valueFrom", {}).get(key)
                if isinstance(item, dict) and isinstance(item.get("valueFrom"), dict)
                else None
            )
            if isinstance(source, dict):
                path = container.at("env", number, "valueFrom", key, "name")
                yield kind, source.get("name"), path, source.get("optional") is True


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Each non-optional reference of each pod template, and each binding's ``roleRef``, that
    nothing provides."""
    index_ = ObjectIndex(objects, ctx.facts)
    for index, obj in enumerate(objects):
        namespace = metadata_of(obj).get("namespace")
        if group_kind(obj) in BINDINGS:
            issue = _role_ref(obj, index_)
            if issue is not None:
                yield index, issue
            continue
        for site in pod_templates(obj):
            refs = list(_refs(site.spec, site.parts))
            for container in containers(site):
                refs.extend(_container_refs(container))
            for kind, name, parts, optional in refs:
                if optional or not isinstance(name, str) or not name or "${" in name:
                    continue
                scope = None if kind == "PriorityClass" else namespace
                if not index_.exists(kind, name, scope):
                    place = f" in {where(namespace)}" if scope else ""
                    yield index, Issue(parts, f'{kind} "{name}" does not exist{place}', ID)


def _role_ref(binding: dict[str, Any], index_: ObjectIndex) -> Issue | None:
    """The binding's roleRef when it names a role that is neither built in nor provided (a
    RoleBinding's Role in its own namespace, a ClusterRole anywhere)."""
    kind, name = as_str(dig(binding, "roleRef", "kind")), as_str(dig(binding, "roleRef", "name"))
    if not name or "${" in name:
        return None
    if kind == "ClusterRole":
        if name in BUILTIN_CLUSTER_ROLES or name.startswith("system:") or index_.exists(kind, name, None):
            return None
        return Issue(("roleRef", "name"), f'ClusterRole "{name}" does not exist', ID)
    if kind == "Role" and group_kind(binding) == ROLE_BINDING:
        namespace = as_str(metadata_of(binding).get("namespace"))
        if index_.exists(kind, name, namespace):
            return None
        place = f" in {where(namespace)}" if namespace else ""
        return Issue(("roleRef", "name"), f'Role "{name}" does not exist{place}', ID)
    return None
