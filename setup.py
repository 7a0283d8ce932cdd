"""Build of trainops's C accelerators (everything else is in pyproject.toml).

``trainops.yaml._blockyaml`` reads block YAML documents in one pass (``lib/trainops/yaml/_blockyaml.c``);
``trainops.validate.checks._listmap`` is the list-map check's pre-test (``.../checks/_listmap.c``).
They compile with the C compiler and Python headers that ``pip`` uses for any package with C code. Where
there is none, ``pip`` warns and installs trainops without them: the loader and the list-map check then
take their pure-Python paths, which give the same results more slowly (the test suite imports the
accelerators and fails, so CI always checks them).
"""

from setuptools import Extension, setup

setup(
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
    ]
)
