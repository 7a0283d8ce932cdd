"""``NetworkPolicy``: default-deny for a team namespace plus narrow allow rules (serving ingress,
Prometheus scraping, DNS)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.props import require_labels, require_whole
from trainops.constructs._core.protocols import Selectable
from trainops.constructs.team_namespace import PLATFORM_WAVE
from trainops.core.cluster import Cluster
from trainops.core.naming import DNS1123_LABEL, require

_KIND = "NetworkPolicy"

PolicyType = Literal["Ingress", "Egress"]
PortProtocol = Literal["TCP", "UDP", "SCTP"]
_PROTOCOLS: tuple[PortProtocol, ...] = ("TCP", "UDP", "SCTP")
#: Label the API server sets on every Namespace to its name (Kubernetes 1.22+), which lets a
#: ``namespaceSelector`` pick a namespace by name.
#: Source: https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-metadata-name
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
#: Pod labels of the cluster DNS (CoreDNS keeps the ``kube-dns`` name) in ``kube-system``.
#: Source: https://kubernetes.io/docs/tasks/administer-cluster/dns-custom-nameservers/
DNS_POD_LABELS = {"k8s-app": "kube-dns"}
# IANA_SVC_NAME as Kubernetes checks it (apimachinery validation.IsValidPortName): at most 15
# lower-case alphanumerics and single inner '-', with at least one letter.
_PORT_NAME = re.compile(r"^(?=.*[a-z])[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Peer:
    """One NetworkPolicyPeer: pods by labels and/or namespaces by labels or name, or an IP block.

    Args:
        pod_labels: ``podSelector.matchLabels``; ``{}`` selects every pod. Default: not set.
        namespace_labels: ``namespaceSelector.matchLabels``; ``{}`` selects every namespace.
            Default: not set.
        namespace: a namespace by name (``namespaceSelector`` on ``kubernetes.io/metadata.name``);
            not with ``namespace_labels``. Default: not set.
        cidr: ``ipBlock.cidr``, not with any selector. Default: not set.
        except_cidrs: ``ipBlock.except``, each inside ``cidr``. Default: none.

    Raises:
        ValueError: nothing selected, an IP block mixed with selectors, both namespace forms, a bad
            CIDR or an ``except`` outside ``cidr``, bad labels.
    """

    pod_labels: Mapping[str, str] | None = None
    namespace_labels: Mapping[str, str] | None = None
    namespace: str | None = None
    cidr: str | None = None
    except_cidrs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        selectors = (self.pod_labels, self.namespace_labels, self.namespace)
        if self.cidr is None and all(s is None for s in selectors):
            raise ValueError("NetworkPolicy Peer: give pod_labels, namespace_labels, namespace or cidr")
        if self.cidr is not None and any(s is not None for s in selectors):
            raise ValueError(
                f"NetworkPolicy Peer cidr={self.cidr!r}: an IP block cannot be combined with selectors"
            )
        if self.namespace is not None and self.namespace_labels is not None:
            raise ValueError(
                f"NetworkPolicy Peer namespace={self.namespace!r}: not together with namespace_labels"
            )
        if self.namespace is not None:
            require(DNS1123_LABEL, "NetworkPolicy Peer", "namespace", self.namespace)
        require_labels("NetworkPolicy Peer", "pod_labels", self.pod_labels or {})
        require_labels("NetworkPolicy Peer", "namespace_labels", self.namespace_labels or {})
        if self.except_cidrs and self.cidr is None:
            raise ValueError(f"NetworkPolicy Peer except_cidrs={list(self.except_cidrs)!r}: needs a cidr")
        if self.cidr is not None:
            block = _network("cidr", self.cidr)
            for item in self.except_cidrs:
                inner = _network("except_cidrs", item)
                if inner.version != block.version or not inner.subnet_of(block):  # type: ignore[arg-type]
                    raise ValueError(
                        f"NetworkPolicy Peer except_cidrs: {item!r} is not inside cidr {self.cidr!r}"
                    )

    def to_spec(self) -> dict[str, Any]:
        """The networking.k8s.io/v1 NetworkPolicyPeer."""
        if self.cidr is not None:
            block: dict[str, Any] = {"cidr": self.cidr}
            if self.except_cidrs:
                block["except"] = list(self.except_cidrs)
            return {"ipBlock": block}
        peer: dict[str, Any] = {}
        if self.namespace is not None:
            peer["namespaceSelector"] = {"matchLabels": {NAMESPACE_NAME_LABEL: self.namespace}}
        elif self.namespace_labels is not None:
            peer["namespaceSelector"] = _selector(self.namespace_labels)
        if self.pod_labels is not None:
            peer["podSelector"] = _selector(self.pod_labels)
        return peer


@dataclass(frozen=True)
class Port:
    """One NetworkPolicyPort.

    Args:
        port: a port number (1..65535) or a named container port. Default: every port.
        protocol: ``TCP`` | ``UDP`` | ``SCTP``. Default: ``TCP``.
        end_port: last port of a range starting at the numeric ``port``. Default: no range.

    Raises:
        ValueError: a port outside 1..65535, a bad port name, a bad protocol, a bad range.
    """

    port: int | str | None = None
    protocol: PortProtocol = "TCP"
    end_port: int | None = None

    def __post_init__(self) -> None:
        if self.protocol not in _PROTOCOLS:
            raise ValueError(
                f"NetworkPolicy Port protocol={self.protocol!r}: must be one of {', '.join(_PROTOCOLS)}"
            )
        if isinstance(self.port, str):
            if len(self.port) > 15 or not _PORT_NAME.match(self.port):
                raise ValueError(f"NetworkPolicy Port port={self.port!r}: not a port name (IANA_SVC_NAME)")
        elif self.port is not None:
            _port_number("port", self.port)
        if self.end_port is not None:
            if not isinstance(self.port, int) or isinstance(self.port, bool):
                raise ValueError(f"NetworkPolicy Port end_port={self.end_port!r}: needs a numeric port")
            if _port_number("end_port", self.end_port) < self.port:
                raise ValueError(
                    f"NetworkPolicy Port end_port={self.end_port!r}: must be at least port={self.port}"
                )

    def to_spec(self) -> dict[str, Any]:
        """The networking.k8s.io/v1 NetworkPolicyPort."""
        spec: dict[str, Any] = {"protocol": self.protocol}
        if self.port is not None:
            spec["port"] = self.port
        if self.end_port is not None:
            spec["endPort"] = self.end_port
        return spec


@dataclass(frozen=True)
class Rule:
    """One ingress (``from``) or egress (``to``) rule.

    Args:
        peers: who may connect (ingress) or be connected to (egress). Default: everyone.
        ports: which ports. Default: every port.
    """

    peers: tuple[Peer, ...] = field(default=())
    ports: tuple[Port, ...] = field(default=())

    def to_spec(self, direction: PolicyType) -> dict[str, Any]:
        """The NetworkPolicyIngressRule (``from``) or NetworkPolicyEgressRule (``to``)."""
        spec: dict[str, Any] = {}
        if self.peers:
            spec["from" if direction == "Ingress" else "to"] = [p.to_spec() for p in self.peers]
        if self.ports:
            spec["ports"] = [p.to_spec() for p in self.ports]
        return spec


class NetworkPolicy(ObjectConstruct):
    """A networking.k8s.io/v1 NetworkPolicy; by default a namespace-wide default-deny.

    With the defaults it selects every pod of its namespace and allows no ingress and no egress
    (the upstream ``default-deny-all``). Allow rules are further policies, which add up:
    :meth:`allow_dns`, :meth:`allow_serving` (ingress controller → a ``ModelServer``),
    :meth:`allow_scrape` (Prometheus → metrics ports), or a policy with explicit ``ingress``/``egress``
    :class:`Rule` lists. Argo CD syncs it in wave ``-2``, with the Namespace.

    Args:
        scope: the parent construct (a Chart; its namespace is the policy's).
        id: construct id.
        name: policy name, a DNS-1123 label. Default: ``"default-deny"``.
        pod_labels: ``podSelector.matchLabels`` of the pods it applies to. Default: every pod (``{}``).
        policy_types: ``Ingress`` and/or ``Egress``: the directions it restricts. Default: both.
        ingress: allowed incoming connections. Default: none (deny).
        egress: allowed outgoing connections. Default: none (deny).
        labels: extra labels. Default: none.

    Raises:
        ValueError: no or unknown or repeated policy types; rules for a direction not in
            ``policy_types``; bad labels or name.

    Source: https://kubernetes.io/docs/concepts/services-networking/network-policies/,
    https://kubernetes.io/docs/reference/kubernetes-api/policy-resources/network-policy-v1/
    """

    KIND = "NetworkPolicy"
    API_VERSION = "networking.k8s.io/v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str = "default-deny",
        pod_labels: Mapping[str, str] | None = None,
        policy_types: Sequence[PolicyType] = ("Ingress", "Egress"),
        ingress: Sequence[Rule] = (),
        egress: Sequence[Rule] = (),
        labels: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", name)
        types = list(policy_types)
        if not types or any(t not in ("Ingress", "Egress") for t in types) or len(set(types)) != len(types):
            raise ValueError(f"{_KIND} policy_types={types!r}: must be Ingress and/or Egress, each once")
        for direction, rules in (("Ingress", ingress), ("Egress", egress)):
            if rules and direction not in types:
                raise ValueError(
                    f"{_KIND} {direction.lower()}: rules given but policy_types={types!r} lacks {direction}"
                )
            for rule in rules:
                if not isinstance(rule, Rule):
                    raise ValueError(f"{_KIND} {direction.lower()}: {rule!r} is not a Rule")
        selected = require_labels(_KIND, "pod_labels", pod_labels or {})
        spec: dict[str, Any] = {"podSelector": _selector(selected), "policyTypes": types}
        if ingress:
            spec["ingress"] = [r.to_spec("Ingress") for r in ingress]
        if egress:
            spec["egress"] = [r.to_spec("Egress") for r in egress]
        self._spec = spec
        self.emit_object(
            {"spec": spec},
            labels=require_labels(_KIND, "labels", labels or {}),
            annotations=argocd_annotations(wave=PLATFORM_WAVE),
        )

    @property
    def spec(self) -> dict[str, Any]:
        """The policy's spec (a copy)."""
        spec: dict[str, Any] = _copy(self._spec)
        return spec

    # -- allow rules ----------------------------------------------------------------------------

    @classmethod
    def allow_dns(cls, scope: Construct, id: str, *, name: str = "allow-dns") -> NetworkPolicy:
        """Egress from every pod of the namespace to the cluster DNS (``kube-system`` pods labelled
        ``k8s-app: kube-dns``) on port 53 UDP and TCP: what a default-deny egress policy breaks first.

        Source: https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/
        """
        return cls(
            scope,
            id,
            name=name,
            policy_types=("Egress",),
            egress=[
                Rule(
                    peers=(Peer(namespace="kube-system", pod_labels=DNS_POD_LABELS),),
                    ports=(Port(53, "UDP"), Port(53, "TCP")),
                )
            ],
        )

    @classmethod
    def allow_serving(
        cls,
        scope: Construct,
        id: str,
        *,
        target: Selectable,
        from_namespaces: Sequence[str] | None = None,
        same_namespace: bool = True,
        name: str | None = None,
    ) -> NetworkPolicy:
        """Ingress to a serving workload's pods on its main (named) port only.

        Args:
            target: the workload (e.g. a ``ModelServer``); its selector labels and port name.
            from_namespaces: namespaces whose pods may connect. Default: the cluster's
                ``ingress_namespace`` (the ingress controller).
            same_namespace: also allow pods of the policy's own namespace. Default: ``True``.
            name: policy name. Default: ``<target>-allow-serving``.
        """
        namespaces = [target.cluster.ingress_namespace] if from_namespaces is None else list(from_namespaces)
        peers = [Peer(namespace=ns) for ns in namespaces]
        if same_namespace:
            peers.append(Peer(pod_labels={}))
        if not peers:
            raise ValueError(f"{_KIND} from_namespaces=[]: with same_namespace=False nobody may connect")
        return cls(
            scope,
            id,
            name=f"{target.name}-allow-serving" if name is None else name,
            pod_labels=target.selector_labels,
            policy_types=("Ingress",),
            ingress=[Rule(peers=tuple(peers), ports=(Port(target.port_name),))],
        )

    @classmethod
    def allow_scrape(
        cls,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        pod_labels: Mapping[str, str] | None = None,
        ports: Sequence[int | str] = (),
        name: str = "allow-prometheus-scrape",
    ) -> NetworkPolicy:
        """Ingress from Prometheus (pods of the cluster's ``prometheus_namespace``) to metrics ports.

        Args:
            cluster: target cluster; must list ``prometheus-operator``.
            pod_labels: the scraped pods. Default: every pod of the namespace.
            ports: metrics ports (numbers or names). Default: every port.
            name: policy name. Default: ``allow-prometheus-scrape``.

        Raises:
            ValueError: the cluster lacks prometheus-operator; a bad port.
        """
        if not cluster.has_operator("prometheus-operator"):
            raise ValueError(
                f"{_KIND} {name!r}: cluster {cluster.name!r} does not list prometheus-operator in operators"
            )
        return cls(
            scope,
            id,
            name=name,
            pod_labels=pod_labels,
            policy_types=("Ingress",),
            ingress=[
                Rule(
                    peers=(Peer(namespace=cluster.prometheus_namespace),), ports=tuple(Port(p) for p in ports)
                )
            ],
        )


def _selector(labels: Mapping[str, str]) -> dict[str, Any]:
    return {"matchLabels": dict(labels)} if labels else {}


def _network(prop: str, value: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    try:
        return ipaddress.ip_network(value, strict=True)
    except (TypeError, ValueError):
        raise ValueError(f"NetworkPolicy Peer {prop}: {value!r} is not a CIDR network address") from None


def _port_number(prop: str, value: object) -> int:
    number = require_whole("NetworkPolicy Port", prop, value, minimum=1)
    if number > 65535:
        raise ValueError(f"NetworkPolicy Port {prop}={value!r}: must be at most 65535")
    return number


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
