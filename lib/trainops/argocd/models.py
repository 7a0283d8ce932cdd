"""Typed request and response models for the few Argo CD REST endpoints trainops uses.

Every model is a frozen dataclass holding exactly the fields trainops reads or sends. Each field
names its JSON path in the Argo CD object (``metadata={"json": ("status", "health")}``) and each
model names the swagger definitions it mirrors (``SWAGGER``), so a test can check every field
against ``swagger.json`` of Argo CD (``assets/swagger.json``, argoproj/argo-cd v3.5.1) and the
parser below reads exactly what the test checked.

Field types: ``str`` (swagger ``string``, absent means ``""``), ``bool`` (``boolean``, absent
means ``False``), another model (``$ref`` object, absent means ``None`` or the model's defaults)
and ``tuple[Model, ...]`` (``array`` of ``$ref``, absent means ``()``). No int64 fields: the
gRPC gateway encodes those as JSON strings.
"""

from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from trainops.argocd.errors import InvalidResponseError

HealthCode = Literal["Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"]
"""Argo CD health codes (gitops-engine ``pkg/health`` HealthStatusCode); ``""`` when there is none."""

HEALTH_CODES: tuple[str, ...] = ("Healthy", "Suspended", "Progressing", "Missing", "Degraded", "Unknown")
"""Health codes from best to worst, the order Argo CD uses for an app's health (``docs/health.md``)."""


def _json(*path: str) -> dict[str, tuple[str, ...]]:
    return {"json": path}


@dataclass(frozen=True)
class HealthStatus:
    """Health of an application or of one resource: ``status`` (a health code or ``""``) and ``message``."""

    SWAGGER: ClassVar[tuple[str, ...]] = ("v1alpha1HealthStatus", "v1alpha1AppHealthStatus")
    status: str = field(default="", metadata=_json("status"))
    message: str = field(default="", metadata=_json("message"))


@dataclass(frozen=True)
class SyncStatus:
    """Sync state of an application: ``status`` (``Synced``, ``OutOfSync``, ``Unknown``), ``revision``
    (the synced commit SHA, or the chart version of a Helm repository source) and
    ``compared_revision`` (the ``targetRevision`` of the source it was last compared with)."""

    SWAGGER: ClassVar[tuple[str, ...]] = ("v1alpha1SyncStatus",)
    status: str = field(default="", metadata=_json("status"))
    revision: str = field(default="", metadata=_json("revision"))
    compared_revision: str = field(default="", metadata=_json("comparedTo", "source", "targetRevision"))


@dataclass(frozen=True)
class OperationState:
    """The last or running operation: ``phase`` (``Running``, ``Succeeded``, ``Failed``, ``Error``, ``Terminating``)."""

    SWAGGER: ClassVar[tuple[str, ...]] = ("v1alpha1OperationState",)
    phase: str = field(default="", metadata=_json("phase"))
    message: str = field(default="", metadata=_json("message"))


@dataclass(frozen=True)
class ResourceStatus:
    """One resource of ``Application.status.resources``; ``requires_pruning`` marks a resource no longer in git."""

    SWAGGER: ClassVar[tuple[str, ...]] = ("applicationv1alpha1ResourceStatus",)
    group: str = field(default="", metadata=_json("group"))
    version: str = field(default="", metadata=_json("version"))
    kind: str = field(default="", metadata=_json("kind"))
    namespace: str = field(default="", metadata=_json("namespace"))
    name: str = field(default="", metadata=_json("name"))
    status: str = field(default="", metadata=_json("status"))
    health: HealthStatus | None = field(default=None, metadata=_json("health"))
    requires_pruning: bool = field(default=False, metadata=_json("requiresPruning"))


@dataclass(frozen=True)
class Application:
    """An Argo CD Application, flattened to what trainops reads (``GET /api/v1/applications/{name}``)."""

    SWAGGER: ClassVar[tuple[str, ...]] = ("v1alpha1Application",)
    name: str = field(default="", metadata=_json("metadata", "name"))
    namespace: str = field(default="", metadata=_json("metadata", "namespace"))
    project: str = field(default="", metadata=_json("spec", "project"))
    target_revision: str = field(default="", metadata=_json("spec", "source", "targetRevision"))
    sync: SyncStatus = field(default_factory=SyncStatus, metadata=_json("status", "sync"))
    health: HealthStatus = field(default_factory=HealthStatus, metadata=_json("status", "health"))
    operation_state: OperationState | None = field(default=None, metadata=_json("status", "operationState"))
    resources: tuple[ResourceStatus, ...] = field(default=(), metadata=_json("status", "resources"))


@dataclass(frozen=True)
class ApplicationList:
    """``GET /api/v1/applications``: the applications the token may see."""

    SWAGGER: ClassVar[tuple[str, ...]] = ("v1alpha1ApplicationList",)
    items: tuple[Application, ...] = field(default=(), metadata=_json("items"))


@dataclass(frozen=True)
class ResourceNode:
    """One live resource of the application's resource tree, with the health Argo CD computed for it."""

    SWAGGER: ClassVar[tuple[str, ...]] = ("v1alpha1ResourceNode",)
    group: str = field(default="", metadata=_json("group"))
    version: str = field(default="", metadata=_json("version"))
    kind: str = field(default="", metadata=_json("kind"))
    namespace: str = field(default="", metadata=_json("namespace"))
    name: str = field(default="", metadata=_json("name"))
    health: HealthStatus | None = field(default=None, metadata=_json("health"))


