"""The optional C extension of :mod:`trainops._accel` (everything else is in pyproject.toml).

``trainops._accel._blockyaml`` reads the block YAML most manifests are written in (see the C file).
It is optional: without a C compiler ``pip`` installs trainops without it, and ``TRAINOPS_ACCEL=0``
turns it off; either way the plain PyYAML reader gives the same reports.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "trainops._accel._blockyaml",
            ["lib/trainops/_accel/_blockyaml.c"],
            extra_compile_args=["-Wall", "-Wextra"],
            optional=True,
        )
    ]
)
