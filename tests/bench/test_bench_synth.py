"""``bench.synth``'s project of apps cycling through the sample repository's builders is what the
issue measures: app ``i`` is the sample's app ``i mod 21`` under its own name, on the sample's
clusters, and it synthesises with the project's policy config (speed is asserted by ``make bench``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bench.synth import _COUNTS, write_sample_project
from conftest import SAMPLE
from trainops.project import load_project


def test_sample_apps_cycle_through_the_sample_builders(tmp_path: Path) -> None:
    sample = list(load_project(SAMPLE).apps.values())
    write_sample_project(tmp_path, len(sample) + 2)
    project = load_project(tmp_path)
    apps = list(project.apps.values())
    assert [app.name for app in apps] == [
        f"{sample[i % len(sample)].name}-{i:04d}" for i in range(len(sample) + 2)
    ]
    for index, app in enumerate(apps):
        original = sample[index % len(sample)]
        assert dataclasses.replace(app, name=original.name, build=original.build) == original
        assert app.build.__qualname__ == original.build.__qualname__
    assert [c.name for c in project.clusters] == [c.name for c in load_project(SAMPLE).clusters]
    assert "unique-objects: disable" in (tmp_path / "policies" / "config.yaml").read_text()


def test_the_count_line_is_read() -> None:
    found = _COUNTS.search("synth: 12038 objects from 2810 apps written to generated/\n")
    assert found is not None and found.groups() == ("12038", "2810")