@dataclass(frozen=True)
class ApplicationTree:
    """``GET /api/v1/applications/{applicationName}/resource-tree``: managed resources and their children."""

    SWAGGER: ClassVar[tuple[str, ...]] = ("v1alpha1ApplicationTree",)
    nodes: tuple[ResourceNode, ...] = field(default=(), metadata=_json("nodes"))


@dataclass(frozen=True)
class SyncRequest:
    """Body of ``POST /api/v1/applications/{name}/sync``.

    Args:
        name: the application. revision: git revision, tag or branch to sync to; ``""`` syncs the
        application's target revision. prune: delete resources no longer in git (except those with
        ``Prune=false``). dry_run: let Argo CD run the sync without applying anything.
        app_namespace: namespace of the Application (apps in any namespace); ``""`` for the default.
    """

    SWAGGER: ClassVar[tuple[str, ...]] = ("applicationApplicationSyncRequest",)
    name: str = field(default="", metadata=_json("name"))
    revision: str = field(default="", metadata=_json("revision"))
    prune: bool = field(default=False, metadata=_json("prune"))
    dry_run: bool = field(default=False, metadata=_json("dryRun"))
    app_namespace: str = field(default="", metadata=_json("appNamespace"))


@dataclass(frozen=True)
class ResourceActionRequest:
    """Body of ``POST /api/v1/applications/{name}/resource/actions/v2`` (``RunResourceActionV2``):
    run the resource action ``action`` (e.g. ``resume``, ``promote-full``, ``abort`` on an Argo Rollouts
    Rollout) on one live resource of the application.

    Args:
        name: the application. namespace, resource_name, version, group, kind: the resource (``group``
        ``""`` for the core group). action: the action's name. app_namespace: namespace of the
        Application; ``""`` for the default.
    """

    SWAGGER: ClassVar[tuple[str, ...]] = ("applicationResourceActionRunRequestV2",)
    name: str = field(default="", metadata=_json("name"))
    namespace: str = field(default="", metadata=_json("namespace"))
    resource_name: str = field(default="", metadata=_json("resourceName"))
    version: str = field(default="", metadata=_json("version"))
    group: str = field(default="", metadata=_json("group"))
    kind: str = field(default="", metadata=_json("kind"))
    action: str = field(default="", metadata=_json("action"))
    app_namespace: str = field(default="", metadata=_json("appNamespace"))


@dataclass(frozen=True)
class ErrorBody:
    """The error body of every endpoint (``runtimeError``): ``message`` and gRPC ``code``."""

    SWAGGER: ClassVar[tuple[str, ...]] = ("runtimeError",)
    message: str = field(default="", metadata=_json("message"))
    error: str = field(default="", metadata=_json("error"))


M = TypeVar("M")


def parse_model(cls: type[M], data: Any, *, where: str) -> M:
    """Build model ``cls`` from decoded JSON ``data``, reading each field at its ``json`` path.

    Missing fields (and JSON null) take the field default; unknown fields are ignored, as a client
    of a newer server must.

    Raises:
        InvalidResponseError: ``data`` or a field has the wrong JSON type; ``where`` (e.g.
            ``"GET /api/v1/applications"``) starts the message.
    """
    if not isinstance(data, dict):
        raise InvalidResponseError(f"{where}: expected a JSON object, got {_json_type(data)}")
    hints = get_type_hints(cls)
    values: dict[str, Any] = {}
    for fld in dataclasses.fields(cls):  # type: ignore[arg-type]
        path: tuple[str, ...] = fld.metadata["json"]
        raw = _dig(data, path, where)
        if raw is None:
            continue
        values[fld.name] = _convert(hints[fld.name], raw, f"{where}: {'.'.join(path)}")
    return cls(**values)


def dump_model(model: Any) -> dict[str, Any]:
    """Encode a request model as JSON, omitting empty strings and ``None`` (booleans are always sent)."""
    out: dict[str, Any] = {}
    for fld in dataclasses.fields(model):
        value = getattr(model, fld.name)
        if value is None or value == "":
            continue
        target = out
        path: tuple[str, ...] = fld.metadata["json"]
        for key in path[:-1]:
            target = target.setdefault(key, {})
        target[path[-1]] = dump_model(value) if dataclasses.is_dataclass(value) else value
    return out


def _dig(data: dict[str, Any], path: tuple[str, ...], where: str) -> Any:
    value: Any = data
    for depth, key in enumerate(path):
        if value is None:
            return None
        if not isinstance(value, dict):
            raise InvalidResponseError(
                f"{where}: {'.'.join(path[:depth])} is {_json_type(value)}, expected an object"
            )
        value = value.get(key)
    return value


def _convert(tp: Any, raw: Any, where: str) -> Any:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        (inner,) = (arg for arg in get_args(tp) if arg is not type(None))
        return _convert(inner, raw, where)
    if origin is tuple:
        if not isinstance(raw, list):
            raise InvalidResponseError(f"{where} is {_json_type(raw)}, expected an array")
        item_type = get_args(tp)[0]
        return tuple(_convert(item_type, item, f"{where}[{i}]") for i, item in enumerate(raw))
    if tp is bool:
        if not isinstance(raw, bool):
            raise InvalidResponseError(f"{where} is {_json_type(raw)}, expected a boolean")
        return raw
    if tp is str:
        if not isinstance(raw, str):
            raise InvalidResponseError(f"{where} is {_json_type(raw)}, expected a string")
        return raw
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return parse_model(tp, raw, where=where)
    raise TypeError(f"unsupported model field type {tp!r}")  # a programming error, caught by the tests


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
