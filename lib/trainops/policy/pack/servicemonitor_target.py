"""Each ServiceMonitor selects a rendered Service (PodMonitor: a pod template) in the namespaces it
watches, and every endpoint port names a port there.

Why: prometheus-operator silently generates no scrape target for a monitor that selects nothing or
names a port the Service lacks; the dashboards go flat and no alert says why. When a ServiceMonitor
selects nothing, the message names the Service it was probably meant for (one whose pod selector has
the labels the monitor selects by: a Service is selected by its own labels, not its pods') and what
else keeps it out (namespace, port names).

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: monitoring.coreos.com/v1
    kind: ServiceMonitor
    metadata: {name: serve, namespace: ml}
    spec:
      selector: {matchLabels: {app: serve}}
      endpoints: [{port: http, path: /metrics}]
    ---
    apiVersion: v1
    kind: Service
    metadata: {name: serve, namespace: ml, labels: {app: serve}}
    spec:
      selector: {app: serve}
      ports: [{name: http, port: 80}]

FAIL:

    apiVersion: monitoring.coreos.com/v1
    kind: ServiceMonitor
    metadata: {name: serve, namespace: ml}
    spec:
      selector: {matchLabels: {app: serve}}
      endpoints: [{port: metrics, path: /metrics}]
    ---
    apiVersion: v1
    kind: Service
    metadata: {name: serve, namespace: ml, labels: {app: serve}}
    spec:
      selector: {app: serve}
      ports: [{name: http, port: 80}]

Remediation: Make the monitor's selector match the Service (or pod) labels and name a port that exists there.

Source: https://prometheus-operator.dev/docs/developer/troubleshooting/#troubleshooting-servicemonitor-changes
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import group_kind
from trainops.policy.objects import hashable, of_kind
from trainops.policy.pods import as_list, containers, dig, labels_of, metadata_of
from trainops.policy.rule import Context, describe
from trainops.policy.selectors import all_pods, matches
from trainops.rules import register

ID = "servicemonitor-target"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

SERVICE_MONITOR = ("monitoring.coreos.com", "ServiceMonitor")
POD_MONITOR = ("monitoring.coreos.com", "PodMonitor")


def _watches(monitor: dict[str, Any], namespace: Any) -> bool:
    selector = dig(monitor, "spec", "namespaceSelector")
    if isinstance(selector, dict) and selector.get("any") is True:
        return True
    names = selector.get("matchNames") if isinstance(selector, dict) else None
    if isinstance(names, list) and names:
        return namespace in names
    return bool(namespace == metadata_of(monitor).get("namespace"))


class _Services:
    """The checked set's Services in order, indexed by each label (``metadata.labels``) and each
    entry of their pod selector (``spec.selector``), so a monitor looks only at Services that carry
    one label its ``matchLabels`` asks for (a selector matches a label only by equality)."""

    def __init__(self, objects: Sequence[dict[str, Any]]) -> None:
        self.all = [obj for _, obj in of_kind(objects, ("", "Service"))]
        self.labelled: dict[tuple[Any, Any], list[int]] = {}
        self.selecting: dict[tuple[Any, Any], list[int]] = {}
        for position, obj in enumerate(self.all):
            for key, value in labels_of(obj).items():
                if hashable(value):
                    self.labelled.setdefault((key, value), []).append(position)
            pods = dig(obj, "spec", "selector")
            for key, value in pods.items() if isinstance(pods, dict) else ():
                self.selecting.setdefault((str(key), str(value)), []).append(position)

    def candidates(self, selector: Any, *, by_pods: bool = False) -> list[dict[str, Any]]:
        """The Services that may carry the labels of ``selector`` (a superset of those it selects,
        in order); with ``by_pods``, also those whose pod selector may hold them."""
        match_labels = selector.get("matchLabels") if isinstance(selector, dict) else None
        for key, value in match_labels.items() if isinstance(match_labels, dict) else ():
            if isinstance(key, str) and hashable(value):
                found = set(self.labelled.get((key, value), ()))
                if by_pods:
                    found.update(self.selecting.get((key, str(value)), ()))
                return [self.all[position] for position in sorted(found)]
        return self.all


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Per monitor: selected targets, then each endpoint port among their port names."""
    pods = list(all_pods(objects))
    services = _Services(objects)
    for index, monitor in enumerate(objects):
        key = group_kind(monitor)
        if key not in (SERVICE_MONITOR, POD_MONITOR):
            continue
        selector = dig(monitor, "spec", "selector")
        if key == SERVICE_MONITOR:
            targets = [
                o
                for o in services.candidates(selector)
                if _watches(monitor, metadata_of(o).get("namespace")) and matches(selector, labels_of(o))
            ]
            names = {
                p.get("name")
                for t in targets
                for p in (as_list(dig(t, "spec", "ports")))
                if isinstance(p, dict)
            }
            what, endpoints_field = "Service", "endpoints"
        else:
            chosen = [p for p in pods if _watches(monitor, p.namespace) and matches(selector, p.labels)]
            targets = [p.obj for p in chosen]
            names = {
                port.get("name")
                for p in chosen
                for c in containers(p.site, ephemeral=False)
                for port in as_list(c.get("ports"))
                if isinstance(port, dict)
            }
            what, endpoints_field = "pod", "podMetricsEndpoints"
        if not targets:
            hint = _near_miss(monitor, services) if key == SERVICE_MONITOR else ""
            yield (
                index,
                Issue(
                    ("spec", "selector"), f"{key[1]} selects no {what} in the namespaces it watches{hint}", ID
                ),
            )
            continue
        endpoints = dig(monitor, "spec", endpoints_field)
        for number, endpoint in enumerate(endpoints if isinstance(endpoints, list) else []):
            port = endpoint.get("port") if isinstance(endpoint, dict) else None
            if isinstance(port, str) and port not in names:
                yield (
                    index,
                    Issue(
                        ("spec", endpoints_field, number, "port"),
                        f'endpoint port "{port}" is not a port name of the selected {what}s ({", ".join(sorted(str(n) for n in names if n))})',
                        ID,
                    ),
                )


