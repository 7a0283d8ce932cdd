"""Run the Lua health checks as Argo CD does, on fixtures in Argo CD's ``health_test.yaml`` format.

(a) trainops' scripts (``lib/trainops/argocd/health``) on ``tests/argocd/health/<group>/<Kind>/``,
run as argocd-cm overrides are: without the Lua standard libraries (no ``useOpenLibs``);
(b) upstream's built-in scripts on upstream's fixtures under ``../shared/reference/argocd/
resource_customizations`` (skipped when absent), with the standard libraries, as built-ins run.

The runner mirrors ``util/lua/health_test.go`` ``TestLuaHealthScript`` and ``util/lua/lua.go`` of
Argo CD v3.5.1 as ``../shared/reference/argocd/README.md`` describes it: LuaJIT 2.1 (Lua 5.1 as
gopher-lua), the first YAML document read with timestamps kept as strings, the script chosen by the
input's group/Kind (argocd-cm overrides first, then the built-in folder, then wildcard folders),
``Pending deletion`` for objects with a deletionTimestamp, invalid statuses turned into Unknown, and
a 1 s limit per run.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lupa.luajit21 as lupa
import pytest
import yaml

from trainops.argocd.health import HEALTH_CHECKS, health_check_for

HERE = Path(__file__).parent
OURS = HERE / "health"
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
UPSTREAM = SHARED / "reference" / "argocd" / "resource_customizations"
VALID = {"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}
TIMEOUT_S = 1.0


class _StringLoader(yaml.SafeLoader):
    """SafeLoader without the timestamp resolver: timestamps stay strings, as sigs.k8s.io/yaml keeps them."""


_StringLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

# Runs `script` with `obj` as the global obj. Without open libs the environment is gopher-lua's
# restricted one (base, table, os.time/os.date; no string library, so no string methods either).
_HARNESS = """
local script, obj, open_libs, limit = ...
local chunk, err = loadstring(script, "=health.lua")
if chunk == nil then error(err) end
local env
if open_libs then
  env = setmetatable({}, {__index = _G})
else
  env = {assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, pcall = pcall,
         print = print, select = select, tonumber = tonumber, tostring = tostring, type = type,
         unpack = unpack, xpcall = xpcall, getmetatable = getmetatable, setmetatable = setmetatable,
         rawequal = rawequal, rawget = rawget, rawset = rawset, _VERSION = _VERSION, table = table,
         os = {time = os.time, date = os.date}}
end
env.obj = obj
env.actionParams = {}
setfenv(chunk, env)
local string_mt = debug.getmetatable("")
local string_index = string_mt.__index
if not open_libs then string_mt.__index = nil end
jit.off()
local deadline = os.clock() + limit
debug.sethook(function() if os.clock() > deadline then error("health script timed out") end end, "", 1000)
local ok, result = pcall(chunk)
debug.sethook()
string_mt.__index = string_index
if not ok then error(result, 0) end
return result
"""


def load_input(path: Path) -> dict[str, Any]:
    """The first YAML document of ``path``, timestamps as strings (``sigs.k8s.io/yaml`` semantics)."""
    with path.open(encoding="utf-8") as handle:
        doc = next(yaml.load_all(handle, Loader=_StringLoader))
    assert isinstance(doc, dict), f"{path}: not an object"
    return doc


def _to_lua(runtime: Any, value: Any) -> Any:
    if isinstance(value, dict):
        return runtime.table_from({str(k): _to_lua(runtime, v) for k, v in value.items()})
    if isinstance(value, list):
        return runtime.table_from([_to_lua(runtime, v) for v in value])
    return value


def _from_lua(value: Any) -> Any:
    if lupa.lua_type(value) == "table":
        return {k: _from_lua(v) for k, v in value.items()}
    return value


def run_health(script: str, obj: dict[str, Any], *, open_libs: bool) -> dict[str, str]:
    """Argo CD's health of ``obj`` by ``script``: ``{"status": ..., "message": ...}`` (message ``""`` if unset)."""
    if (obj.get("metadata") or {}).get("deletionTimestamp"):
        return {"status": "Progressing", "message": "Pending deletion"}
    runtime = lupa.LuaRuntime(unpack_returned_tuples=False)
    result = _from_lua(runtime.execute(_HARNESS, script, _to_lua(runtime, obj), open_libs, TIMEOUT_S))
    if result is None or result == {}:
        return {"status": "", "message": ""}
    assert isinstance(result, dict), f"the script returned {result!r}, not a table"
    if result.get("status") not in VALID:
        return {"status": "Unknown", "message": "Lua returned an invalid health status"}
    return {"status": result["status"], "message": result.get("message") or ""}


def _group_kind(obj: dict[str, Any]) -> tuple[str, str]:
    return str(obj["apiVersion"]).rpartition("/")[0], str(obj["kind"])


def upstream_script(obj: dict[str, Any]) -> Path | None:
    """Upstream's built-in script for the object: the exact folder, else the first matching wildcard folder."""
    group, kind = _group_kind(obj)
    exact = UPSTREAM / group / kind / "health.lua"
    if exact.is_file():
        return exact
    for candidate in sorted(UPSTREAM.glob("*/*/health.lua")):
        folder = candidate.parent.relative_to(UPSTREAM).as_posix()
        if "_" in folder and fnmatch.fnmatchcase(f"{group}/{kind}", folder.replace("_", "*")):
            return candidate
    return None


