# Local OpenSearch node (tools/opensearch/opensearch.sh). Included by the main Makefile.
# OPENSEARCH_PORT=N picks the HTTP port; OPENSEARCH_URL=... uses an existing cluster instead.
OPENSEARCH_SH ?= tools/opensearch/opensearch.sh

.PHONY: opensearch-up opensearch-down opensearch-status opensearch-build opensearch-cds

opensearch-up:
	bash $(OPENSEARCH_SH) up

opensearch-down:
	bash $(OPENSEARCH_SH) down

opensearch-status:
	bash $(OPENSEARCH_SH) status

# Resolve and assemble only (downloads from Maven Central on the first run).
opensearch-build:
	bash $(OPENSEARCH_SH) build

# Optional, once per build: a class-data archive that makes later starts ~2-3x faster.
opensearch-cds:
	bash $(OPENSEARCH_SH) cds
