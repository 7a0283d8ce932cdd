"""The schemas kubeconform reads in ``make bench``: the very schemas trainops validates with, in
kubeconform's file layout.

* **Core kinds** (:func:`write_core`): kubernetes-validate's strict schemas of the bench's Kubernetes
  version (``kubernetes_validate/kubernetes-json-schema/v1.N.0-local-strict/``, one file per kind
  plus ``_definitions.json``) made standalone: every ``$ref`` into ``_definitions.json`` is replaced
  by the definition it names (:func:`standalone`), as the ``-standalone-strict`` folders of
  kubeconform's schema repository (yannh/kubernetes-json-schema, made by openapi2jsonschema's
  ``--stand-alone`` mode) are. kubeconform cannot read the files as they are: their
  ``/api/_definitions.json`` references resolve against their ``$id`` to an https address. Written to
  ``<root>/kschemas/v1.N.0-standalone-strict/<kind>-<group>-<version>.json``, the path its default
  template ``{{.NormalizedKubernetesVersion}}-standalone{{.StrictSuffix}}/{{.ResourceKind}}{{.KindSuffix}}.json``
  reads. The one recursive definition (``JSONSchemaProps``, inside ``CustomResourceDefinition``) is
  cut to ``{}`` where it refers to itself; openapi2jsonschema skips those kinds in stand-alone mode.
  The files keep kubernetes-validate's ``$schema`` (draft 2020-12); kubeconform compiles a schema
  without one as draft 4, where it asserts ``format``.
* **CRDs** (:func:`write_crds`): every CRD of ``../shared/crds``, each served version's
  ``openAPIV3Schema``, converted as kubeconform's ``scripts/openapi2jsonschema.py`` (v0.7.0) does with
  ``DENY_ROOT_ADDITIONAL_PROPERTIES=1`` and ``FILENAME_FORMAT={kind}-{fullgroup}-{version}``
  (:func:`crd_schema`), to ``<root>/crdschemas/<kind>-<group>-<version>.json`` (lower case).

:func:`prepare` writes both once under the bench output directory and keeps them while their
inputs (this module, the kubernetes-validate schemas, the CRD files) are unchanged.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

#: Keys beside a ``$ref`` that only annotate (description, Kubernetes extensions): merged into the
#: inlined definition. Any other sibling keeps both, as ``allOf``.
_ANNOTATIONS = frozenset({"description", "default", "example", "title"})
_DEFS_REF = "#/$defs/"


def kubernetes_validate_dir(kubernetes_version: str) -> Path:
    """kubernetes-validate's strict schema folder for ``kubernetes_version`` (``"1.34"``).

    Raises:
        FileNotFoundError: kubernetes-validate is not installed or has no schemas of that version.
    """
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("kubernetes-validate is not installed")
    directory = Path(spec.origin).parent / "kubernetes-json-schema" / f"v{kubernetes_version}.0-local-strict"
    if not (directory / "_definitions.json").is_file():
        raise FileNotFoundError(
            f"{directory}: no kubernetes-validate schemas of Kubernetes {kubernetes_version}"
        )
    return directory


def standalone(schema: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every ``$ref`` to ``…#/$defs/NAME`` replaced by ``definitions[NAME]``, itself
    made standalone; a reference to a definition being expanded (recursion) becomes ``{}``.

    Args:
        schema: one kind's schema (it is not modified).
        definitions: the ``$defs`` of ``_definitions.json``.

    Returns:
        a new schema with no ``$ref`` and no ``$id`` (the file is not at that address); nodes of
        definitions without recursion are shared between the places they are inlined.

    Raises:
        KeyError: a reference names no definition.
    """
    done: dict[str, Any] = {}

    def expand(name: str, stack: tuple[str, ...]) -> tuple[Any, bool]:
        if name in stack:
            return {}, True
        if name in done:
            return done[name], False
        value, cut = walk(definitions[name], (*stack, name))
        if not cut:
            done[name] = value
        return value, cut

    def walk(node: Any, stack: tuple[str, ...]) -> tuple[Any, bool]:
        if isinstance(node, list):
            items = [walk(item, stack) for item in node]
            return [value for value, _ in items], any(cut for _, cut in items)
        if not isinstance(node, dict):
            return node, False
        ref = node.get("$ref")
        if isinstance(ref, str):
            _, _, name = ref.partition(_DEFS_REF)
            target, cut = expand(name, stack)
            rest = {k: v for k, v in node.items() if k != "$ref"}
            if any(k not in _ANNOTATIONS and not k.startswith("x-kubernetes-") for k in rest):
                return {"allOf": [target], **rest}, cut
            return {**target, **rest}, cut
        out: dict[str, Any] = {}
        any_cut = False
        for key, value in node.items():
            out[key], cut = walk(value, stack)
            any_cut |= cut
        return out, any_cut

    result, _ = walk({k: v for k, v in schema.items() if k != "$id"}, ())
    return dict(result)


