"""``trainops argocd apps|status|sync|wait|runs|prune-finished|promote|abort|health-checks|platform`` as
plain functions.

Each command takes a frozen options dataclass and returns an exit code: 0 ok; 1 the application is
not what was asked for (``wait``: Degraded, a failed sync operation, or not Healthy/Synced before
the timeout); 2 usage, configuration, authentication or transport errors (no server or token, 401,
403, 404, TLS verification, timeouts and 5xx after retries, a redirect, the deadline, invalid or
oversized JSON). Reports go to stdout, one-line diagnostics (each scheduled retry included) to
stderr. The token is read from the options or ``ARGOCD_AUTH_TOKEN`` and never printed.

``--deadline`` bounds the whole command (every request, retry, and slow body): ``status`` against a
server that trickles its answer ends when it passes. ``wait`` is bounded by its ``--timeout`` as a
whole and by ``--deadline`` per poll.

Each options field carries its ``--help`` text in ``metadata["help"]`` (see :func:`option_help`),
so the click layer declares each option once from it.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import wraps
from pathlib import Path
from typing import Any, ParamSpec

from trainops.argocd.client import ArgoCDClient, ClientConfig
from trainops.argocd.errors import ArgoCDError, ConfigError, DeadlineError
from trainops.argocd.health import ARGOCD_NAMESPACE, argocd_cm_patch, helm_values
from trainops.argocd.models import (
    Application,
    HealthStatus,
    ResourceActionRequest,
    ResourceStatus,
    SyncRequest,
)
from trainops.argocd.runs import Run, list_runs
from trainops.core.errors import EXIT_FINDINGS, EXIT_OK
from trainops.core.findings import one_line
from trainops.core.platform import COMPONENT_LABEL, PlatformApp

SERVER_ENV = "ARGOCD_SERVER"
"""Environment variable with the server, as the argocd CLI reads it."""
TOKEN_ENV = "ARGOCD_AUTH_TOKEN"
"""Environment variable with the bearer token, as the argocd CLI reads it."""


def _help(text: str) -> dict[str, str]:
    return {"help": text}


def option_help(options: type[Any], name: str) -> str:
    """The ``--help`` text of field ``name`` of an options dataclass (its ``metadata["help"]``)."""
    for fld in dataclasses.fields(options):
        if fld.name == name:
            return str(fld.metadata["help"])
    raise KeyError(f"{options.__name__} has no field {name!r}")


@dataclass(frozen=True)
class ConnectionOptions:
    """How to reach the Argo CD API server (shared by every command that talks to it)."""

    server: str | None = field(
        default=None,
        metadata=_help(
            "Argo CD server URL or host[:port]; https:// unless a scheme is given. Default: $ARGOCD_SERVER."
        ),
    )
    auth_token: str | None = field(
        default=None,
        repr=False,
        metadata=_help("Bearer token (an Argo CD API key). Default: $ARGOCD_AUTH_TOKEN. Never printed."),
    )
    insecure: bool = field(
        default=False, metadata=_help("Skip TLS certificate verification (not recommended).")
    )
    ca_file: Path | None = field(
        default=None,
        metadata=_help("PEM file of CA certificates to trust for the server. Default: system CAs."),
    )
    request_timeout: float = field(
        default=10.0, metadata=_help("Seconds for each HTTP request. Default: 10.")
    )
    retries: int = field(
        default=3,
        metadata=_help("Retries of a request after connection errors, timeouts or 5xx. Default: 3."),
    )
    backoff: float = field(
        default=0.5,
        metadata=_help("Seconds before the first retry; doubles after each (max 8). Default: 0.5."),
    )
    deadline: float = field(
        default=60.0,
        metadata=_help(
            "Seconds the command may spend on Argo CD (requests, retries and slow answers); "
            "for wait, each poll (--timeout bounds the whole). Default: 60."
        ),
    )
    app_namespace: str = field(
        default="",
        metadata=_help("Namespace of the Application (apps in any namespace). Default: Argo CD's."),
    )


@dataclass(frozen=True)
class AppsOptions:
    """Options of ``argocd apps``: list applications with sync and health status."""

    connection: ConnectionOptions = field(
        default_factory=ConnectionOptions, metadata=_help("Connection options.")
    )
    selector: str = field(default="", metadata=_help("Only applications matching this label selector."))
    projects: tuple[str, ...] = field(
        default=(), metadata=_help("Only applications of these projects (repeatable).")
    )


@dataclass(frozen=True)
class StatusOptions:
    """Options of ``argocd status APP``: the application's resources with sync and health."""

    app: str = field(metadata=_help("Application name."))
    connection: ConnectionOptions = field(
        default_factory=ConnectionOptions, metadata=_help("Connection options.")
    )


