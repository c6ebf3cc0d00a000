# The SAM stack deployed into LocalStack on this machine (scripts/deploy-local.sh,
# samdocs/local-stack.md "The SAM stack in LocalStack"). Included by the main Makefile.
#
#   make deploy-local        services, sam build, derived template, sam deploy to
#                            CREATE_COMPLETE, the custom resource's admin code, then the
#                            smoke test (an English and a German document through the
#                            deployed bucket, queue and index, found by the query code),
#                            then the wiring tests (tests/deploy, pytest -m deploy)
#   make deploy-local-down   deletes the stack, stops what deploy-local started
#   make test-deploy         both, the stack deleted and the services stopped whatever
#                            the outcome
#   make deploy-local-upgrade  the upgrade rehearsal (scripts/deploy-local-upgrade.py):
#                            deploy, ingest, a reader searching throughout, the changed
#                            release (new layer version, MappingRevision, batch size),
#                            re-chunk + swap, delete; bench/results/deploy_upgrade.md
#                            (UPGRADE_ARGS=--reuse: the stack already deployed; --keep:
#                            neither delete it nor stop the services, also on failure)
.PHONY: deploy-local deploy-local-up deploy-local-smoke deploy-local-wiring deploy-local-down \
        test-deploy deploy-local-upgrade

deploy-local: setup
	@start=$$(date +%s); \
	bash scripts/deploy-local.sh up && bash scripts/deploy-local.sh smoke \
	  && bash scripts/deploy-local.sh wiring; rc=$$?; \
	echo "make deploy-local: $$(( $$(date +%s) - start )) s wall time (exit $$rc)" >&2; exit $$rc

deploy-local-up: setup
	bash scripts/deploy-local.sh up

deploy-local-smoke: setup
	bash scripts/deploy-local.sh smoke

deploy-local-wiring: setup
	bash scripts/deploy-local.sh wiring

deploy-local-down:
	bash scripts/deploy-local.sh down

test-deploy: setup
	@$(MAKE) --no-print-directory deploy-local; rc=$$?; \
	bash scripts/deploy-local.sh down; exit $$rc

deploy-local-upgrade: setup
	@start=$$(date +%s); \
	$(BIN)/python scripts/deploy-local-upgrade.py $(UPGRADE_ARGS); rc=$$?; \
	echo "make deploy-local-upgrade: $$(( $$(date +%s) - start )) s wall time (exit $$rc)" >&2; \
	case " $(UPGRADE_ARGS) " in *" --keep "*) ;; *) [ $$rc = 0 ] || bash scripts/deploy-local.sh down;; esac; \
	exit $$rc
