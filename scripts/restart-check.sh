#!/usr/bin/env bash
# `make restart-check`: the local stack is repeatable (samdocs/local-stack.md, "One
# lifetime for the local state"). In this clone, each step must end ready:
#
#  1. `make demo` twice (its answers are checked by the demo itself);
#  2. `chunkwise local up`, `down`, `up` (the emulator comes back empty: the index
#     holding its documents is dropped);
#  3. `up` after `up`, with a document deleted behind the runner's back (retired by `up`);
#  4. `kill -9` of the OpenSearch node with an upload not yet ingested, then `up`
#     (the document the index lacks is enqueued; `local run` ingests it);
#  5. `up` killed (SIGKILL) right after its index step, then `up` again;
#  6. a generation left without aliases (an `up` killed inside the index step), then `up`;
#  7. `chunkwise local reset`, then `down`.
#
# After every `up`, `verify` lists the bucket and what the index serves (the distinct
# source_key of the live chunks behind the read alias, and the hits of a BM25 query
# and of a neural query the cluster embeds itself) and fails if the index serves a
# document the bucket does not hold, or (once the runner ran) lacks one it holds.
# It also reports each `up`'s wall time and the ML Commons refusals it rode out.
#
# Uses its own names (bucket, queues and index prefix chunkwise-restart*), never the
# stack of a plain `chunkwise local up`. Services on OPENSEARCH_PORT / LOCALSTACK_PORT /
# CHUNKWISE_EMBED_PORT; stops what it started. About 10 minutes on a busy 2-core machine
# (load 5-9), most of it the four node starts and the two demos.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
export POWERTOOLS_LOG_LEVEL=WARNING POWERTOOLS_METRICS_DISABLED=true POWERTOOLS_TRACE_DISABLED=true
NAME=chunkwise-restart
STACK=(--bucket "$NAME" --queue "$NAME-ingest" --dlq "$NAME-dlq" --index-prefix "$NAME"
  --visibility-timeout 30)
LOGS=.local/restart-check
mkdir -p "$LOGS"
: >"$LOGS/times.tsv"
NODE_LOG=.local/opensearch/node.log

say() { printf '\n== restart-check: %s\n' "$*"; }
fail() { echo "restart-check: FAILED: $*" >&2; exit 1; }
trap '$BIN/chunkwise local down >/dev/null 2>&1 || true' EXIT

# up LABEL: `chunkwise local up`, timed; its output in $LOGS/LABEL.log
up() {
  local label=$1 t0 t1
  t0=$(date +%s.%N)
  $BIN/chunkwise local up "${STACK[@]}" >"$LOGS/$label.log" 2>&1 || {
    tail -n 20 "$LOGS/$label.log" >&2
    fail "$label: chunkwise local up exited non-zero"
  }
  t1=$(date +%s.%N)
  # label, wall seconds, the node's own start (if this up started it), ML Commons
  # refusals this up retried, master-key timeouts in the node log since the node started
  printf '%-22s %6.1f s  %-14s retried %s  master-key timeouts %s\n' "$label" \
    "$(echo "$t1 - $t0" | bc)" "$(grep -o '[0-9]* s to [a-z]*' "$LOGS/$label.log" | head -1)" \
    "$(grep -c 'ML Commons not ready' "$LOGS/$label.log" || true)" \
    "$(grep -c 'Fetching master key timed out' "$NODE_LOG" || true)" >>"$LOGS/times.tsv"
  grep -E 'chunkwise local: (the emulator|generation|retired|enqueued|index and bucket|query model)|not ready' \
    "$LOGS/$label.log" | sed 's/^/   /' | cut -c1-200 || true
  grep -q "chunkwise local: ready" "$LOGS/$label.log" || fail "$label: not ready"
}

put() { # put NAME FILE: upload under the input prefix, without running the ingest
  $BIN/python - "$1" "$2" <<'PY'
import sys
from pathlib import Path
from chunkwise.localstack.config import apply_env, require_state
from chunkwise.localstack.resources import boto
cfg = require_state()
apply_env(cfg.env())
key = cfg.input_prefix + sys.argv[1]
boto("s3", cfg).put_object(Bucket=cfg.bucket, Key=key, Body=Path(sys.argv[2]).read_bytes())
print(f"   put s3://{cfg.bucket}/{key}")
PY
}

delete() { # delete NAME: a delete marker, its event removed from the queue (a lost event)
  $BIN/python - "$1" <<'PY'
import sys
from chunkwise.localstack.config import apply_env, require_state
from chunkwise.localstack.resources import boto
cfg = require_state()
apply_env(cfg.env())
boto("s3", cfg).delete_object(Bucket=cfg.bucket, Key=cfg.input_prefix + sys.argv[1])
boto("sqs", cfg).purge_queue(QueueUrl=cfg.queue_url)
print(f"   deleted s3://{cfg.bucket}/{cfg.input_prefix}{sys.argv[1]} (event purged)")
PY
}

run() { $BIN/chunkwise local run --until-idle 4 --max-seconds 240 2>&1 | tail -n 1 | sed 's/^/   /'; }

