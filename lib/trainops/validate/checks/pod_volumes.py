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
from trainops.validate.checks.go_helpers import (
    enum,
    get,
    is_int,
    issue,
    local_path_problem,
    off,
    placeholder,
    show,
)
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
#: ``core.VolumeProjection`` members; an item of ``projected.sources`` sets exactly one.
PROJECTION_SOURCES: Final = (
    "secret",
    "configMap",
    "downwardAPI",
    "serviceAccountToken",
    "clusterTrustBundle",
)
#: ``validateProjectionSources``: a projected token lives at least 10 minutes and at most 2^32 seconds.
TOKEN_SECONDS_MIN: Final = 600
TOKEN_SECONDS_MAX: Final = 1 << 32


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
                if source == "projected":
                    projection_issues(node, (*item, source), _volume_label(volume, index), templated, issues)
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


def projection_issues(
    projected: dict[str, Any], parts: Parts, label: str, templated: bool, issues: list[Issue]
) -> None:
    """``validateProjectionSources``: one source per item; secret and configMap names; ``items``
    (``validateKeyToPath``) and downwardAPI files with relative paths no two sources share; a
    ``serviceAccountToken`` with ``expirationSeconds`` between 600 and 2^32 (unset defaults to 3600)
    and a relative ``path`` (reported at ``projected.path``, where the API server reports it)."""
    sources = projected.get("sources")
    if type(sources) is not list:
        return
    paths: set[str] = set()
    for index, source in enumerate(sources):
        if type(source) is not dict:
            continue
        item = (*parts, "sources", index)
        present = [key for key in PROJECTION_SOURCES if source.get(key) is not None]
        if len(present) > 1:
            issues.append(
                issue(
                    item,
                    f"{label} projected sources[{index}] sets {len(present)} sources ({', '.join(present)}); "
                    "each item of sources has exactly one",
                    "volume-source",
                )
            )
        for name in present:
            node = source[name]
            if type(node) is not dict:
                continue
            what = f"{label} projected {name}"
            if name in ("secret", "configMap") and node.get("name") in (None, ""):
                issues.append(issue((*item, name, "name"), f"{what} has no name", "volume-source"))
            if name == "serviceAccountToken":
                _token(node, (*item, name), parts, what, templated, issues)
                continue
            files = node.get("items")
            if type(files) is list:
                for number, entry in enumerate(files):
                    if type(entry) is dict:
                        entry_parts = (*item, name, "items", number)
                        _projected_file(
                            entry, entry_parts, f"{what} items[{number}]", name, paths, templated, issues
                        )


def _projected_file(
    entry: dict[str, Any],
    parts: Parts,
    what: str,
    source: str,
    paths: set[str],
    templated: bool,
    issues: list[Issue],
) -> None:
    """``validateKeyToPath`` (secret, configMap) or ``validateDownwardAPIVolumeFile`` (downwardAPI) of
    one projected file, and the paths already projected (``conflicting duplicate paths``)."""
    if source == "downwardAPI":
        refs = [ref for ref in ("fieldRef", "resourceFieldRef") if entry.get(ref) is not None]
        if len(refs) != 1:
            issues.append(
                issue(
                    parts,
                    f"{what} needs exactly one of fieldRef and resourceFieldRef (got {len(refs)})",
                    "volume-source",
                )
            )
    elif entry.get("key") in (None, ""):
        issues.append(issue((*parts, "key"), f"{what} has no key", "volume-source"))
    path = entry.get("path")
    if type(path) is not str or placeholder(path, templated):
        return
    problem = local_path_problem(path, reserved=True) if path else "is required"
    if problem:
        issues.append(issue((*parts, "path"), f"{what} path {show(path)} {problem}", "volume-source"))
    if path and path in paths:
        issues.append(
            issue((*parts, "path"), f"{what} path {show(path)} is already projected", "volume-source")
        )
    paths.add(path)


def _token(
    token: dict[str, Any], parts: Parts, projected: Parts, what: str, templated: bool, issues: list[Issue]
) -> None:
    seconds = token.get("expirationSeconds")
    if is_int(seconds) and not TOKEN_SECONDS_MIN <= seconds <= TOKEN_SECONDS_MAX:
        issues.append(
            issue(
                (*parts, "expirationSeconds"),
                f"{what} expirationSeconds is {seconds}; it must be between {TOKEN_SECONDS_MIN} (10 minutes) "
                f"and {TOKEN_SECONDS_MAX} (2^32)",
                "volume-source",
            )
        )
    path = token.get("path")
    if type(path) is str and not placeholder(path, templated):
        problem = local_path_problem(path, reserved=True) if path else "is required"
        if problem:
            issues.append(issue((*projected, "path"), f"{what} path {show(path)} {problem}", "volume-source"))


def service_account_token_issues(spec: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``validatePodMetadataAndSpec`` (Pods only, not templates): a projected ``serviceAccountToken``
    needs ``serviceAccountName`` (or the deprecated ``serviceAccount``, which v1 converts to it)."""
    if spec.get("serviceAccountName") or spec.get("serviceAccount"):
        return
    volumes = spec.get("volumes")
    if type(volumes) is not list:
        return
    for index, volume in enumerate(volumes):
        sources = get(volume, "projected", "sources")
        if type(sources) is not list:
            continue
        for number, source in enumerate(sources):
            if type(source) is dict and source.get("serviceAccountToken") is not None:
                issues.append(
                    issue(
                        (*parts, "volumes", index, "projected", "sources", number, "serviceAccountToken"),
                        f"{_volume_label(volume, index)} projects a serviceAccountToken, which a Pod without "
                        "spec.serviceAccountName may not",
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