def _near_miss(monitor: dict[str, Any], services: _Services) -> str:
    """What keeps out the Service the monitor was probably written for: the first Service carrying the
    selected labels, or whose pod selector has them (the usual mistake: selecting a Service by its
    pods' labels): its labels, its namespace, its port names; ``""`` when there is none."""
    selector = dig(monitor, "spec", "selector")
    for obj in services.candidates(selector, by_pods=True):
        pods = dig(obj, "spec", "selector")
        pods = {str(k): str(v) for k, v in pods.items()} if isinstance(pods, dict) else {}
        labelled = matches(selector, labels_of(obj))
        if not labelled and not (pods and matches(selector, pods)):
            continue
        meta = metadata_of(obj)
        namespace = meta.get("namespace")
        clauses = []
        if not labelled:
            shown = ", ".join(f"{k}={v}" for k, v in sorted(pods.items()))
            clauses.append(
                f"selects pods by {shown} but carries {'other' if labels_of(obj) else 'no'} labels"
            )
        if not _watches(monitor, namespace):
            clauses.append(f"is in namespace {namespace or '(unset)'}, which the monitor does not watch")
        wanted = {e.get("port") for e in as_list(dig(monitor, "spec", "endpoints")) if isinstance(e, dict)}
        have = {p.get("name") for p in as_list(dig(obj, "spec", "ports")) if isinstance(p, dict)}
        missing = sorted(str(w) for w in wanted - have if isinstance(w, str))
        if missing:
            clauses.append(f"has no port named {', '.join(missing)}")
        where = f"{namespace}/{meta.get('name')}" if namespace else str(meta.get("name"))
        return f" (Service {where} {'; '.join(clauses)})"
    return ""
