#!/usr/bin/env bash
# Measures the local OpenSearch node (tools/opensearch/opensearch.sh); run by hand:
#
#   bash bench/opensearch_node.sh [--cold-resolve] [--runs N]
#
#   --cold-resolve  also measure the first resolution from Maven Central into an EMPTY,
#                   temporary Maven repository (downloads ~40 MB incl. Maven's own plugins)
#   --runs N        cold starts and warm restarts to time (default 3)
#
# Uses its own port (OPENSEARCH_BENCH_PORT, default 9250) and its own state directory, so a
# node already running on 9200 is left alone. Prints a Markdown report on stdout; progress
# goes to stderr. Numbers depend on the machine's load: the load average is printed too.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OS="$REPO/tools/opensearch/opensearch.sh"
PORT="${OPENSEARCH_BENCH_PORT:-9250}"
URL="http://127.0.0.1:$PORT"
RUNS=3
COLD_RESOLVE=0
while (($#)); do
    case "$1" in
        --cold-resolve) COLD_RESOLVE=1; shift ;;
        --runs) RUNS="$2"; shift 2 ;;
        *) echo "usage: $0 [--cold-resolve] [--runs N]" >&2; exit 2 ;;
    esac
done

WORK="$(mktemp -d /tmp/chunkwise-os-bench.XXXXXX)"
export OPENSEARCH_STATE_DIR="$WORK/state"
unset OPENSEARCH_URL
cleanup() { "$OS" down >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT

now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.1f}')"; }
log() { printf 'bench: %s\n' "$*" >&2; }
rss_mb() { python3 -c "print(round($(ps -o rss= -p "$1") / 1024))"; }

echo "# Local OpenSearch node: measurements"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(nproc) cores, $(free -g | awk '/^Mem/{print $2}') GiB"
echo "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

if ((COLD_RESOLVE)); then
    log "cold resolution into an empty Maven repository (in a copy of tools/opensearch)..."
    # A copy, so that the shared tools/opensearch/target (maybe serving a running node) is untouched.
    mkdir -p "$WORK/build"
    cp -r "$REPO/tools/opensearch/pom.xml" "$REPO/tools/opensearch/src" "$WORK/build/"
    t0=$(now)
    mvn -q -B -Dstyle.color=never "-Dmaven.repo.local=$WORK/m2" -f "$WORK/build/pom.xml" package >&2
    t1=$(now)
    repo_all=$(du -sm "$WORK/m2" | cut -f1)
    repo_os=$(du -sm "$WORK/m2/org/opensearch" | cut -f1)
    echo "- first resolution (empty Maven repo, incl. Maven's own plugins): $(elapsed "$t0" "$t1") s,"
    echo "  download: ${repo_all} MB in the Maven repo (of which org/opensearch: ${repo_os} MB)"
    rm -rf "$WORK/build"
    rm -rf "$WORK/m2"
fi
"$OS" build >&2
echo "- assembled node (tools/opensearch/target/home): $(du -sm "$REPO/tools/opensearch/target/home" | cut -f1) MB"

measure_starts() { # label; leaves the node running after the last warm restart
    local label="$1" cold=() warm=() i t0 t1
    for ((i = 1; i <= RUNS; i++)); do
        log "$label: cold start $i/$RUNS (empty data directory)..."
        t0=$(now)
        "$OS" up --port "$PORT" --fresh >&2
        t1=$(now)
        cold+=("$(elapsed "$t0" "$t1")")
        "$OS" down >&2
        log "$label: warm restart $i/$RUNS (same data directory)..."
        t0=$(now)
        "$OS" up --port "$PORT" >&2
        t1=$(now)
        warm+=("$(elapsed "$t0" "$t1")")
        if ((i < RUNS)); then "$OS" down >&2; fi
    done
    echo "- $label: cold start to yellow (empty data dir) ${cold[*]} s; warm restart ${warm[*]} s;" \
        "RSS after start $(rss_mb "$(cat "$OPENSEARCH_STATE_DIR/pid")") MB"
}

# Bench's own class-data archive, so the developer's one (if any) is neither used nor replaced.
export OPENSEARCH_CDS_ARCHIVE="$WORK/classes.jsa"
echo
echo "Start times (command to yellow health, wall clock, $RUNS runs each):"
echo
OPENSEARCH_FAST_START=0 measure_starts "full JIT (OPENSEARCH_FAST_START=0)"
"$OS" down >&2
measure_starts "default: C1 JIT only, no class-data archive"
"$OS" down >&2
log "writing a class-data archive (opensearch.sh cds)..."
t0=$(now)
"$OS" cds --port "$PORT" >&2
t1=$(now)
echo "- one-off \`opensearch.sh cds\` (start, stop, write $(du -m "$OPENSEARCH_CDS_ARCHIVE" | cut -f1) MB archive): $(elapsed "$t0" "$t1") s"
measure_starts "C1 JIT + class-data archive"
echo
pid="$(cat "$OPENSEARCH_STATE_DIR/pid")"
versions="$(
    curl -fsS "$URL/" | python3 -c 'import json,sys; d=json.load(sys.stdin)["version"]; print("- OpenSearch", d["number"], "(Lucene " + d["lucene_version"] + ")")'
    curl -fsS "$URL/_cat/plugins?h=component,version" | awk '{print "- plugin " $1 " " $2}'
    echo "- Java: $(java -version 2>&1 | head -1)"
)"
echo "Memory (C1 JIT + archive; heap -Xms512m -Xmx${OPENSEARCH_HEAP:-1g}):"
echo
echo "- RSS after start: $(rss_mb "$pid") MB"
if [[ -x "$REPO/.venv/bin/pytest" ]]; then
    log "running the integration tests against the bench node..."
    OPENSEARCH_URL="$URL" "$REPO/.venv/bin/pytest" -q -p no:cacheprovider \
        "$REPO/tests/integration/test_opensearch_node.py" >&2
    echo "- RSS after tests/integration/test_opensearch_node.py: $(rss_mb "$pid") MB"
fi
t0=$(now)
"$OS" down >&2
t1=$(now)
echo "- stop (SIGTERM to exit): $(elapsed "$t0" "$t1") s"
echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "Versions:"
echo
echo "$versions"
