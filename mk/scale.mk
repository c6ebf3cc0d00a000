# The scale benchmark (bench/scale): 10,000 generated documents through the queue,
# bulk, query latency and the re-chunk swap; writes bench/results/scale.md/.json.
# About 25 minutes on 2 cores. DOCS=600 for a quick run (results under .local/).
# The node runs with the C2 JIT (OPENSEARCH_FAST_START=0) and a 2 GB heap; a node
# already running is used as it is (the results record its JIT mode and heap).
.PHONY: bench-scale

bench-scale: setup
	OPENSEARCH_FAST_START=0 OPENSEARCH_HEAP=$${OPENSEARCH_HEAP:-2g} \
	  bash scripts/with-services.sh $(BIN)/python -m bench.scale.run \
	  $(if $(DOCS),--docs $(DOCS) --out .local/scale-$(DOCS))
