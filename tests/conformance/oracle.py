"""The kube-apiserver oracle of ``../shared/oracle``: lifecycle and a small REST client.

``start_oracle`` runs ``oracle.sh start`` with a dedicated state directory and fixed ports, and
returns the connection facts, or a :class:`OracleUnavailable` carrying the reason a test should skip
with. :class:`OracleClient` speaks plain REST over httpx (bearer token, the oracle's CA):

* discovery (``GET /api/v1``, ``GET /apis``, ``GET /apis/<group>/<version>``) gives each served
  (apiVersion, kind) its plural and scope;
* CRDs are created from the upstream files as they are (``application/yaml`` bodies) and waited
  for until their ``Established`` condition is true and discovery serves them;
* :meth:`OracleClient.dry_run` creates one document with ``dryRun=All&fieldValidation=Strict``
  (KEP-576 server-side dry run, KEP-2885 server-side field validation), sending the document's own
  YAML text, so duplicate keys and YAML 1.1 scalars reach the server exactly as written.
"""

from __future__ import annotations

import os
import re
import resource
import ssl
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import httpx

SHARED = Path(__file__).resolve().parents[3] / "shared"
ORACLE_SH = SHARED / "oracle" / "oracle.sh"

#: Ports of this suite's oracle (another helper's oracle may use 7443/7379: never touched here).
API_PORT = 6443
ETCD_PORT = 2379

ServerStatus = Literal["accept", "reject", "not-served", "other"]


class OracleUnavailable(Exception):
    """The oracle cannot run here; the message says why (tests skip with it)."""


@dataclass(frozen=True)
class OracleEnv:
    """How to reach a started oracle: ``url`` (https://127.0.0.1:<port>), ``token``, ``ca`` file."""

    url: str
    token: str = field(repr=False)
    ca: str


def oracle_dir() -> Path:
    """This suite's own oracle state directory under /tmp (keys, etcd data, logs)."""
    return Path("/tmp") / f"trainops-conformance-oracle-{os.getuid()}"


def _oracle_environ() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        ORACLE_DIR=str(oracle_dir()),
        ORACLE_API_PORT=str(API_PORT),
        ORACLE_ETCD_PORT=str(ETCD_PORT),
    )
    return env