def write_core(kubernetes_version: str, out: Path) -> int:
    """Write the standalone strict schema of every kind file of kubernetes-validate's
    ``kubernetes_version`` folder into ``out/v1.N.0-standalone-strict/``; return how many.

    Raises:
        FileNotFoundError: see :func:`kubernetes_validate_dir`.
    """
    source = kubernetes_validate_dir(kubernetes_version)
    definitions = json.loads((source / "_definitions.json").read_text(encoding="utf-8"))["$defs"]
    target = out / f"v{kubernetes_version}.0-standalone-strict"
    target.mkdir(parents=True, exist_ok=True)
    count = 0
    for path in sorted(source.glob("*.json")):
        if path.name in ("_definitions.json", "all.json"):
            continue
        schema = standalone(json.loads(path.read_text(encoding="utf-8")), definitions)
        (target / path.name).write_text(json.dumps(schema, separators=(",", ":")), encoding="utf-8")
        count += 1
    return count


# --- CRDs: kubeconform's scripts/openapi2jsonschema.py (v0.7.0), the few lines it runs ---------------


class _CrdLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader (its LibYAML class when built) reading the ``=`` value tag as a string
    (``construct_value`` of openapi2jsonschema.py; PyYAML issue 89)."""


def _construct_value(loader: Any, node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise yaml.constructor.ConstructorError(
            "while constructing a value",
            node.start_mark,
            f"expected a scalar, but found {type(node).__name__}",
            node.start_mark,
        )
    return str(node.value)


_CrdLoader.add_constructor("tag:yaml.org,2002:value", _construct_value)


def _deny_additional_properties(data: Any) -> Any:
    """Every mapping with ``properties`` and no ``additionalProperties`` gets
    ``additionalProperties: false``, the root included (openapi2jsonschema.py's
    ``additional_properties`` with ``DENY_ROOT_ADDITIONAL_PROPERTIES`` set: it walks every value of
    every mapping). Modifies ``data`` in place."""
    if isinstance(data, dict):
        if "properties" in data and "additionalProperties" not in data:
            data["additionalProperties"] = False
        for value in data.values():
            _deny_additional_properties(value)
    return data


def _replace_int_or_string(data: Any) -> Any:
    """A copy of ``data`` where every mapping value with ``format: int-or-string`` becomes
    ``{"oneOf": [{"type": "string"}, {"type": "integer"}]}`` (openapi2jsonschema.py's
    ``replace_int_or_string``; like it, lists are walked only inside mappings)."""
    if not isinstance(data, dict):
        return data
    new: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            if value.get("format") == "int-or-string":
                new[key] = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
            else:
                new[key] = _replace_int_or_string(value)
        elif isinstance(value, list):
            new[key] = [_replace_int_or_string(item) for item in value]
        else:
            new[key] = value
    return new


def crd_schema(open_api_v3_schema: dict[str, Any]) -> dict[str, Any]:
    """One CRD version's ``openAPIV3Schema`` as kubeconform reads it, strict: ``write_schema_file`` of
    openapi2jsonschema.py with ``DENY_ROOT_ADDITIONAL_PROPERTIES=1`` (the argument is modified)."""
    return dict(_replace_int_or_string(_deny_additional_properties(open_api_v3_schema)))


def crd_schemas(text: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(file name, schema) for every version with a schema of every CRD in the YAML ``text``
    (``items`` of a list included), the file named ``{kind}-{fullgroup}-{version}.json`` in lower
    case; the order of the file, as openapi2jsonschema.py's main loop writes them.

    Raises:
        yaml.YAMLError: ``text`` is not YAML.
    """
    crds: list[dict[str, Any]] = []
    for doc in yaml.load_all(text, Loader=_CrdLoader):
        if not isinstance(doc, dict):
            continue
        crds.extend(doc.get("items") or [])
        if doc.get("kind") == "CustomResourceDefinition":
            crds.append(doc)
    for crd in crds:
        spec = crd.get("spec") or {}
        names = {"kind": spec["names"]["kind"], "fullgroup": spec["group"]}
        for version in spec.get("versions") or []:
            schema = (version.get("schema") or {}).get("openAPIV3Schema")
            if schema is None:
                schema = (spec.get("validation") or {}).get("openAPIV3Schema")
            if schema is not None:
                name = "{kind}-{fullgroup}-{version}".format(**names, version=version["name"]).lower()
                yield f"{name}.json", crd_schema(schema)
        if not spec.get("versions") and "openAPIV3Schema" in (spec.get("validation") or {}):
            name = "{kind}-{fullgroup}-{version}".format(**names, version=spec["version"]).lower()
            yield f"{name}.json", crd_schema(spec["validation"]["openAPIV3Schema"])


