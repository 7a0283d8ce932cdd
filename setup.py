"""Build of trainops's native accelerators (everything else is in pyproject.toml).

* C: ``trainops.yaml._blockyaml`` reads block YAML documents in one pass
  (``lib/trainops/yaml/_blockyaml.c``); ``trainops.validate.checks._listmap`` is the list-map check's
  pre-test (``.../checks/_listmap.c``).
* mypyc: the per-document check modules of :data:`COMPILED` (the API server's Go-code checks, pod
  fields and volumes, secret literals, list-map keys, pod-template discovery, name syntax, finding
  positions) are compiled to C extensions from their unchanged, type-checked Python source. The same
  code, without the interpreter's dispatch: on the benchmark's core kinds and custom resources about
  28 % fewer instructions in validating a document, 18 % in a whole run per document (callgrind). Python loads an extension module before
  the ``.py`` beside it, so after editing one of these files rebuild (``make`` does, from the file
  dates); a test fails when a compiled module is older than its source.

They compile with the C compiler and Python headers that ``pip`` uses for any package with C code.
Where there is none (or mypyc cannot build), ``pip`` installs trainops without them: the modules then
run as Python, giving the same results more slowly (the test suite checks that they are compiled, so
CI always runs them).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: Modules compiled by mypyc (``lib/``-relative paths). Only modules whose objects never cross a
#: process boundary and that tests do not monkeypatch: a compiled module calls its own functions
#: directly.
COMPILED = (
    "trainops/kinds.py",
    "trainops/naming.py",
    "trainops/yaml/locate.py",
    "trainops/validate/checks/api_server.py",
    "trainops/validate/checks/autoscaling_policy.py",
    "trainops/validate/checks/go_helpers.py",
    "trainops/validate/checks/list_map.py",
    "trainops/validate/checks/networking_rbac.py",
    "trainops/validate/checks/pod_fields.py",
    "trainops/validate/checks/pod_volumes.py",
    "trainops/validate/checks/secret_literal.py",
    "trainops/validate/checks/services_storage.py",
    "trainops/validate/checks/workloads.py",
)


_COMPILED_MODULES = frozenset(path.removesuffix(".py").replace("/", ".") for path in COMPILED)


def _mypyc_extensions() -> list[Extension]:
    """The mypyc extensions of :data:`COMPILED`, or none when mypyc is unavailable or fails (then the
    modules stay Python; ``TRAINOPS_NO_MYPYC=1`` asks for that)."""
    if os.environ.get("TRAINOPS_NO_MYPYC") == "1":
        return []
    here = os.path.dirname(os.path.abspath(__file__))
    cwd = os.getcwd()
    try:
        from mypyc.build import mypycify

        # mypy resolves ``trainops.*`` from lib/; third-party types it may not see in pip's isolated
        # build environment are Any (the same code, checked by `make lint` with every stub)
        os.chdir(os.path.join(here, "lib"))
        try:
            extensions: list[Extension] = mypycify(
                ["--ignore-missing-imports", "--follow-imports=silent", *COMPILED],
                opt_level="1",  # as fast as -O3 here (callgrind: the same instructions), built in half the time
                group_name="trainops_native",
                multi_file=True,
                target_dir=os.path.join("..", "build", "mypyc"),  # the generated C, beside lib/
            )
        finally:
            os.chdir(cwd)
    except Exception as exc:  # any failure leaves the pure-Python modules
        print(f"trainops: mypyc extensions not built ({type(exc).__name__}: {exc})", file=sys.stderr)
        return []
    for extension in extensions:  # paths relative to lib/ become relative to setup.py's directory
        extension.sources = [_from_lib(s) for s in extension.sources]
        extension.include_dirs = [_from_lib(d) for d in extension.include_dirs]
        extension.optional = True
    return extensions


def _from_lib(path: str) -> str:
    return path if os.path.isabs(path) else os.path.normpath(os.path.join("lib", path))


class ParallelBuildExt(build_ext):
    """``build_ext`` running the C compiler on all of an extension's files at once, one process per CPU
    (mypyc writes one C file per module: compiled one after the other they took two minutes)."""

    def build_extension(self, ext: Extension) -> None:
        compiler = self.compiler
        serial = compiler.compile

        def compile_parallel(
            sources: list[str],
            output_dir: str | None = None,
            macros=None,  # type: ignore[no-untyped-def]
            include_dirs=None,
            debug=0,
            extra_preargs=None,
            extra_postargs=None,
            depends=None,
        ):
            macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
                output_dir, macros, include_dirs, sources, depends, extra_postargs
            )
            cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

            def one(obj: str) -> None:
                src, src_ext = build[obj]
                compiler._compile(obj, src, src_ext, cc_args, extra_postargs, pp_opts)

            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
                list(pool.map(one, objects))
            return objects

        compiler.compile = compile_parallel
        try:
            super().build_extension(ext)
        finally:
            compiler.compile = serial

    def run(self) -> None:
        super().run()
        # The modules' thin extensions load the shared one: without it, they must not stay behind
        # (Python would import them before the sources and fail), so the modules stay Python.
        group = next((e for e in self.extensions if e.name.endswith("__mypyc")), None)
        if group is not None and not os.path.exists(self.get_ext_fullpath(group.name)):
            for ext in self.extensions:
                if ext.name in _COMPILED_MODULES:
                    path = self.get_ext_fullpath(ext.name)
                    if os.path.exists(path):
                        os.remove(path)


setup(
    cmdclass={"build_ext": ParallelBuildExt},
    ext_modules=[
        Extension(
            "trainops.yaml._blockyaml",
            ["lib/trainops/yaml/_blockyaml.c"],
            extra_compile_args=["-Wall", "-Wextra"],
            optional=True,
        ),
        Extension(
            "trainops.validate.checks._listmap",
            ["lib/trainops/validate/checks/_listmap.c"],
            extra_compile_args=["-Wall", "-Wextra"],
            optional=True,
        ),
        *_mypyc_extensions(),
    ],
)