@dataclass(frozen=True)
class SyncOptions:
    """Options of ``argocd sync APP``: start a sync operation."""

    app: str = field(metadata=_help("Application name."))
    connection: ConnectionOptions = field(
        default_factory=ConnectionOptions, metadata=_help("Connection options.")
    )
    prune: bool = field(
        default=False,
        metadata=_help("Delete resources no longer in git (objects with Prune=false are kept)."),
    )
    dry_run: bool = field(
        default=False, metadata=_help("Let Argo CD run the sync without applying anything.")
    )
    revision: str = field(
        default="", metadata=_help("Git revision, tag or branch to sync to. Default: the app's.")
    )


@dataclass(frozen=True)
class WaitOptions:
    """Options of ``argocd wait APP``: wait until the application is Healthy and/or Synced."""

    app: str = field(metadata=_help("Application name."))
    connection: ConnectionOptions = field(
        default_factory=ConnectionOptions, metadata=_help("Connection options.")
    )
    health: bool = field(
        default=False,
        metadata=_help("Wait for health Healthy; Degraded fails at once. Default: both when neither."),
    )
    sync: bool = field(
        default=False,
        metadata=_help("Wait for sync Synced with no running operation; a failed sync fails at once."),
    )
    timeout: float = field(
        default=300.0, metadata=_help("Seconds to wait before failing (exit 1). Default: 300.")
    )
    interval: float = field(
        default=2.0, metadata=_help("Seconds between polls of the application. Default: 2.")
    )


@dataclass(frozen=True)
class RunsOptions:
    """Options of ``argocd runs APP``: list run-once objects (current or superseded) and their phase."""

    app: str = field(metadata=_help("Application name."))
    connection: ConnectionOptions = field(
        default_factory=ConnectionOptions, metadata=_help("Connection options.")
    )


@dataclass(frozen=True)
class PruneFinishedOptions:
    """Options of ``argocd prune-finished APP``: delete superseded runs that have finished."""

    app: str = field(metadata=_help("Application name."))
    connection: ConnectionOptions = field(
        default_factory=ConnectionOptions, metadata=_help("Connection options.")
    )
    dry_run: bool = field(default=False, metadata=_help("Print what would be deleted; delete nothing."))


@dataclass(frozen=True)
class PromoteOptions:
    """Options of ``argocd promote APP``: let the app's Argo Rollouts Rollouts go on (resource action)."""

    app: str = field(metadata=_help("Application name."))
    connection: ConnectionOptions = field(
        default_factory=ConnectionOptions, metadata=_help("Connection options.")
    )
    rollout: str = field(default="", metadata=_help("Only the Rollout of this name. Default: every Rollout."))
    full: bool = field(
        default=False,
        metadata=_help("Skip the remaining steps and analyses and go to 100 % (action promote-full)."),
    )


@dataclass(frozen=True)
class AbortOptions:
    """Options of ``argocd abort APP``: abort the app's Argo Rollouts Rollouts (back to the stable version)."""

    app: str = field(metadata=_help("Application name."))
    connection: ConnectionOptions = field(
        default_factory=ConnectionOptions, metadata=_help("Connection options.")
    )
    rollout: str = field(default="", metadata=_help("Only the Rollout of this name. Default: every Rollout."))


@dataclass(frozen=True)
class HealthChecksOptions:
    """Options of ``argocd health-checks``: print the Lua health checks for argocd-cm."""

    helm: bool = field(
        default=False,
        metadata=_help("Print values for the argo-cd Helm chart (configs.cm) instead of a ConfigMap."),
    )
    namespace: str = field(
        default=ARGOCD_NAMESPACE, metadata=_help("Namespace of argocd-cm. Default: argocd.")
    )


@dataclass(frozen=True)
class PlatformOptions:
    """Options of ``argocd platform``: each platform component's synced release against apps/clusters.py."""

    connection: ConnectionOptions = field(
        default_factory=ConnectionOptions, metadata=_help("Connection options.")
    )
    cluster: tuple[str, ...] = field(
        default=(), metadata=_help("Only the components of these clusters (repeatable). Default: all.")
    )


