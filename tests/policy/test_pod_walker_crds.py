"""The pod walker's coverage, derived from the CRDs (issue 26 point 1).

Every CRD of ../shared/crds is searched for schema nodes shaped like a PodSpec (``containers`` is an
array of objects with ``name`` and ``image``) or like a Container (``image`` beside ``command``,
``args`` or ``env``; those inside a PodSpec's container lists are reached through it). For each node
an instance is generated that puts one container there, and both walks must reach that container at
its JSON path: the Python walk every pod rule uses (:func:`trainops.policy.pods.all_containers`) and
the CEL of ``variables.containers`` that exported ValidatingAdmissionPolicies carry
(:mod:`trainops.cel.celrule`). A CRD that gains a pod spec fails here until
:data:`trainops.core.kinds.POD_SPEC_SITES` (or :data:`~trainops.core.kinds.POD_TEMPLATE_SITES`) reaches it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from conftest import CRDS, needs_shared
from trainops.cel import admission
from trainops.cel.celrule import CONTAINERS_EXPRESSION, POD_SPECS, pod_specs_expression
from trainops.core.findings import json_path
from trainops.core.kinds import CONTAINER_FIELDS, Parts
from trainops.policy.pods import POD_KINDS, all_containers


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader, also taking the YAML 1.1 ``=`` value tag a prometheus-operator CRD uses."""


_Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))  # type: ignore[arg-type]

#: The container the generated instances carry.
PROBE = {"name": "walker-probe", "image": "registry.example.com/probe:1.0"}
#: In a schema path: every item of an array, every value of a map (instances use index 0 and key ``k``).
ITEM, VALUE = "[]", "*"


def _object_array(schema: Any) -> bool:
    items = schema.get("items") if isinstance(schema, dict) and schema.get("type") == "array" else None
    return isinstance(items, dict) and isinstance(items.get("properties"), dict)


def is_pod_spec(schema: dict[str, Any]) -> bool:
    """A PodSpec by its properties: ``containers``, an array of objects with ``name`` and ``image``."""
    containers = (schema.get("properties") or {}).get("containers")
    return _object_array(containers) and {"name", "image"} <= set(containers["items"]["properties"])


def is_container(schema: dict[str, Any]) -> bool:
    """A Container by its properties: ``image`` beside ``command``, ``args`` or ``env``."""
    names = set(schema.get("properties") or {})
    return "image" in names and bool(names & {"command", "args", "env"})


def shaped_nodes(schema: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, tuple[str, ...]]]:
    """``("pod"|"container", schema path)`` of every node shaped like a PodSpec or a Container, not
    descending into a PodSpec's container lists (their items are the pod's own containers)."""
    if not isinstance(schema, dict):
        return
    pod = is_pod_spec(schema)
    if pod:
        yield "pod", path
    elif is_container(schema):
        yield "container", path
    for name, child in (schema.get("properties") or {}).items():
        if not (pod and name in CONTAINER_FIELDS):
            yield from shaped_nodes(child, (*path, name))
    if isinstance(schema.get("items"), dict):
        yield from shaped_nodes(schema["items"], (*path, ITEM))
    if isinstance(schema.get("additionalProperties"), dict):
        yield from shaped_nodes(schema["additionalProperties"], (*path, VALUE))


def _cases() -> list[Any]:
    cases = []
    for file in sorted(CRDS.rglob("*.yaml")) if CRDS.is_dir() else []:
        for crd in yaml.load_all(file.read_text(encoding="utf-8"), Loader=_Loader):
            if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                schema = (version.get("schema") or {}).get("openAPIV3Schema")
                for shape, path in shaped_nodes(schema):
                    ident = f"{kind}.{version['name']}:{shape}:{'.'.join(path)}"
                    cases.append(pytest.param(group, version["name"], kind, shape, path, id=ident))
    return cases


CASES = _cases()


def instance(
    group: str, version: str, kind: str, shape: str, path: tuple[str, ...]
) -> tuple[dict[str, Any], Parts]:
    """An object of the kind with one container at the shaped node ``path``, and that container's parts."""
    leaf: Any = {"containers": [dict(PROBE)]} if shape == "pod" else dict(PROBE)
    parts: list[str | int] = []
    for step in path:
        parts.append(0 if step == ITEM else "k" if step == VALUE else step)
    for part in reversed(parts):
        leaf = [leaf] if isinstance(part, int) else {part: leaf}
    obj = {"apiVersion": f"{group}/{version}", "kind": kind, "metadata": {"name": "probe"}, **leaf}
    where: Parts = (*parts, "containers", 0) if shape == "pod" else tuple(parts)
    return obj, where


@needs_shared
def test_the_crds_have_pod_specs_and_containers() -> None:
    """The search finds what the walker was written for (so an empty search cannot pass)."""
    ids = {case.id for case in CASES}
    for expected in (
        "InferenceService.v1beta1:container:spec.predictor.model",
        "InferenceService.v1beta1:pod:spec.predictor",
        "TrainJob.v1alpha1:container:spec.trainer",
        "ServingRuntime.v1alpha1:pod:spec",
        "LLMInferenceService.v1alpha1:pod:spec.template",
        "PyTorchJob.v1:pod:spec.pytorchReplicaSpecs.*.template.spec",
    ):
        assert expected in ids
    assert len(CASES) > 70


@needs_shared
@pytest.mark.parametrize(("group", "version", "kind", "shape", "path"), CASES)
def test_walker_reaches_every_pod_spec_and_container_of_the_crds(
    group: str, version: str, kind: str, shape: str, path: tuple[str, ...]
) -> None:
    obj, where = instance(group, version, kind, shape, path)
    assert (group, kind) in POD_KINDS, f"{group}/{kind} is not a kind pod rules apply to"
    reached = {container.parts: container.name for container in all_containers(obj)}
    assert reached.get(where) == PROBE["name"], (
        f"the pod walker does not reach {json_path(where)}: {sorted(reached)}"
    )
    specs = admission._eval(pod_specs_expression((group, kind)), {"object": admission.object_value(obj)})
    cel = admission._eval(CONTAINERS_EXPRESSION, {"variables": {POD_SPECS: specs}})
    assert isinstance(cel, list), cel
    assert json_path(where) in {c["path"] for c in cel}, f"the CEL walk does not reach {json_path(where)}"
