# SAM: validate/build the serverless stack (template.yaml). Included by the main Makefile.
#
#   make sam-validate            sam validate --lint
#   make sam-build               sam build (arm64, the default) into .aws-sam/build
#   make sam-build SAM_ARCH=x86_64   an x86_64 build into .aws-sam/build-x86_64
#   make sam-check               both, plus the sizes of every built function and layer
#
# The build-<LogicalId> targets below are what `sam build` runs for the functions
# (template.yaml: CodeUri "." + BuildMethod makefile + BuildInSource): each function
# package is its thin handler (functions/<name>/*.py) plus the pure-Python domain
# package shared/chunkwise without cli/ and evaluation/, with .pyc compiled for the
# runtime. Dependencies come from the layers (layers/Makefile).
SAM_VENV ?= .local/sam-venv
SAM ?= $(SAM_VENV)/bin/sam
SAM_ARCH ?= arm64
SAM_PY_VERSION ?= 3.12

.PHONY: sam-validate sam-build sam-check \
        build-IngestFunction build-QueryFunction build-ReconcileFunction build-AdminFunction

sam-validate:
	SAM_CHECK_STEPS=validate bash scripts/sam-check.sh

sam-build:
	SAM_CHECK_STEPS=build SAM_ARCH=$(SAM_ARCH) bash scripts/sam-check.sh

sam-check:
	SAM_ARCH=$(SAM_ARCH) bash scripts/sam-check.sh

# Parts of the package no function imports: the command line, the local stack (its library)
# and the evaluation. scripts/sam-check.sh fails if a built function carries them,
# and tests/unit/test_architecture.py if a shipped module imports them.
SAM_NOT_SHIPPED := chunkwise/cli chunkwise/evaluation chunkwise/localstack

# $(1): folder under functions/
define sam_function_build
	@test -n "$(ARTIFACTS_DIR)" || { echo "ARTIFACTS_DIR is not set (run through sam build)" >&2; exit 1; }
	@test -f "$(SAM_FUNCTIONS_DIR)/$(1)/app.py" || { echo "$(SAM_FUNCTIONS_DIR)/$(1)/app.py is missing" >&2; exit 1; }
	mkdir -p "$(ARTIFACTS_DIR)"
	find "$(ARTIFACTS_DIR)" -mindepth 1 -delete
	cp "$(SAM_FUNCTIONS_DIR)/$(1)"/*.py "$(ARTIFACTS_DIR)/"
	tar -C shared --exclude=__pycache__ --exclude='*.pyc' $(SAM_NOT_SHIPPED:%=--exclude=%) -cf - chunkwise \
	    | tar -C "$(ARTIFACTS_DIR)" -xf -
	@py="$$(bash layers/find-python.sh $(SAM_PY_VERSION))"; \
	if [ -n "$$py" ]; then \
	    "$$py" -m compileall -q -j 0 --invalidation-mode unchecked-hash "$(ARTIFACTS_DIR)" >/dev/null; \
	else \
	    echo "note: no local python$(SAM_PY_VERSION); function ships without .pyc" >&2; \
	fi
endef

# Where the handlers live; tests may point this at stubs.
SAM_FUNCTIONS_DIR ?= functions

build-IngestFunction:
	$(call sam_function_build,ingest)

build-QueryFunction:
	$(call sam_function_build,query)

build-ReconcileFunction:
	$(call sam_function_build,reconcile)

build-AdminFunction:
	$(call sam_function_build,admin)