def full_address_space() -> None:
    """``preexec_fn`` for the oracle's processes: lift the soft ``RLIMIT_AS`` back to the hard limit.

    ``trainops validate`` run in this pytest process lowers the soft limit (its memory ceiling,
    :func:`trainops.yaml.limits.apply_memory_limit`), and children inherit it: etcd then cannot map
    its database ("cannot allocate memory") and the kube-apiserver exits.
    """
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def start_oracle() -> OracleEnv:
    """Start etcd + kube-apiserver with ``FRESH=1`` (no objects left from an earlier run).

    Raises:
        OracleUnavailable: the script is missing, etcd/openssl/curl are missing (exit 3), or the
            server did not become ready (a port in use, a crash); the message names the cause.
    """
    if not ORACLE_SH.is_file():
        raise OracleUnavailable(f"{ORACLE_SH} is missing (../shared/oracle is not beside the repository)")
    env = _oracle_environ()
    env["FRESH"] = "1"
    try:
        proc = subprocess.run(
            ["bash", str(ORACLE_SH), "start"],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            preexec_fn=full_address_space,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OracleUnavailable(f"oracle.sh start failed: {exc}") from None
    if proc.returncode != 0:
        message = " ".join(proc.stderr.split()) or f"exit {proc.returncode}"
        raise OracleUnavailable(f"the kube-apiserver oracle cannot start here: {message}")
    values = dict(
        line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line and line.startswith("ORACLE_")
    )
    try:
        return OracleEnv(values["ORACLE_URL"], values["ORACLE_TOKEN"], values["ORACLE_CA"])
    except KeyError as exc:
        raise OracleUnavailable(f"oracle.sh start printed no {exc.args[0]}") from None


def stop_oracle() -> None:
    """Stop exactly the two processes :func:`start_oracle` started (``oracle.sh stop``)."""
    subprocess.run(
        ["bash", str(ORACLE_SH), "stop"], env=_oracle_environ(), capture_output=True, text=True, timeout=60
    )


@dataclass(frozen=True)
class Resource:
    """A served resource: ``plural`` name and whether it is ``namespaced``."""

    plural: str
    namespaced: bool


@dataclass(frozen=True)
class ServerVerdict:
    """What the server said about one document.

    Args:
        status: ``accept`` (200/201), ``reject`` (400/422: validation or decoding), ``not-served``
            (discovery has no such apiVersion/kind) or ``other`` (403 admission, 404 namespace,
            409 conflict, 5xx: not a verdict on the document's validity).
        code: the HTTP status code (0 when nothing was sent).
        message: the Status message (empty when accepted).
        causes: ``field: message`` of each Status cause (empty when the Status lists none).
        fields: the field path of each cause that names one (``spec.containers[0].image``).
    """

    status: ServerStatus
    code: int
    message: str = ""
    causes: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()


class OracleClient:
    """A keep-alive httpx client for one oracle (thread-safe; share it across a thread pool)."""

    def __init__(self, env: OracleEnv) -> None:
        self._http = httpx.Client(
            base_url=env.url,
            verify=ssl.create_default_context(cafile=env.ca),
            headers={"Authorization": f"Bearer {env.token}", "Accept": "application/json"},
            timeout=httpx.Timeout(120.0, connect=10.0),
            limits=httpx.Limits(max_connections=8, max_keepalive_connections=8),
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    # --- discovery ----------------------------------------------------------------------------------

    def discover(self) -> dict[tuple[str, str], Resource]:
        """Every served (apiVersion, kind) → :class:`Resource` (subresources left out)."""
        group_versions = ["v1"]
        groups = self._get_json("/apis")
        for group in groups.get("groups", []):
            group_versions.extend(v["groupVersion"] for v in group.get("versions", []))
        out: dict[tuple[str, str], Resource] = {}
        for gv in group_versions:
            listing = self._get_json("/api/v1" if gv == "v1" else f"/apis/{gv}")
            for res in listing.get("resources", []):
                if "/" not in res["name"]:
                    out[(gv, res["kind"])] = Resource(res["name"], bool(res["namespaced"]))
        return out

    def _get_json(self, path: str) -> dict[str, Any]:
        response = self._http.get(path)
        response.raise_for_status()
        data: dict[str, Any] = response.json()
        return data

    # --- CRDs and namespaces -------------------------------------------------------------------------

    _CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

    def create_crd(self, text: str) -> tuple[str | None, str]:
        """Create a CRD from its YAML text; return (its name, "") or (None, the server's refusal)."""
        response = self._http.post(self._CRDS, content=text, headers={"Content-Type": "application/yaml"})
        if response.status_code not in (200, 201):
            return None, f"{response.status_code} {_message(response)}"
        name: str = response.json()["metadata"]["name"]
        return name, ""

    def wait_established(self, names: Iterable[str], timeout: float = 300.0) -> None:
        """Wait until every named CRD has condition ``Established=True``.

        Raises:
            TimeoutError: some are not established after ``timeout`` seconds.
        """
        pending = set(names)
        deadline = time.monotonic() + timeout
        while pending:
            for name in sorted(pending):
                response = self._http.get(f"{self._CRDS}/{name}")
                if response.status_code == 200 and _established(response.json()):
                    pending.discard(name)
            if not pending:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"CRDs not established after {timeout:.0f} s: {', '.join(sorted(pending))}"
                )
            time.sleep(0.5)

    def delete_crd(self, name: str, timeout: float = 120.0) -> None:
        """Delete a CRD and wait until it is gone.

        Raises:
            TimeoutError: it still exists after ``timeout`` seconds.
        """
        self._http.delete(f"{self._CRDS}/{name}")
        deadline = time.monotonic() + timeout
        while self._http.get(f"{self._CRDS}/{name}").status_code != 404:
            if time.monotonic() > deadline:
                raise TimeoutError(f"CRD {name} not deleted after {timeout:.0f} s")
            time.sleep(0.3)

    def ensure_namespace(self, name: str) -> bool:
        """Create namespace ``name`` unless it exists; False when the server refuses the name."""
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        response = self._http.post("/api/v1/namespaces", json=body)
        return response.status_code in (200, 201, 409)

    # --- the verdict ---------------------------------------------------------------------------------

    def dry_run(self, text: str, api_version: str, resource: Resource, namespace: str) -> ServerVerdict:
        """Create ``text`` (one YAML document) with server-side dry run and strict field validation.

        ``namespace`` goes into the URL for namespaced resources (the document's own, else
        ``default``).
        """
        prefix = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        scope = f"/namespaces/{quote(namespace, safe='')}" if resource.namespaced else ""
        response = self._http.post(
            f"{prefix}{scope}/{resource.plural}",
            params={"dryRun": "All", "fieldValidation": "Strict"},
            content=text.encode("utf-8"),
            headers={"Content-Type": "application/yaml"},
        )
        code = response.status_code
        if code in (200, 201):
            return ServerVerdict("accept", code)
        status = _status(response)
        message = str(status.get("message", response.text.strip()))
        details = (status.get("details") or {}).get("causes", [])
        causes = tuple(
            f"{c['field']}: {c.get('message', '')}" if c.get("field") else str(c.get("message", ""))
            for c in details
        )
        fields = tuple(field for c in details if (field := _cause_field(c)))
        status_name: ServerStatus = "reject" if code in (400, 422) else "other"
        return ServerVerdict(status_name, code, message, causes, fields or _decoding_fields(message))


_DECODING_FIELD = re.compile(
    r'(?:unknown|duplicate) field "([^"]+)"|Go struct field ([A-Za-z0-9_]+)\.([^ ]+)'
)


_IN_PATH = re.compile(r" in ([A-Za-z0-9_.\[\]/-]+)$")


def _cause_field(cause: dict[str, Any]) -> str:
    """A cause's field; CRD int32 format errors name it only in the message (``... in spec.x``)."""
    field = str(cause.get("field") or "")
    if field and field != "<nil>":
        return field
    match = _IN_PATH.search(str(cause.get("message", "")))
    return match.group(1) if match else ""


def _decoding_fields(message: str) -> tuple[str, ...]:
    """Field paths named by a decoding error (400), which carries no Status causes.

    ``strict decoding error: unknown field "spec.x"`` (sigs.k8s.io/json strict mode) and
    ``json: cannot unmarshal ... into Go struct field Secret.stringData`` (encoding/json: the Go
    type, then the JSON path without list indexes).
    """
    out = []
    for named, go_type, go_path in _DECODING_FIELD.findall(message):
        if named:
            out.append(named)
            continue
        # Embedded structs appear under their Go type name (PersistentVolumeSource); a custom
        # resource's metadata is decoded on its own, so its path starts below ObjectMeta.
        parts = [p for p in go_path.split(".") if not p[:1].isupper()]
        out.append(
            ".".join(["metadata", *parts] if go_type == "ObjectMeta" and parts[:1] != ["metadata"] else parts)
        )
    return tuple(out)


def _status(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _message(response: httpx.Response) -> str:
    return str(_status(response).get("message", response.text[:300]))


def _established(crd: dict[str, Any]) -> bool:
    conditions = (crd.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)
