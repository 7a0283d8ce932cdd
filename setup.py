"""Build of trainops's C accelerators (everything else is in pyproject.toml).

``trainops.yaml._blockyaml`` reads block YAML documents in one pass (``lib/trainops/yaml/_blockyaml.c``);
``trainops.validate.checks._listmap`` is the list-map check's pre-test (``.../checks/_listmap.c``).
They compile with the C compiler and Python headers that ``pip`` uses for any package with C code.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "trainops.yaml._blockyaml",
            ["lib/trainops/yaml/_blockyaml.c"],
            extra_compile_args=["-Wall", "-Wextra"],
        ),
        Extension(
            "trainops.validate.checks._listmap",
            ["lib/trainops/validate/checks/_listmap.c"],
            extra_compile_args=["-Wall", "-Wextra"],
        ),
    ]
)
