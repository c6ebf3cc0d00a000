#!/usr/bin/env bash
# Run a command with the local services its tests need, then stop what we started,
# whatever the outcome. OPENSEARCH_URL / AWS_ENDPOINT_URL set means "use that
# stack, start nothing".
#
# OPENSEARCH_NODES=3 starts (or uses) the local cluster of three nodes instead of one
# node (tools/opensearch/opensearch.sh): OPENSEARCH_URL then names all three nodes,
# comma-separated, and new generations get 3 shards and 1 replica
# (CHUNKWISE_INDEX_SHARDS / CHUNKWISE_INDEX_REPLICAS, unless set).
set -uo pipefail
cd "$(dirname "$0")/.."

nodes="${OPENSEARCH_NODES:-1}"
base="${OPENSEARCH_PORT:-9200}"
node_urls() {
  local i urls=""
  for ((i = 0; i < nodes; i++)); do urls+="${urls:+,}http://127.0.0.1:$((base + i))"; done
  echo "$urls"
}
if ((nodes > 1)); then
  export OPENSEARCH_NODES="$nodes"
  export CHUNKWISE_INDEX_SHARDS="${CHUNKWISE_INDEX_SHARDS:-$((nodes < 3 ? nodes : 3))}"
  export CHUNKWISE_INDEX_REPLICAS="${CHUNKWISE_INDEX_REPLICAS:-1}"
fi

started=()
stop_all() {
  for svc in "${started[@]}"; do
    echo "with-services: stopping $svc" >&2
    case "$svc" in
      opensearch) env -u OPENSEARCH_URL bash tools/opensearch/opensearch.sh down || true ;;
      localstack) env -u AWS_ENDPOINT_URL bash scripts/localstack.sh down || true ;;
      embed-endpoint) .venv/bin/python -m chunkwise.localstack.embed_endpoint down || true ;;
    esac
  done
}
trap stop_all EXIT

if [[ -z "${OPENSEARCH_URL:-}" ]] && bash tools/opensearch/opensearch.sh status >/dev/null 2>&1; then
  echo "with-services: OpenSearch already running; using it and leaving it running" >&2
  export OPENSEARCH_URL="$(node_urls)"
elif [[ -z "${OPENSEARCH_URL:-}" ]]; then
  echo "with-services: starting OpenSearch" >&2
  bash tools/opensearch/opensearch.sh up || { echo "with-services: OpenSearch failed to start" >&2; exit 1; }
  started+=(opensearch)
  # Tests and tools find the node(s) we started through OPENSEARCH_URL.
  export OPENSEARCH_URL="$(node_urls)"
fi
if [[ -z "${AWS_ENDPOINT_URL:-}" ]] && bash scripts/localstack.sh status >/dev/null 2>&1; then
  echo "with-services: S3/SQS emulator already running; using it and leaving it running" >&2
  export AWS_ENDPOINT_URL="http://127.0.0.1:${LOCALSTACK_PORT:-4566}"
elif [[ -z "${AWS_ENDPOINT_URL:-}" ]]; then
  echo "with-services: starting LocalStack" >&2
  bash scripts/localstack.sh up || { echo "with-services: LocalStack failed to start" >&2; exit 1; }
  started+=(localstack)
  # As for OpenSearch: tests find the emulator we started on LOCALSTACK_PORT.
  export AWS_ENDPOINT_URL="http://127.0.0.1:${LOCALSTACK_PORT:-4566}"
fi
# The loopback embedding endpoint the local node's ML Commons connector calls (the
# cluster embeds `neural` queries with chunkwise's local model).
if .venv/bin/python -m chunkwise.localstack.embed_endpoint status >/dev/null 2>&1; then
  echo "with-services: embedding endpoint already running; using it and leaving it running" >&2
else
  echo "with-services: starting the embedding endpoint" >&2
  .venv/bin/python -m chunkwise.localstack.embed_endpoint up >/dev/null || { echo "with-services: embedding endpoint failed to start" >&2; exit 1; }
  started+=(embed-endpoint)
fi

"$@"