# verify LABEL [complete]: the index serves no document the bucket lacks ("complete":
# and every document the bucket holds)
verify() {
  $BIN/python - "$1" "${2:-}" <<'PY'
import sys
from chunkwise.localstack.config import apply_env, require_state
from chunkwise.localstack.index_setup import stack_client
from chunkwise.localstack.resources import bucket_keys

label, complete = sys.argv[1], sys.argv[2] == "complete"
cfg = require_state()
apply_env(cfg.env())
settings, client = stack_client(cfg)
alias = settings.names.read_alias
bucket = set(bucket_keys(cfg))
agg = client.search(index=alias, body={
    "size": 0, "aggs": {"keys": {"terms": {"field": "source_key", "size": 10000}}}})
served = {b["key"] for b in agg["aggregations"]["keys"]["buckets"]}
hits = set()
for query in ({"multi_match": {"query": "filter pump Preis price", "fields": ["text_en", "text_de", "text"]}},
              {"neural": {"embedding": {"query_text": "How often must the filter be checked?", "k": 20}}}):
    if "neural" in query and not cfg.query_model_id:
        sys.exit(f"restart-check: {label}: no query model")
    resp = client.search(index=alias, body={"size": 50, "_source": ["source_key"], "query": query})
    hits |= {h["_source"]["source_key"] for h in resp["hits"]["hits"]}
extra = (served | hits) - bucket
print(f"   verify {label}: bucket {len(bucket)} keys, index serves {len(served)}, "
      f"search hits from {len(hits)}; not in the bucket: {sorted(extra) or 'none'}")
if extra:
    sys.exit(f"restart-check: {label}: the index serves documents the bucket does not hold")
if complete and bucket - served:
    sys.exit(f"restart-check: {label}: the index lacks {sorted(bucket - served)}")
PY
}

t_start=$SECONDS

say "1/7 make demo, twice"
for i in 1 2; do
  make --no-print-directory demo >"$LOGS/demo-$i.log" 2>&1 || {
    tail -n 30 "$LOGS/demo-$i.log" >&2
    fail "make demo run $i"
  }
  grep -E "^chunkwise local: the emulator|first hit holds|results from the deleted|not ready" \
    "$LOGS/demo-$i.log" | sed 's/^/   /' | cut -c1-200
done

say "2/7 up, down, up"
up up-fresh
put "en/manual.md" tests/data/manual_en.md
put "de/preise.html" tests/data/preise_de.html
put "en/pricing.docx" tests/data/pricing_en.docx
run
verify up-fresh complete
$BIN/chunkwise local down >/dev/null 2>&1
up up-after-down
verify up-after-down complete

say "3/7 up after up, a document deleted behind the runner's back"
put "en/manual.md" tests/data/manual_en.md
put "de/preise.html" tests/data/preise_de.html
run
verify before-delete complete
delete "de/preise.html"
up up-after-up
verify up-after-up complete

say "4/7 kill -9 of the OpenSearch node (an upload not yet ingested), up"
put "en/pricing.docx" tests/data/pricing_en.docx
kill -9 "$(cat .local/opensearch/pid)"
echo "   killed the node (pid file .local/opensearch/pid)"
up up-after-kill-node
verify up-after-kill-node
run
verify after-kill-node-run complete

say "5/7 up killed right after its index step, then up"
$BIN/chunkwise local down >/dev/null 2>&1
: >"$LOGS/up-killed.log"
$BIN/chunkwise local up "${STACK[@]}" >"$LOGS/up-killed.log" 2>&1 &
killed=$!
until grep -q "^chunkwise local: index " "$LOGS/up-killed.log"; do
  kill -0 "$killed" 2>/dev/null || fail "the up to interrupt ended before its index step"
  sleep 0.1
done
kill -9 "$killed"
wait "$killed" 2>/dev/null || true
echo "   killed \`chunkwise local up\` (pid $killed) after: $(grep '^chunkwise local: index ' "$LOGS/up-killed.log" | cut -c1-60)..."
up up-after-killed-up
verify up-after-killed-up complete

say "6/7 a generation without aliases (an up killed inside the index step), then up"
$BIN/chunkwise local reset >"$LOGS/reset-1.log" 2>&1 || fail "reset"
OPENSEARCH_URL="http://127.0.0.1:${OPENSEARCH_PORT:-9200}" CHUNKWISE_INDEX_PREFIX=$NAME \
  $BIN/chunkwise index create --generation g20000101t000000 >/dev/null
up up-after-half-index
grep -q "generation g20000101t000000 had no aliases" "$LOGS/up-after-half-index.log" \
  || fail "the alias-less generation was not reused"
verify up-after-half-index complete

say "7/7 reset, down"
$BIN/chunkwise local reset 2>&1 | sed 's/^/   /'
[[ ! -f .local/chunkwise-local.json ]] || grep -q '"bucket": "chunkwise-local"' .local/chunkwise-local.json \
  || fail "reset left this stack's state file"
$BIN/chunkwise local down 2>&1 | sed 's/^/   /'

say "all steps ready in $((SECONDS - t_start)) s; each up (wall time, node start, ML Commons):"
sed 's/^/   /' "$LOGS/times.tsv"
echo "   demo runs: $(cat "$LOGS"/demo-*.log | grep -c 'ML Commons not ready' || true) ML Commons refusals retried"
