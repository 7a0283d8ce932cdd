"""``trainops diff`` on hostile working trees (issue 27): a file it cannot read is reported, never
"no changes"; a symbolic link is never followed; a large file is not parsed; credentials in field
values are redacted in every format."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.workflow.project import commit_all, write_project

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: ml\ndata:\n  a: b\n"


def _skipped(cli: Any) -> list[dict[str, str]]:
    run = cli("diff", "HEAD", "--format", "json")
    assert run.code == 1, run.out + run.err
    payload = json.loads(run.out)
    skipped: list[dict[str, str]] = payload["skipped"]
    return skipped


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        pytest.param(
            "model.bin",
            b"\x89PNG\r\n\x1a\n\x00\x00",
            "binary content (NUL byte at byte 8); not compared",
            id="binary",
        ),
        pytest.param(
            "extra.yaml",
            CM.encode() + b"  c: \x00d\n",
            f"binary content (NUL byte at byte {len(CM) + 5}); not compared",
            id="nul-yaml",
        ),
        pytest.param(
            "extra.yaml",
            CM.encode() + b"  c: \xff\n",
            f"not UTF-8 text at byte {len(CM) + 5}; not compared",
            id="not-utf8",
        ),
        pytest.param(
            "extra.yaml", b"a: [b\n", "not YAML trainops diff can read at line 2; not compared", id="not-yaml"
        ),
    ],
)
def test_unreadable_added_file_is_reported(
    cli: Any, repo: Path, name: str, content: bytes, reason: str
) -> None:
    """issue 27: diff said "no changes" when a binary file or a YAML file with NUL bytes was added."""
    (repo / "generated" / "lab" / "web" / name).write_bytes(content)
    assert _skipped(cli) == [{"path": f"generated/lab/web/{name}", "side": "head", "reason": reason}]
    text = cli("diff", "HEAD")
    assert text.code == 1
    assert text.out.splitlines()[0] == "generated/ HEAD → working tree: 1 file not compared"
    assert f"  ? generated/lab/web/{name} (head): {reason}" in text.out.splitlines()
    markdown = cli("diff", "HEAD", "--format", "markdown").out
    assert f"- :question: `generated/lab/web/{name}` (head): {reason}" in markdown


def test_unchanged_binary_file_is_not_reported(cli: Any, repo: Path) -> None:
    (repo / "generated" / "lab" / "web" / "model.bin").write_bytes(b"\x00" * 64)
    commit_all(repo, "a binary file")
    run = cli("diff", "HEAD")
    assert (run.code, run.out.strip()) == (0, "generated/ HEAD → working tree: no changes")


@pytest.mark.parametrize("target_kind", ["file", "directory"])
def test_symlink_out_of_the_repository_is_not_followed(
    cli: Any, repo: Path, tmp_path: Path, target_kind: str
) -> None:
    """issue 27: diff read a symlink in generated/ pointing to a kubeconfig outside the repository."""
    outside = tmp_path / "outside"
    outside.mkdir()
    kubeconfig = outside / "config.yaml"
    kubeconfig.write_text(CM.replace("a: b", f"token: {AWS_SECRET}"))
    link = repo / "generated" / "lab" / "web" / "kubeconfig.yaml"
    link.symlink_to(kubeconfig if target_kind == "file" else outside)
    assert _skipped(cli) == [
        {
            "path": "generated/lab/web/kubeconfig.yaml",
            "side": "head",
            "reason": "a symbolic link (synth writes none); not followed",
        }
    ]
    for fmt in ("text", "markdown", "json"):
        run = cli("diff", "HEAD", "--format", fmt)
        assert AWS_SECRET not in run.out + run.err
        assert "ConfigMap" not in run.out


def test_symlink_in_the_base_revision_is_not_read(cli: Any, repo: Path, tmp_path: Path) -> None:
    link = repo / "generated" / "lab" / "web" / "kubeconfig.yaml"
    link.symlink_to("/etc/hostname")
    commit_all(repo, "a link")
    link.unlink()
    assert _skipped(cli) == [
        {
            "path": "generated/lab/web/kubeconfig.yaml",
            "side": "base",
            "reason": "a symbolic link (synth writes none); not followed",
        }
    ]


def test_large_file_is_not_parsed(cli: Any, repo: Path) -> None:
    """issue 27: a 20 MB file added under generated/ took 12 s and 983 MB."""
    big = repo / "generated" / "lab" / "web" / "big.yaml"
    with big.open("w") as handle:
        handle.write(CM)
        for index in range(400_000):
            handle.write(f"  key{index}: value-{index}\n")
    size = big.stat().st_size
    started = time.monotonic()
    skipped = _skipped(cli)
    assert time.monotonic() - started < 5
    assert skipped == [
        {
            "path": "generated/lab/web/big.yaml",
            "side": "head",
            "reason": f"{size} bytes, over the 4194304 bytes trainops diff reads; not compared",
        }
    ]


def _add_env(repo: Path, env: list[dict[str, str]]) -> None:
    (path,) = (repo / "generated" / "lab" / "web").glob("deployment_*.yaml")
    obj = yaml.safe_load(path.read_text())
    obj["spec"]["template"]["spec"]["containers"][0]["env"] = env
    path.write_text(yaml.safe_dump(obj, sort_keys=False))


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_env_literal_secrets_are_redacted(cli: Any, repo: Path, fmt: str) -> None:
    """issue 27: diff printed env literal values (a cloud secret key) in all three formats."""
    _add_env(
        repo,
        [
            {"name": "AWS_SECRET_ACCESS_KEY", "value": AWS_SECRET},
            {"name": "DB_PASSWORD", "value": "12345678901234"},
            {"name": "LOG_LEVEL", "value": "debug"},
        ],
    )
    run = cli("diff", "HEAD", "--format", fmt)
    assert run.code == 0, run.err
    assert AWS_SECRET not in run.out and AWS_SECRET[:8] not in run.out
    assert "12345678901234" not in run.out
    assert "(redacted)" in run.out
    if fmt == "json":
        (change,) = json.loads(run.out)["changes"]
        (item,) = change["fields"]
        assert item["new"] == [
            {"name": "AWS_SECRET_ACCESS_KEY", "value": "(redacted)"},
            {"name": "DB_PASSWORD", "value": "(redacted)"},
            {"name": "LOG_LEVEL", "value": "debug"},
        ]


def test_changed_secret_value_is_redacted_on_both_sides(cli: Any, repo: Path) -> None:
    _add_env(repo, [{"name": "API_TOKEN", "value": "tok-old-0123456789"}])
    commit_all(repo, "a token")
    _add_env(repo, [{"name": "API_TOKEN", "value": "tok-new-9876543210"}])
    run = cli("diff", "HEAD")
    assert "tok-old" not in run.out and "tok-new" not in run.out
    assert '.env[name=API_TOKEN].value: "(redacted)" → "(redacted)"' in run.out


def test_unreadable_file_does_not_hide_other_changes(cli: Any, repo: Path) -> None:
    write_project(repo, replicas=3)
    assert cli("synth").code == 0
    (repo / "generated" / "lab" / "web" / "model.bin").write_bytes(b"\x00")
    run = cli("diff", "HEAD")
    assert run.code == 1
    assert run.out.splitlines()[0] == "generated/ HEAD → working tree: 1 changed, 1 file not compared"
    assert os.path.exists(repo / "generated" / "lab" / "web" / "model.bin")


def test_generated_root_as_a_symlink_is_not_followed(cli: Any, repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (repo / "generated").rename(elsewhere)
    (repo / "generated").symlink_to(elsewhere)
    skipped = _skipped(cli)
    assert {
        "path": "generated",
        "side": "head",
        "reason": "a symbolic link (synth writes none); not followed",
    } in skipped