def client_config(options: ConnectionOptions, env: Mapping[str, str] | None = None) -> ClientConfig:
    """Resolve server and token from the options, else ``ARGOCD_SERVER`` / ``ARGOCD_AUTH_TOKEN`` in ``env``.

    Args:
        options: the connection options. env: the environment. Default: ``os.environ``.

    Raises:
        ConfigError: no server, no token, negative timings or retries, or a missing --ca-file.
    """
    environ = os.environ if env is None else env
    server = options.server or environ.get(SERVER_ENV, "")
    token = options.auth_token or environ.get(TOKEN_ENV, "")
    if not server:
        raise ConfigError(f"argocd: no server; pass --server or set {SERVER_ENV}")
    if not token:
        raise ConfigError(f"argocd: no token; pass --auth-token or set {TOKEN_ENV}")
    for name in ("request_timeout", "backoff", "deadline"):
        if getattr(options, name) < 0:
            raise ConfigError(
                f"argocd: --{name.replace('_', '-')} must be >= 0, got {getattr(options, name)}"
            )
    if options.retries < 0:
        raise ConfigError(f"argocd: --retries must be >= 0, got {options.retries}")
    if options.ca_file is not None and not options.ca_file.is_file():
        raise ConfigError(f"argocd: --ca-file {options.ca_file}: no such file")
    return ClientConfig(
        server=server,
        token=token,
        insecure=options.insecure,
        ca_file=options.ca_file,
        timeout=options.request_timeout,
        attempts=options.retries + 1,
        backoff=options.backoff,
        deadline=options.deadline,
    )


def _stderr_line(line: str) -> None:
    print(line, file=sys.stderr)


def _client(
    options: ConnectionOptions, env: Mapping[str, str] | None, *, timeout: float | None = None
) -> ArgoCDClient:
    """A client for ``options``: retries reported on stderr; all calls within ``--deadline``, or
    within ``timeout`` seconds (``wait --timeout``; each call still within ``--deadline``)."""
    config = client_config(options, env)
    if timeout is not None:
        return ArgoCDClient(
            config, on_retry=_stderr_line, total=timeout, total_label=f"--timeout {timeout:g} s"
        )
    return ArgoCDClient(
        config, on_retry=_stderr_line, total=config.deadline, total_label=f"--deadline {config.deadline:g} s"
    )


P = ParamSpec("P")


def _exit_on_error(command: Callable[P, int]) -> Callable[P, int]:
    """Turn an :class:`ArgoCDError` into its one-line message on stderr and its exit code (2)."""

    @wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            return command(*args, **kwargs)
        except ArgoCDError as exc:
            print(exc.message, file=sys.stderr)
            return exc.exit_code

    return run


def _table(rows: Sequence[Sequence[str]]) -> str:
    rows = [[one_line(cell) for cell in row] for row in rows]  # server text: one line, no escapes
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    return "\n".join(lines)


def _gk(group: str, kind: str) -> str:
    return f"{group}/{kind}" if group else kind


def _health_text(health: HealthStatus | None) -> tuple[str, str]:
    if health is None or not health.status:
        return "-", ""
    return health.status, health.message


@_exit_on_error
def run_apps(options: AppsOptions, env: Mapping[str, str] | None = None) -> int:
    """Print one line per application: name, project, sync status, health, revision (sorted by name)."""
    with _client(options.connection, env) as client:
        apps = client.list_applications(
            selector=options.selector,
            projects=options.projects,
            app_namespace=options.connection.app_namespace,
        )
    rows = [("NAME", "PROJECT", "SYNC", "HEALTH", "REVISION")]
    for app in sorted(apps, key=lambda a: (a.namespace, a.name)):
        rows.append(
            (app.name, app.project, app.sync.status or "-", app.health.status or "-", app.sync.revision)
        )
    print(_table(rows))
    print(f"{len(apps)} applications", file=sys.stderr)
    return EXIT_OK


@_exit_on_error
def run_status(options: StatusOptions, env: Mapping[str, str] | None = None) -> int:
    """Print the application's sync and health, then each managed resource with its sync and health.

    Health comes from the resource tree (Argo CD v3 no longer stores it in the Application). Exit
    0 whatever the health: use ``wait`` as a gate.
    """
    ns = options.connection.app_namespace
    with _client(options.connection, env) as client:
        app = client.get_application(options.app, app_namespace=ns)
        tree = client.resource_tree(options.app, app_namespace=ns)
    print(_app_line(app))
    health = {(n.group, n.kind, n.namespace, n.name): n.health for n in tree.nodes}
    rows = [("KIND", "NAMESPACE", "NAME", "SYNC", "HEALTH", "MESSAGE")]
    for res in sorted(app.resources, key=lambda r: (r.group, r.kind, r.namespace, r.name)):
        status, message = _health_text(
            health.get((res.group, res.kind, res.namespace, res.name)) or res.health
        )
        sync = res.status or "-"
        if res.requires_pruning:
            sync += " (requires pruning)"
        rows.append((_gk(res.group, res.kind), res.namespace or "-", res.name, sync, status, message))
    print(_table(rows))
    return EXIT_OK


