"""Volume, toleration and node-affinity checks of a pod spec (rule ``api-server``), for
:mod:`.pod_fields`: ``validateVolumeSource`` (one source per volume, claim names, hostPath types,
``defaultMode``, ephemeral claim templates via ``ValidatePersistentVolumeClaimSpec``),
``validateTolerations`` and ``validateNodeAffinity`` of k8s.io/kubernetes
``pkg/apis/core/validation/validation.go`` (v1.36).

Each check function appends what it finds to the ``issues`` list it is given, in document order.
"""

from __future__ import annotations

from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import Parts
from trainops.validate.checks.go_helpers import enum, get, is_int, issue, off, placeholder, show
from trainops.validate.checks.services_storage import pvc_spec

HOST_PATH_TYPES: Final = frozenset(
    {"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"}
)
NODE_SELECTOR_OPERATORS: Final = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})
TOLERATION_OPERATORS: Final = frozenset({"Equal", "Exists"})
TAINT_EFFECTS: Final = frozenset({"NoSchedule", "PreferNoSchedule", "NoExecute"})
#: ``core.VolumeSource`` members (k8s.io/api ``core/v1/types.go``); a volume sets at most one.
VOLUME_SOURCES: Final = (
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
)
_SOURCE_SET: Final = frozenset(VOLUME_SOURCES)
_MODE_SOURCES: Final = frozenset({"configMap", "secret", "downwardAPI", "projected"})
_MODE_MAX: Final = 0o777


def volume_issues(volumes: Any, parts: Parts, templated: bool, issues: list[Issue]) -> None:
    """``validateVolumeSource``: at most one source (none means emptyDir), and per source
    ``validatePersistentClaimVolumeSource``, ``validateHostPathType`` and the ``defaultMode`` range."""
    if not isinstance(volumes, list):
        return
    for index, volume in enumerate(volumes):
        if not isinstance(volume, dict):
            continue
        item = (*parts, index)
        present = [key for key, value in volume.items() if key in _SOURCE_SET and value is not None]
        if len(present) > 1:
            issues.append(
                issue(
                    (*item, present[1]),
                    f"{_volume_label(volume, index)} has {len(present)} sources ({', '.join(present)}); "
                    "a volume has exactly one",
                    "volume-source",
                )
            )
        for source in present:
            node = volume[source]
            if not isinstance(node, dict):
                continue
            if source == "persistentVolumeClaim" and node.get("claimName") in (None, ""):
                issues.append(
                    issue(
                        (*item, source),
                        f"{_volume_label(volume, index)} persistentVolumeClaim has no claimName",
                        "volume-source",
                    )
                )
            elif source == "hostPath" and off(node, "type", HOST_PATH_TYPES):
                what = f"{_volume_label(volume, index)} hostPath type"
                issues.extend(enum(node, "type", HOST_PATH_TYPES, (*item, source), what, "enum", templated))
            elif source == "ephemeral":
                template_spec = get(node, "volumeClaimTemplate", "spec")
                pvc_spec(template_spec, (*item, source, "volumeClaimTemplate", "spec"), issues)
            elif source in _MODE_SOURCES:
                mode = node.get("defaultMode")
                if is_int(mode) and not 0 <= mode <= _MODE_MAX:
                    issues.append(
                        issue(
                            (*item, source, "defaultMode"),
                            f"{_volume_label(volume, index)} {source} defaultMode {mode} is not between 0 and "
                            "0777 (octal; 511 decimal)",
                            "volume-source",
                        )
                    )


def _volume_label(volume: dict[str, Any], index: int) -> str:
    name = volume.get("name")
    return f"volume {show(name)}" if isinstance(name, str) else f"volumes[{index}]"


def toleration_issues(tolerations: Any, parts: Parts, templated: bool, issues: list[Issue]) -> None:
    """``validateTolerations``."""
    if not isinstance(tolerations, list):
        return
    for index, toleration in enumerate(tolerations):
        if not isinstance(toleration, dict):
            continue
        item = (*parts, index)
        key, operator, value = toleration.get("key"), toleration.get("operator"), toleration.get("value")
        issues.extend(
            enum(toleration, "operator", TOLERATION_OPERATORS, item, "toleration operator", "enum", templated)
        )
        issues.extend(enum(toleration, "effect", TAINT_EFFECTS, item, "toleration effect", "enum", templated))
        if operator == "Exists" and isinstance(value, str) and value:
            issues.append(
                issue(
                    (*item, "operator"),
                    f"toleration with operator Exists has value {show(value)}; Exists matches any value, so value must be empty",
                    "toleration",
                )
            )
        if key in (None, "") and operator != "Exists" and not placeholder(operator, templated):
            issues.append(
                issue(
                    (*item, "operator"),
                    f"toleration without a key must use operator Exists (got {show(operator or 'Equal')})",
                    "toleration",
                )
            )
        effect = toleration.get("effect")
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            issues.append(
                issue(
                    (*item, "effect"),
                    f"toleration with tolerationSeconds has effect {show(effect or '')}; tolerationSeconds needs "
                    "NoExecute",
                    "toleration",
                )
            )


def node_affinity_issues(affinity: Any, parts: Parts, templated: bool, issues: list[Issue]) -> None:
    """``validateNodeAffinity`` → ``ValidateNodeSelectorRequirement``: operators of node selector
    terms (required and preferred)."""
    if not isinstance(affinity, dict):
        return
    required = get(affinity, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    terms: list[tuple[Any, Parts]] = []
    if isinstance(required, list):
        base = (*parts, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
        terms += [(term, (*base, index)) for index, term in enumerate(required)]
    preferred = affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
    if isinstance(preferred, list):
        base = (*parts, "preferredDuringSchedulingIgnoredDuringExecution")
        terms += [
            (get(item, "preference"), (*base, index, "preference")) for index, item in enumerate(preferred)
        ]
    for term, term_parts in terms:
        expressions = get(term, "matchExpressions")
        if not isinstance(expressions, list):
            continue
        for index, expression in enumerate(expressions):
            if isinstance(expression, dict):
                issues.extend(
                    enum(
                        expression,
                        "operator",
                        NODE_SELECTOR_OPERATORS,
                        (*term_parts, "matchExpressions", index),
                        "node selector operator",
                        "enum",
                        templated,
                    )
                )
