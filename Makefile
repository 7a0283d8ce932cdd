# trainops: set-up, run and test. Everything installs into .venv from pyproject.toml,
# with transitive versions pinned by constraints.txt.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Offline CRD mirror: ../shared/crds when it is there (tests and `make run`), else the catalog URLs.
CRD_MIRROR ?= $(firstword $(wildcard ../shared/crds))
export TRAINOPS_CRD_MIRROR ?= $(CRD_MIRROR)
export PIP_DISABLE_PIP_VERSION_CHECK := 1
LINT_DIRS := $(wildcard lib apps tests bench policies)

.PHONY: install run test lint pytest bench bench-baseline synth schemas clean conformance fuzz

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

schemas: $(STAMP)
	$(BIN)/trainops schemas sync $(if $(CRD_MIRROR),--from $(CRD_MIRROR))

run: schemas
	$(BIN)/trainops ci

synth: $(STAMP)
	$(BIN)/trainops synth

test: lint pytest

lint: $(STAMP)
	$(BIN)/ruff check $(LINT_DIRS)
	$(BIN)/ruff format --check $(LINT_DIRS)
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

pytest: schemas
	$(BIN)/pytest

bench: schemas
	$(BIN)/python -m bench

# Speed of this checkout against another revision, same corpus, interleaved (e.g. REV=origin/main).
bench-baseline: schemas
	$(BIN)/python -m bench.baseline --rev $(REV)

# Differential tests against a real kube-apiserver (../shared/oracle); not part of `make test`.
# Installs etcd (Debian etcd-server) when it is missing and apt-get can; otherwise the suite skips.
conformance: schemas
	@command -v etcd >/dev/null || ! command -v apt-get >/dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server; } >/dev/null 2>&1 || \
	  echo "conformance: could not install etcd-server with apt-get; the suite will skip"
	$(BIN)/pytest -m conformance tests/conformance

# Coverage-guided fuzzing of the loader and validator (atheris); README "Limits and exit codes".
FUZZ_SECONDS ?= 90
fuzz: schemas
	mkdir -p fuzz-out
	start=$$(date +%s); $(BIN)/python tests/fuzz/fuzz_validate.py $(FUZZ_SECONDS) > fuzz-out/last.log 2>&1; \
	  $(BIN)/python tests/fuzz/fuzz_validate.py --summary fuzz-out/last.log $$(( $$(date +%s) - start ))

clean:
	rm -rf $(VENV) .trainops-cache dist .pytest_cache .mypy_cache .ruff_cache