def _app_line(app: Application) -> str:
    """One line: the application's sync, health, revision and operation (server text escaped)."""
    return one_line(_app_text(app))


def _app_text(app: Application) -> str:
    line = f"{app.name}: sync {app.sync.status or '-'}, health {app.health.status or '-'}"
    if app.health.message:
        line += f" ({app.health.message})"
    if app.sync.revision:
        line += f", revision {app.sync.revision}"
    op = app.operation_state
    if op is not None and op.phase:
        line += f", operation {op.phase}"
        if op.message:
            line += f": {op.message}"
    return line


@_exit_on_error
def run_sync(options: SyncOptions, env: Mapping[str, str] | None = None) -> int:
    """Ask Argo CD to sync the application; print the application's state as the server returned it."""
    request = SyncRequest(
        name=options.app,
        revision=options.revision,
        prune=options.prune,
        dry_run=options.dry_run,
        app_namespace=options.connection.app_namespace,
    )
    with _client(options.connection, env) as client:
        app = client.sync(request)
    flags = [flag for flag, on in (("prune", options.prune), ("dry-run", options.dry_run)) if on]
    target = f" to {options.revision}" if options.revision else ""
    print(f"sync of {options.app}{target} requested" + (f" ({', '.join(flags)})" if flags else ""))
    print(_app_line(app))
    return EXIT_OK


