"""Input paths (issue 24 point 6, issue 27): what is named on the command line is read wherever it
points; a directory walk follows a link only inside the walked directory; FIFOs and devices are
never opened."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, needs_shared
from trainops.core.errors import UsageError
from trainops.yaml.walk import expand_paths, walk_inputs

pytestmark = needs_shared

TRAINOPS = str(Path(sys.executable).parent / "trainops")
PYTORCH = EXAMPLES / "training-operator" / "examples" / "pytorch"
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


@pytest.fixture
def linked(outside_project: Path) -> Path:
    """A working directory holding ``examples``, a symlink to a directory of upstream examples
    outside it (as a symlinked ../shared is, or /tmp on macOS)."""
    (outside_project / "examples").symlink_to(PYTORCH, target_is_directory=True)
    return outside_project


def test_a_named_symlinked_directory_is_read(cli: Any, linked: Path) -> None:
    run = cli("validate", "--summary", "-o", "text", "examples")
    expected = len(expand_paths([str(PYTORCH)]))
    assert expected > 1
    assert run.code == 0, run.out
    assert f"summary: {expected} files" in run.err
    assert "symlink" not in run.out


@pytest.mark.parametrize("command", [("validate",), ("policy", "check")])
def test_a_file_named_through_a_symlinked_directory_is_read(
    cli: Any, linked: Path, command: tuple[str, ...]
) -> None:
    name = sorted(p.name for p in PYTORCH.glob("*.yaml"))[0]
    run = cli(*command, "-o", "json", f"examples/{name}")
    assert '"rule": "yaml"' not in run.out, run.out
    assert '"files": 1' in run.out


def test_links_inside_the_walked_directory_are_followed_and_nothing_is_read_twice(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.yaml").write_text(CM.format(name="a"))
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "h.yaml").write_text(CM.format(name="h"))
    (tmp_path / "alias").symlink_to("real", target_is_directory=True)  # already walked
    (tmp_path / "b.yaml").symlink_to("real/a.yaml")  # already read
    (tmp_path / "shown").symlink_to(".hidden", target_is_directory=True)  # only reached by the link
    (tmp_path / "real" / "up").symlink_to("..", target_is_directory=True)  # a cycle
    found = walk_inputs([str(tmp_path)])
    assert found.findings == []
    assert [Path(f).relative_to(tmp_path).as_posix() for f in found.files] == ["real/a.yaml", "shown/h.yaml"]


@pytest.mark.parametrize("link", ["outside", "../outside"])
def test_a_link_out_of_the_walked_directory_is_a_finding_naming_it(tmp_path: Path, link: str) -> None:
    """The directory named is ``walked`` inside the working directory: leaving ``walked`` is enough."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.yaml").write_text(CM.format(name="secret"))
    walked = tmp_path / "walked"
    walked.mkdir()
    (walked / "dir").symlink_to(tmp_path / "outside" if link == "outside" else Path(link))
    found = walk_inputs([str(walked)])
    assert found.files == []
    [finding] = found.findings
    assert finding.file == str(walked / "dir")
    assert finding.message == (
        f"symlink to {tmp_path / 'outside'} leaves the walked directory {walked}; not followed "
        "(name it on the command line to read it)"
    )
    assert "repository" not in finding.message


def test_a_fifo_in_a_walk_is_a_finding_and_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "ok.yaml").write_text(CM.format(name="ok"))
    proc = subprocess.run(
        [TRAINOPS, "validate", "-o", "text", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == [
        f"{tmp_path / 'pipe.yaml'}: $: not a regular file (FIFO); not read [yaml]",
        "1 files, 1 documents: 1 errors, 0 warnings",
    ]


@pytest.mark.parametrize("command", [("validate",), ("policy", "check")])
@pytest.mark.parametrize(("kind", "make"), [("FIFO", "fifo"), ("character device", "/dev/null")])
def test_a_fifo_or_device_named_is_a_usage_error(
    tmp_path: Path, command: tuple[str, ...], kind: str, make: str
) -> None:
    path = str(tmp_path / "pipe.yaml") if make == "fifo" else make
    if make == "fifo":
        os.mkfifo(path)
    proc = subprocess.run([TRAINOPS, *command, path], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        f"trainops: {path}: not a regular file ({kind}); not read "
        f"(to validate a stream, pipe it to `-`: cat {path} | trainops validate -)\n"
    )


def test_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"nowhere\.yaml: no such file or directory"):
        walk_inputs([str(tmp_path / "nowhere.yaml")])
