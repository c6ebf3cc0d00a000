# Hardening checks. Included by the main Makefile.
#
#   make checkov   checkov on template.yaml (own venv); fails on a finding not justified
#                  in samdocs/security.md
#   make faults    the fault-injection suite against the local stack; prints expected vs
#                  measured and writes bench/results/faults.md (+ .json)

.PHONY: checkov faults

checkov:
	bash scripts/checkov.sh

faults: setup
	bash scripts/with-services.sh $(BIN)/python -m bench.faults.run $(FAULTS_ARGS)

# The faults of the local 3-node cluster (bench/faults/cluster.py): kill -9, restarts,
# a paused node under the revision protocol; bench/results/faults-cluster.md (+ .json).
.PHONY: faults-cluster
faults-cluster: setup
	OPENSEARCH_NODES=3 bash scripts/with-services.sh $(BIN)/python -m bench.faults.run --nodes 3

# Capacity on one node, then on the local 3-node cluster (bench/cluster_capacity.py):
# bulk indexing (serving and backfill settings) and the revision protocol;
# bench/results/cluster_capacity.md (+ cluster_capacity/<nodes>-node.json).
.PHONY: capacity-cluster
capacity-cluster: setup
	bash scripts/with-services.sh $(BIN)/python -m bench.cluster_capacity record $(CAPACITY_ARGS)
	OPENSEARCH_NODES=3 bash scripts/with-services.sh $(BIN)/python -m bench.cluster_capacity record $(CAPACITY_ARGS)
	$(BIN)/python -m bench.cluster_capacity report
