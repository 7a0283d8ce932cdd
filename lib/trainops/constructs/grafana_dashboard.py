"""``GrafanaDashboard``: a Grafana dashboard built with grafana-foundation-sdk, shipped as a ConfigMap
that the Grafana sidecar (kiwigrid k8s-sidecar in the Grafana Helm chart) loads."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.props import require_labels
from trainops.constructs.prometheus_rule import check_promql

_KIND = "GrafanaDashboard"
#: The label the Grafana Helm chart's dashboard sidecar watches by default
#: (``sidecar.dashboards.label: grafana_dashboard``, ``labelValue: "1"``).
SIDECAR_LABEL = ("grafana_dashboard", "1")
#: Annotation naming the Grafana folder (``sidecar.dashboards.folderAnnotation``).
FOLDER_ANNOTATION = "grafana_folder"
_DATASOURCE_VARIABLE = "datasource"
# Grafana's built-in interval variables and dashboard variables, replaced by a plain duration or a
# label value before the PromQL parser sees the expression.
_INTERVALS = re.compile(r"\$__(rate_interval|interval|range)\b|\$\{__(rate_interval|interval|range)\}")
_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)")
#: ConfigMap data limit (``validation.ValidateConfigMap``: total data at most 1 MiB).
MAX_CONFIGMAP_BYTES = 1024 * 1024


@dataclass(frozen=True)
class DashboardQuery:
    """One Prometheus query of a panel.

    Args:
        expr: PromQL; may use ``$__rate_interval`` and dashboard variables such as ``$namespace``.
        legend: legend format, e.g. ``"{{pod}}"``. Default: Grafana's (the series labels).
    """

    expr: str
    legend: str | None = None


@dataclass(frozen=True)
class DashboardPanel:
    """One dashboard panel.

    Args:
        title: panel title.
        queries: at least one :class:`DashboardQuery`.
        unit: Grafana unit id, e.g. ``"percent"``, ``"s"``, ``"reqps"``, ``"decmbytes"``. Default: none.
        kind: ``"timeseries"`` or ``"stat"``. Default: ``"timeseries"``.
        description: panel description. Default: none.
        width: grid width in 1/24ths of the dashboard. Default: 12.
        height: grid height in rows. Default: 8.
    """

    title: str
    queries: Sequence[DashboardQuery]
    unit: str | None = None
    kind: Literal["timeseries", "stat"] = "timeseries"
    description: str | None = None
    width: int = 12
    height: int = 8


def promql_for_parser(expr: str) -> str:
    """``expr`` with Grafana's ``$__rate_interval``/``$__interval``/``$__range`` replaced by ``5m``
    and other ``$var``/``${var}`` by ``var`` (a label value or name), so it can be parsed offline."""
    return _VARIABLE.sub(lambda m: m.group(1) or m.group(2), _INTERVALS.sub("5m", expr))


class GrafanaDashboard(ObjectConstruct):
    """A v1 ConfigMap holding one Grafana dashboard JSON, labelled for the Grafana sidecar.

    The dashboard is built with grafana-foundation-sdk (Grafana's maintained typed builders), not
    hand-written JSON: a ``datasource`` variable of type prometheus, the given variables as custom
    variables, and the panels laid out left to right, top to bottom. Every query is parsed with
    promql-parser (after replacing Grafana's ``$__rate_interval`` and ``$variables``), so a typo fails
    synth. The JSON is written with sorted keys, so the same dashboard gives the same bytes. Argo CD
    syncs it in wave ``1``.

    Args:
        scope: the parent construct (a Chart; the namespace the sidecar watches, or any namespace
            with ``sidecar.dashboards.searchNamespace: ALL``).
        id: construct id.
        name: ConfigMap name and dashboard uid, a DNS-1123 label.
        title: dashboard title.
        panels: at least one :class:`DashboardPanel`.
        variables: dashboard variables as ``name -> value`` (custom, one value), e.g.
            ``{"namespace": "ml-train"}``. Default: none.
        tags: dashboard tags. Default: ``("trainops",)``.
        folder: Grafana folder (the ``grafana_folder`` annotation). Default: the sidecar's default.
        refresh: auto-refresh interval. Default: ``"30s"``.
        time_from: start of the default time range. Default: ``"now-6h"``.
        sidecar_label: the label the sidecar selects ConfigMaps by. Default: ``grafana_dashboard: "1"``.

    Raises:
        ValueError: no panels or queries, a PromQL syntax error, a bad name or label, a panel wider
            than 24, a duplicate variable, or a dashboard over the 1 MiB ConfigMap limit.

    Source: https://github.com/grafana/grafana-foundation-sdk (Python builders) and the Grafana Helm
    chart's ``sidecar.dashboards`` values (https://github.com/grafana/helm-charts, ``charts/grafana``).
    """

    KIND = "ConfigMap"
    API_VERSION = "v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str,
        title: str,
        panels: Sequence[DashboardPanel],
        variables: Mapping[str, str] | None = None,
        tags: Sequence[str] = ("trainops",),
        folder: str | None = None,
        refresh: str = "30s",
        time_from: str = "now-6h",
        sidecar_label: tuple[str, str] = SIDECAR_LABEL,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", name)
        if not isinstance(title, str) or not title.strip():
            raise ValueError(f"{_KIND} title={title!r}: must be a non-empty string")
        if isinstance(panels, DashboardPanel) or not panels:
            raise ValueError(f"{_KIND} panels={panels!r}: must list at least one DashboardPanel")
        if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
            raise ValueError(f"{_KIND} tags={tags!r}: must be a sequence of strings")
        # imported here: the SDK is slow to import, and most apps have no dashboard
        from grafana_foundation_sdk.builders import dashboard as dashboard_builder
        from grafana_foundation_sdk.cog.encoder import JSONEncoder
        from grafana_foundation_sdk.models import dashboard as dashboard_model

        builder = (
            dashboard_builder.Dashboard(title)
            .uid(self._name)
            .tags(list(tags))
            .refresh(refresh)
            .time(time_from, "now")
            .timezone("browser")
            .with_variable(
                dashboard_builder.DatasourceVariable(_DATASOURCE_VARIABLE)
                .label("Data source")
                .type("prometheus")
            )
        )
        for var_name, value in (variables or {}).items():
            if not isinstance(var_name, str) or not re.fullmatch(r"[A-Za-z_]\w*", var_name):
                raise ValueError(f"{_KIND} variables: {var_name!r} is not a variable name")
            if var_name == _DATASOURCE_VARIABLE:
                raise ValueError(f"{_KIND} variables: {var_name!r} is the built-in data source variable")
            if not isinstance(value, str) or not value or "," in value:
                raise ValueError(f"{_KIND} variables: {var_name}={value!r} must be one non-empty value")
            builder = builder.with_variable(
                dashboard_builder.CustomVariable(var_name)
                .values(value)
                .current(dashboard_model.VariableOption(text=value, value=value, selected=True))
            )
        x = y = row_height = 0
        for index, panel in enumerate(panels):
            if not isinstance(panel, DashboardPanel):
                raise ValueError(f"{_KIND} panels[{index}]={panel!r}: must be a DashboardPanel")
            if not 1 <= panel.width <= 24 or panel.height < 1:
                raise ValueError(
                    f"{_KIND} panels[{index}] width={panel.width!r}, height={panel.height!r}: width must be "
                    "1..24 and height at least 1"
                )
            if x + panel.width > 24:
                x, y, row_height = 0, y + row_height, 0
            builder = builder.with_panel(_panel(index, panel, x, y))
            x, row_height = x + panel.width, max(row_height, panel.height)
        self._json = json.dumps(builder.build(), cls=JSONEncoder, sort_keys=True, indent=2) + "\n"
        if len(self._json.encode()) > MAX_CONFIGMAP_BYTES:
            raise ValueError(
                f"{_KIND} name={name!r}: the dashboard JSON ({len(self._json.encode())} bytes) exceeds the "
                f"{MAX_CONFIGMAP_BYTES}-byte ConfigMap limit"
            )
        label = require_labels(_KIND, "sidecar_label", dict([sidecar_label]))
        annotations = argocd_annotations(wave=1)
        if folder is not None:
            if not isinstance(folder, str) or not folder.strip():
                raise ValueError(f"{_KIND} folder={folder!r}: must be a non-empty string")
            annotations[FOLDER_ANNOTATION] = folder
        self.emit_object({"data": {f"{self._name}.json": self._json}}, labels=label, annotations=annotations)

    @property
    def dashboard_json(self) -> str:
        """The dashboard JSON as written to the ConfigMap."""
        return self._json


def _panel(index: int, panel: DashboardPanel, x: int, y: int) -> Any:
    from grafana_foundation_sdk.builders import prometheus, stat, timeseries
    from grafana_foundation_sdk.models import dashboard as dashboard_model

    if not isinstance(panel.title, str) or not panel.title.strip():
        raise ValueError(f"{_KIND} panels[{index}] title={panel.title!r}: must be a non-empty string")
    if isinstance(panel.queries, DashboardQuery) or not panel.queries:
        raise ValueError(f"{_KIND} panels[{index}] queries: must list at least one DashboardQuery")
    builder: Any = stat.Panel() if panel.kind == "stat" else timeseries.Panel()
    if panel.kind not in ("timeseries", "stat"):
        raise ValueError(f"{_KIND} panels[{index}] kind={panel.kind!r}: must be 'timeseries' or 'stat'")
    builder = (
        builder.title(panel.title)
        .datasource(dashboard_model.DataSourceRef(type_val="prometheus", uid=f"${{{_DATASOURCE_VARIABLE}}}"))
        .grid_pos(dashboard_model.GridPos(h=panel.height, w=panel.width, x=x, y=y))
    )
    if panel.unit is not None:
        builder = builder.unit(panel.unit)
    if panel.description is not None:
        builder = builder.description(panel.description)
    for q, query in enumerate(panel.queries):
        if not isinstance(query, DashboardQuery):
            raise ValueError(f"{_KIND} panels[{index}] queries[{q}]={query!r}: must be a DashboardQuery")
        check_promql(f"{_KIND} panels[{index}] queries[{q}]", promql_for_parser(query.expr))
        target = prometheus.Dataquery().expr(query.expr).ref_id(chr(ord("A") + q))
        if query.legend is not None:
            target = target.legend_format(query.legend)
        builder = builder.with_target(target)
    return builder
