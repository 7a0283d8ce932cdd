"""Build of trainops's C accelerator (everything else is in pyproject.toml).

``trainops.yaml._blockyaml`` reads block YAML documents in one pass (``lib/trainops/yaml/_blockyaml.c``).
It compiles with the C compiler and Python headers that ``pip`` uses for any package with C code.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "trainops.yaml._blockyaml",
            ["lib/trainops/yaml/_blockyaml.c"],
            extra_compile_args=["-Wall", "-Wextra"],
        )
    ]
)
