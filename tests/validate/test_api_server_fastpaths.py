"""The api-server check's shortcuts give the original computation's result: the cached clean-entry
verdict of a ``limits``/``requests`` entry (:func:`api_server._clean_entry`) and the container
resource check built on it (:func:`api_server._check_resources`, compared with the check as it was
before the shortcut, reproduced here from :func:`api_server._check_resource_entry`)."""

from __future__ import annotations

import os
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.core.findings import Issue
from trainops.validate.checks import api_server as a

EXAMPLES = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5, deadline=None)

NAMES = st.one_of(
    st.sampled_from(
        [
            "cpu",
            "memory",
            "ephemeral-storage",
            "hugepages-2Mi",
            "hugepages-1Gi",
            "nvidia.com/gpu",
            "example.com/foo",
            "kubernetes.io/bar",
            "requests.example.com/x",
            "gpu",
            "Bad Name",
            "-cpu",
            "a/b/c",
            "",
        ]
    ),
    st.from_regex(r"[a-z0-9./_-]{1,20}", fullmatch=True),
)
SUFFIXES = ["", "m", "k", "Ki", "M", "Mi", "G", "Gi", "Ti", "e3", "E", "u", "n", "x"]
QUANTITIES = st.builds(
    lambda sign, number, suffix: f"{sign}{number}{suffix}",
    st.sampled_from(["", "-", "+"]),
    st.one_of(st.integers(0, 10**6).map(str), st.sampled_from(["0.5", "1.25", ".5", "1.", "2.000", "0"])),
    st.sampled_from(SUFFIXES),
)
RAWS = st.one_of(
    QUANTITIES,
    st.integers(-5, 10**9),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.sampled_from(["${GPU}", "1${X}", "abc", " 1", "1Gi ", ""]),
    st.text(max_size=6),
)


def _original_check_resources(
    resources: dict[str, Any], parts: a.Parts, label: str, issues: list[Issue], templated: bool
) -> None:
    """:func:`api_server._check_resources` before its cached fast path."""
    limits = resources.get("limits")
    requests = resources.get("requests")
    parsed_limits: dict[str, Fraction] = {}
    if isinstance(limits, dict):
        for name, raw in limits.items():
            value = a._check_resource_entry(name, raw, (*parts, "limits"), "limits", label, issues, templated)
            if value is not None:
                parsed_limits[name] = value
    if not isinstance(requests, dict) or (limits is not None and not isinstance(limits, dict)):
        return
    limit_names: dict[str, Any] = limits or {}
    for name, raw in requests.items():
        value = a._check_resource_entry(name, raw, (*parts, "requests"), "requests", label, issues, templated)
        if not isinstance(name, str):
            continue
        overcommit = a._overcommit_allowed(name)
        if name in limit_names:
            limit = parsed_limits.get(name)
            if value is None or limit is None:
                continue
            if not overcommit and value != limit:
                issues.append(
                    a._issue(
                        (*parts, "requests", name),
                        f"{label} requests {a._key(name)} {a._fmt(raw)}, which must equal its limit "
                        f"{a._fmt(limit_names[name])} ({name} cannot be overcommitted)",
                        "extended-resource",
                    )
                )
            elif value > limit:
                issues.append(
                    a._issue(
                        (*parts, "requests", name),
                        f"{label} requests {a._key(name)} {a._fmt(raw)}, more than its limit "
                        f"{a._fmt(limit_names[name])}",
                        "requests-exceed-limits",
                    )
                )
        elif not overcommit and not (isinstance(raw, str) and templated and "${" in raw):
            issues.append(
                a._issue(
                    (*parts, "requests", name),
                    f"{label} requests {a._key(name)} {a._fmt(raw)} without a limit; {name} cannot be "
                    "overcommitted, so limits must be set (a limit alone also sets the request)",
                    "extended-resource",
                )
            )


@EXAMPLES
@given(
    name=NAMES, raw=QUANTITIES | st.integers(-5, 10**9) | st.floats(allow_nan=False), templated=st.booleans()
)
def test_clean_entry_is_the_silent_entry_check(name: str, raw: str | int | float, templated: bool) -> None:
    issues: list[Issue] = []
    value = a._check_resource_entry(name, raw, ("spec",), "limits", 'container "c"', issues, templated)
    facts = a._clean_entry(name, raw)
    assert facts == a._clean_entry.__wrapped__(name, raw)  # the cache answers what the function does
    if facts is None:
        assert issues or value is None
    else:
        assert (issues, facts) == ([], (value, a._overcommit_allowed(name)))
        assert type(facts[0]) is (int if value is not None and value.denominator == 1 else Fraction)


@EXAMPLES
@given(
    limits=st.one_of(st.none(), st.dictionaries(NAMES, RAWS, max_size=4), st.just("bad")),
    requests=st.one_of(st.none(), st.dictionaries(NAMES, RAWS, max_size=4), st.just(["bad"])),
    templated=st.booleans(),
)
def test_check_resources_reports_what_it_reported_before(limits: Any, requests: Any, templated: bool) -> None:
    resources = {
        key: value for key, value in (("limits", limits), ("requests", requests)) if value is not None
    }
    parts: a.Parts = ("spec", "containers", 0, "resources")
    fast: list[Issue] = []
    a._check_resources(resources, parts, 'container "c"', fast, templated)
    slow: list[Issue] = []
    _original_check_resources(resources, parts, 'container "c"', slow, templated)
    assert fast == slow


@EXAMPLES
@given(parts=st.lists(st.one_of(st.text(max_size=8), st.integers(0, 20)), max_size=8).map(tuple))
def test_dotted_cache_answers_what_the_function_does(parts: a.Parts) -> None:
    first = a._dotted(parts)
    assert (first, a._dotted(parts)) == (a._dotted.__wrapped__(parts),) * 2


@EXAMPLES
@given(name=st.one_of(NAMES, st.text(max_size=70), st.from_regex(r"[a-z0-9-]{60,70}", fullmatch=True)))
def test_cached_container_name_check_is_the_dns1123_label_check(name: str) -> None:
    first = a._dns1123_label_problem(name)
    assert (first, a._dns1123_label_problem(name)) == (a.DNS1123_LABEL.problem(name),) * 2


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=12) | st.sampled_from(["", "=", "A=B", "NCCL_DEBUG", "\x7f", "caf\u00e9", " ", "~"]))
def test_env_name_test_is_the_regular_expression(name: str) -> None:
    from trainops.validate.checks.pod_fields import _ENV_NAME_BAD, _env_name_ok

    assert _env_name_ok(name) == (bool(name) and _ENV_NAME_BAD.search(name) is None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=16) | st.sampled_from(["DB_PASSWORD", "api_key", "NCCL_DEBUG", "token"])))
def test_secret_like_with_its_name_cache_is_the_search(names: list[str]) -> None:
    from trainops.core.credentials import _SECRET_NAME, secret_like

    for name in [*names, *names]:  # the second time from the cache
        assert secret_like(name) == (_SECRET_NAME.search(name) is not None)