@dataclass(frozen=True)
class Case:
    """One ``health_test.yaml`` entry: the input file and the expected status and message."""

    input: Path
    status: str
    message: str


def _cases(root: Path) -> list[Any]:
    if not root.is_dir():
        return []
    params = []
    for test_file in sorted(root.glob("*/*/health_test.yaml")):
        entries = yaml.safe_load(test_file.read_text(encoding="utf-8"))["tests"]
        for entry in entries:
            lowered = {
                key.lower(): value for key, value in entry.items()
            }  # keys are case-insensitive upstream
            expected = {key.lower(): value for key, value in lowered["healthstatus"].items()}
            case = Case(
                test_file.parent / lowered["inputpath"], expected["status"], expected.get("message", "")
            )
            params.append(
                pytest.param(
                    case, id=f"{test_file.parent.relative_to(root).as_posix()}/{lowered['inputpath']}"
                )
            )
    return params


OUR_CASES = _cases(OURS)
UPSTREAM_CASES = _cases(UPSTREAM)


@pytest.mark.parametrize("case", OUR_CASES)
def test_our_health_checks(case: Case) -> None:
    obj = load_input(case.input)
    check = health_check_for(obj["apiVersion"], obj["kind"])
    assert check is not None, f"no trainops health check for {obj['apiVersion']} {obj['kind']}"
    assert run_health(check.lua(), obj, open_libs=False) == {"status": case.status, "message": case.message}


@pytest.mark.skipif(not UPSTREAM.is_dir(), reason="../shared/reference/argocd is not beside the repo")
@pytest.mark.parametrize("case", UPSTREAM_CASES)
def test_upstream_health_checks(case: Case) -> None:
    obj = load_input(case.input)
    script = upstream_script(obj)
    assert script is not None, f"no upstream health.lua for {_group_kind(obj)}"
    actual = run_health(script.read_text(encoding="utf-8"), obj, open_libs=True)
    assert actual == {"status": case.status, "message": case.message}


# States each kind can reach (Katib Experiments cannot be suspended; an Application reports its
# resources' Missing; a LeaderWorkerSet has no failure or pause condition), plus the "no status yet" input.
EXPECTED_STATES = {
    key: {"Healthy", "Progressing", "Degraded", "Suspended"}
    - ({"Suspended"} if key == "kubeflow.org/Experiment" else set())
    - ({"Degraded", "Suspended"} if key == "leaderworkerset.x-k8s.io/LeaderWorkerSet" else set())
    | ({"Missing"} if key == "argoproj.io/Application" else set())
    for key in HEALTH_CHECKS
}


@pytest.mark.parametrize("key", sorted(HEALTH_CHECKS))
def test_every_kind_has_fixtures_for_every_state(key: str) -> None:
    test_file = OURS / key / "health_test.yaml"
    entries = yaml.safe_load(test_file.read_text(encoding="utf-8"))["tests"]
    assert {entry["healthStatus"]["status"] for entry in entries} == EXPECTED_STATES[key]
    assert "testdata/no-status.yaml" in {entry["inputPath"] for entry in entries}
    inputs = [load_input(test_file.parent / entry["inputPath"]) for entry in entries]
    assert {f"{_group_kind(obj)[0]}/{obj['kind']}" for obj in inputs} == {key}


@pytest.mark.parametrize("key", sorted(HEALTH_CHECKS))
def test_argocd_has_no_builtin_check_for_our_kinds(key: str) -> None:
    """Ours are overrides for kinds upstream lacks; where upstream has one (KServe), upstream's is kept."""
    if not UPSTREAM.is_dir():
        pytest.skip("../shared/reference/argocd is not beside the repo")
    group, kind = key.split("/")
    assert upstream_script({"apiVersion": f"{group}/v1", "kind": kind}) is None


def test_runner_enforces_restricted_libraries() -> None:
    """The harness must fail a script that uses the string library, as argocd-cm overrides would."""
    with pytest.raises(lupa.LuaError):
        run_health('return {status = string.upper("healthy")}', {"kind": "X"}, open_libs=False)
    with pytest.raises(lupa.LuaError):
        run_health('return {status = ("Healthy"):sub(1)}', {"kind": "X"}, open_libs=False)
    assert (
        run_health('return {status = ("Healthy"):sub(1)}', {"kind": "X"}, open_libs=True)["status"]
        == "Healthy"
    )


def test_runner_times_out_endless_scripts() -> None:
    with pytest.raises(lupa.LuaError, match="timed out"):
        run_health("while true do end", {"kind": "X"}, open_libs=False)


def test_deletion_is_pending_before_any_script() -> None:
    obj = load_input(OURS / "kubeflow.org/PyTorchJob/testdata/succeeded.yaml")
    obj["metadata"]["deletionTimestamp"] = "2026-05-04T12:00:00Z"
    assert run_health("error('not run')", obj, open_libs=False) == {
        "status": "Progressing",
        "message": "Pending deletion",
    }