def write_crds(crd_files: Sequence[Path], out: Path) -> int:
    """Convert every CRD of ``crd_files`` into ``out`` (a later file's schema of the same kind, group
    and version replaces an earlier one's, as the script's); return how many files were written.

    Raises:
        OSError, yaml.YAMLError: a file cannot be read or parsed.
    """
    out.mkdir(parents=True, exist_ok=True)
    written = set()
    for path in crd_files:
        for name, schema in crd_schemas(path.read_text(encoding="utf-8")):
            (out / name).write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
            written.add(name)
    return len(written)


def crd_files(crds: Path) -> list[Path]:
    """The CRD files of a folder like ``../shared/crds`` (``*/*.yaml``), sorted."""
    return sorted(crds.glob("*/*.yaml"))


def _digest(kubernetes_version: str, crds: Sequence[Path]) -> str:
    """Key of the prepared schemas: this module, kubernetes-validate's folder, the CRD files."""
    digest = hashlib.sha256(kubernetes_version.encode())
    source = kubernetes_validate_dir(kubernetes_version)
    for path in [Path(__file__), source / "_definitions.json", *sorted(source.glob("*-*.json")), *crds]:
        digest.update(str(path.name).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def prepare(root: Path, kubernetes_version: str, crds: Path) -> Path:
    """Write the core and CRD schemas under ``root`` (``kschemas/``, ``crdschemas/``) unless the stamp
    says they are up to date; return ``root``.

    Args:
        root: output folder (e.g. ``bench/out/kubeconform``); replaced when stale.
        kubernetes_version: ``"1.34"``.
        crds: folder of CRD files (``../shared/crds``).

    Raises:
        FileNotFoundError: see :func:`kubernetes_validate_dir`.
        OSError, yaml.YAMLError: a CRD file cannot be read or parsed.
    """
    files = crd_files(crds)
    key = _digest(kubernetes_version, files)
    stamp = root / "stamp"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == key:
        return root
    if root.exists():
        shutil.rmtree(root)
    write_core(kubernetes_version, root / "kschemas")
    write_crds(files, root / "crdschemas")
    stamp.write_text(key, encoding="utf-8")
    return root