@_exit_on_error
def run_wait(
    options: WaitOptions,
    env: Mapping[str, str] | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Poll the application until it is Healthy and/or Synced with no running operation.

    Without ``health`` or ``sync`` both are awaited (as ``argocd app wait``). Returns 1 at once when
    health is Degraded (with ``health``) or the sync operation Failed/Errored (with ``sync``), and
    when the timeout passes (a poll still unanswered when it passes included); state changes are
    printed on stderr, the final state on stdout. Every poll ends by the timeout: a server that
    never answers is a transport error (2) once it passes.

    Args:
        options: see :class:`WaitOptions`. env: environment for server and token.
        clock, sleep: time source and sleeper (seconds). Default: ``time.monotonic``, ``time.sleep``.
    """
    want_health = options.health or not options.sync
    want_sync = options.sync or not options.health
    if options.timeout < 0 or options.interval <= 0:
        raise ConfigError("argocd: --timeout must be >= 0 and --interval > 0")
    ns = options.connection.app_namespace
    end = clock() + options.timeout
    last = ""
    with _client(options.connection, env, timeout=options.timeout or None) as client:
        while True:
            try:
                app = client.get_application(options.app, app_namespace=ns)
            except DeadlineError:
                if not last:  # the server never answered: a transport error (exit 2)
                    raise
                # the last poll ran into --timeout: the application is still not what was asked for
                app = None
            if app is None:
                print(last)
                print(
                    f"argocd: {options.app} not {_wanted(want_health, want_sync)} after {options.timeout:g} s",
                    file=sys.stderr,
                )
                return EXIT_FINDINGS
            line = _app_line(app)
            if line != last:
                print(line, file=sys.stderr)
                last = line
            op = app.operation_state
            running = op is not None and op.phase in ("Running", "Terminating")
            if want_health and app.health.status == "Degraded":
                print(line)
                print(f"argocd: {options.app} is Degraded", file=sys.stderr)
                return EXIT_FINDINGS
            if want_sync and op is not None and op.phase in ("Failed", "Error"):
                print(line)
                print(f"argocd: the sync of {options.app} ended {op.phase}", file=sys.stderr)
                return EXIT_FINDINGS
            healthy = app.health.status == "Healthy" or not want_health
            synced = app.sync.status == "Synced" or not want_sync
            if healthy and synced and not running:
                print(line)
                return EXIT_OK
            remaining = end - clock()
            if remaining <= 0:
                print(line)
                print(
                    f"argocd: {options.app} not {_wanted(want_health, want_sync)} after {options.timeout:g} s",
                    file=sys.stderr,
                )
                return EXIT_FINDINGS
            sleep(min(options.interval, remaining))


def _wanted(health: bool, sync: bool) -> str:
    return " and ".join(w for w, on in (("Healthy", health), ("Synced", sync)) if on)


def _runs(options: RunsOptions | PruneFinishedOptions, client: ArgoCDClient) -> tuple[Run, ...]:
    ns = options.connection.app_namespace
    app = client.get_application(options.app, app_namespace=ns)
    tree = client.resource_tree(options.app, app_namespace=ns)
    return list_runs(app, tree)


@_exit_on_error
def run_runs(options: RunsOptions, env: Mapping[str, str] | None = None) -> int:
    """Print the application's run-once objects: base name, kind, object, current/superseded, phase, message."""
    with _client(options.connection, env) as client:
        runs = _runs(options, client)
    rows = [("RUN", "KIND", "NAMESPACE", "NAME", "STATE", "PHASE", "MESSAGE")]
    for run in runs:
        rows.append(
            (
                run.base,
                _gk(run.group, run.kind),
                run.namespace,
                run.name,
                run.state,
                run.phase,
                run.health.message,
            )
        )
    print(_table(rows))
    superseded = sum(1 for run in runs if run.state == "superseded")
    print(f"{len(runs)} runs, {superseded} superseded", file=sys.stderr)
    return EXIT_OK


@_exit_on_error
def run_prune_finished(options: PruneFinishedOptions, env: Mapping[str, str] | None = None) -> int:
    """Delete (through Argo CD) the superseded runs that have finished; keep current and running ones.

    A run is deleted only when Argo CD lists it with ``requiresPruning`` (it left git) and its health
    is Healthy or Degraded (Succeeded or Failed). One stdout line per superseded run says what was
    (or, with ``dry_run``, would be) deleted or kept and why.
    """
    ns = options.connection.app_namespace
    deleted = kept = 0
    with _client(options.connection, env) as client:
        for run in _runs(options, client):
            if run.state != "superseded":
                continue
            ident = f"{_gk(run.group, run.kind)} {run.namespace}/{run.name}"
            if run.phase == "Deleting":
                print(f"skipped {ident}: already being deleted")
                continue
            if not run.prunable:
                kept += 1
                print(f"kept {ident}: superseded but {run.phase}")
                continue
            if options.dry_run:
                print(f"would delete {ident} ({run.phase})")
            else:
                client.delete_resource(
                    options.app,
                    group=run.group,
                    version=run.version,
                    kind=run.kind,
                    namespace=run.namespace,
                    name=run.name,
                    app_namespace=ns,
                )
                print(f"deleted {ident} ({run.phase})")
            deleted += 1
    verb = "would delete" if options.dry_run else "deleted"
    print(f"{verb} {deleted} finished superseded runs, kept {kept} not finished", file=sys.stderr)
    return EXIT_OK


#: Argo Rollouts' Rollout (group and kind as Argo CD lists it).
ROLLOUT_GROUP, ROLLOUT_KIND = "argoproj.io", "Rollout"


def _rollouts(app: Application, only: str) -> list[ResourceStatus]:
    """The app's Rollouts still in git (``only``: the one of that name), sorted; ConfigError if none."""
    found = sorted(
        (
            r
            for r in app.resources
            if r.group == ROLLOUT_GROUP and r.kind == ROLLOUT_KIND and not r.requires_pruning
        ),
        key=lambda r: (r.namespace, r.name),
    )
    if only:
        found = [r for r in found if r.name == only]
    if not found:
        what = f"no Rollout named {only!r}" if only else "no Rollout"
        raise ConfigError(f"application {app.name!r} has {what} (argoproj.io/Rollout among its resources)")
    return found


def _run_rollout_action(
    connection: ConnectionOptions, env: Mapping[str, str] | None, app_name: str, only: str, action: str
) -> int:
    ns = connection.app_namespace
    with _client(connection, env) as client:
        rollouts = _rollouts(client.get_application(app_name, app_namespace=ns), only)
        for rollout in rollouts:
            client.run_resource_action(
                ResourceActionRequest(
                    name=app_name,
                    namespace=rollout.namespace,
                    resource_name=rollout.name,
                    version=rollout.version,
                    group=rollout.group,
                    kind=rollout.kind,
                    action=action,
                    app_namespace=ns,
                )
            )
            print(f"{action} {_gk(rollout.group, rollout.kind)} {rollout.namespace}/{rollout.name}")
    print(f"ran {action} on {len(rollouts)} Rollout(s) of {app_name}", file=sys.stderr)
    return EXIT_OK


@_exit_on_error
def run_promote(options: PromoteOptions, env: Mapping[str, str] | None = None) -> int:
    """Run Argo CD's built-in Rollout action ``resume`` (go past the current pause: a blue-green
    Rollout waiting for manual promotion switches to the new version; a canary goes to its next step)
    or, with ``full``, ``promote-full`` (skip the remaining steps and analyses) on each Rollout of the
    application, through ``RunResourceActionV2``.

    Source: argo-cd v3.5.1 ``resource_customizations/argoproj.io/Rollout/actions`` (``resume``,
    ``promote-full``, ``abort``) and ``docs/operator-manual/resource_actions.md``.
    """
    action = "promote-full" if options.full else "resume"
    return _run_rollout_action(options.connection, env, options.app, options.rollout, action)


@_exit_on_error
def run_abort(options: AbortOptions, env: Mapping[str, str] | None = None) -> int:
    """Run Argo CD's built-in Rollout action ``abort`` on each Rollout of the application: the
    Rollouts controller scales the new version down and sends all traffic back to the stable one."""
    return _run_rollout_action(options.connection, env, options.app, options.rollout, "abort")


def run_health_checks(options: HealthChecksOptions) -> int:
    """Print the Lua health checks as an argocd-cm ConfigMap patch, or as argo-cd Helm chart values."""
    sys.stdout.write(helm_values() if options.helm else argocd_cm_patch(options.namespace))
    return EXIT_OK


def platform_drift(declared: PlatformApp, live: Application | None) -> str:
    """Why ``live`` (the Application Argo CD holds, ``None`` when it has none of that name) does not
    run ``declared``'s release, or ``""`` when it does.

    Argo CD records the ``targetRevision`` it last compared the application with in
    ``status.sync.comparedTo.source.targetRevision`` and the revision it synced in
    ``status.sync.revision`` (the chart version for a Helm repository or OCI chart source, the
    commit SHA of the tag for a git source; argo-cd ``controller/state.go`` CompareAppState).
    """
    want = declared.source.version
    if live is None:
        return "no such Application in Argo CD (the root Application has not synced it)"
    if live.sync.compared_revision and live.sync.compared_revision != want:
        return f"Argo CD compares it with {live.sync.compared_revision}, not {want} (the root is not synced)"
    if live.target_revision and live.target_revision != want:
        return f"its source targets {live.target_revision}, not {want} (the root is not synced)"
    if live.sync.status != "Synced":
        return f"sync {live.sync.status or 'unknown'}: the cluster does not run {want} yet"
    if declared.source.kind != "git" and live.sync.revision != want:
        return f"synced chart {live.sync.revision or '-'}, not {want}"
    return ""


@_exit_on_error
def run_platform(
    options: PlatformOptions, declared: Sequence[PlatformApp], env: Mapping[str, str] | None = None
) -> int:
    """Print each declared platform component with the release Argo CD synced; exit 1 when one
    differs from ``apps/clusters.py`` (:func:`platform_drift`), 0 when all match.

    ``declared`` are the platform Applications synth writes for the repository's clusters
    (:func:`trainops.core.platform.platform_apps`).
    """
    wanted = [d for d in declared if not options.cluster or d.cluster in options.cluster]
    with _client(options.connection, env) as client:
        apps = client.list_applications(
            selector=COMPONENT_LABEL, app_namespace=options.connection.app_namespace
        )
    live = {app.name: app for app in apps}
    rows = [("CLUSTER", "COMPONENT", "APPLICATION", "DECLARED", "SYNCED", "STATUS")]
    drifted = 0
    for item in sorted(wanted, key=lambda d: (d.cluster, d.depth, d.name)):
        app = live.get(item.name)
        problem = platform_drift(item, app)
        drifted += bool(problem)
        synced = (
            "-"
            if app is None
            else (app.sync.revision if item.source.kind != "git" else app.sync.compared_revision)
        )
        rows.append(
            (
                item.cluster,
                item.component,
                item.name,
                item.source.version,
                synced or "-",
                one_line(problem or "ok"),
            )
        )
    print(_table(rows))
    print(f"{len(wanted)} platform applications, {drifted} not at the declared release", file=sys.stderr)
    return EXIT_FINDINGS if drifted else EXIT_OK
