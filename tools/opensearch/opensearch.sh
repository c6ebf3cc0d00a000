#!/usr/bin/env bash
# A real OpenSearch for local runs and CI, assembled from Maven Central (no Docker): one node,
# or a cluster of OPENSEARCH_NODES nodes of the same build on loopback.
#
#   tools/opensearch/opensearch.sh up [--port N] [--fresh] [--nodes N]
#                                                            start (idempotent: starts the nodes
#                                                            not running), wait for yellow
#   tools/opensearch/opensearch.sh down                      SIGTERM, wait, then SIGKILL: the
#                                                            single node and every cluster node
#   tools/opensearch/opensearch.sh status                    exit 0 if the node (cluster) answers
#   tools/opensearch/opensearch.sh pids                      cluster only: "<node name> <pid>" lines
#   tools/opensearch/opensearch.sh build                     only resolve/assemble (pom.xml)
#   tools/opensearch/opensearch.sh cds                       optional: write a class-data archive
#                                                            (start once, stop) for faster starts
#
# Environment:
#   OPENSEARCH_URL            use that cluster instead (Docker, AWS...): start/stop nothing
#   OPENSEARCH_PORT           HTTP port, default 9200 (transport port: HTTP port + 100)
#   OPENSEARCH_STATE_DIR      default <repo>/.local/opensearch (pid, port, node.log, data/)
#   OPENSEARCH_HEAP           max heap, default 1g (min heap 512m)
#   OPENSEARCH_START_TIMEOUT  seconds to wait for yellow, default 120
#   OPENSEARCH_STOP_TIMEOUT   seconds to wait after SIGTERM before SIGKILL, default 30
#   OPENSEARCH_JAVA           java binary (11..21), default: $JAVA_HOME/bin/java, else java
#   OPENSEARCH_SETTINGS       extra node settings, e.g. "-Eknn.algo_param.index_thread_qty=1"
#   OPENSEARCH_JAVA_OPTS      extra JVM options
#   OPENSEARCH_FAST_START     1 (default): C1 JIT only (-XX:TieredStopAtLevel=1), about half the
#                             CPU to start on 2 cores, plus the class-data archive if `cds` made
#                             one; 0: full JIT (for query-throughput benchmarks), no archive
#   OPENSEARCH_CDS_ARCHIVE    where `cds` writes / `up` reads the archive
#                             (default tools/opensearch/target/opensearch-classes.jsa)
#   OPENSEARCH_MVN_ARGS       extra Maven arguments, e.g. "-Dmaven.repo.local=/some/cache"
#   OPENSEARCH_NODES          1 (default): one node, discovery.type=single-node, state in
#                             $OPENSEARCH_STATE_DIR. N > 1: a cluster of N nodes (cluster_manager,
#                             data, ingest each) named chunkwise-local-0..N-1 on HTTP ports
#                             OPENSEARCH_PORT+i (transport +100), discovering each other on
#                             loopback; node i keeps pid, port, node.log, data/ and logs/ in
#                             $OPENSEARCH_CLUSTER_DIR/node-i (default <repo>/.local/opensearch-cluster).
#                             The cluster's default heap is 768m per node (OPENSEARCH_HEAP) and it
#                             waits up to 300 s (OPENSEARCH_START_TIMEOUT) for all N nodes.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SINGLE_STATE="${OPENSEARCH_STATE_DIR:-$REPO/.local/opensearch}"
CLUSTER_STATE="${OPENSEARCH_CLUSTER_DIR:-$REPO/.local/opensearch-cluster}"
NODES="${OPENSEARCH_NODES:-1}"
[[ "$NODES" =~ ^[1-9]$ ]] || { echo "opensearch: ERROR: OPENSEARCH_NODES must be 1..9, not '$NODES'" >&2; exit 1; }
NODE_HOME="$HERE/target/home"
LAUNCHER="$HERE/target/opensearch-local-launcher.jar"
STAMP="$NODE_HOME/.assembled"
CDS_ARCHIVE="${OPENSEARCH_CDS_ARCHIVE:-$HERE/target/opensearch-classes.jsa}"
MAIN_CLASS="chunkwise.opensearch.LocalNode"

# The node the functions below act on: the single node, or node i of the cluster.
use_single() {
    STATE="$SINGLE_STATE"; PIDFILE="$STATE/pid"; PORTFILE="$STATE/port"; LOG="$STATE/node.log"
    NODE_NAME="chunkwise-local"
}
use_node() { # i
    STATE="$CLUSTER_STATE/node-$1"; PIDFILE="$STATE/pid"; PORTFILE="$STATE/port"; LOG="$STATE/node.log"
    NODE_NAME="chunkwise-local-$1"
}
use_single

# ML Commons on this local node only (never on a shared or AWS cluster): the query
# embedding connector points at chunkwise's loopback endpoint (plain HTTP on 127.0.0.1),
# which ML Commons refuses by default. So: trust only loopback URLs (this replaces the
# default list of public AI services, none of which a local node needs), allow private
# addresses for connectors, run remote models on this data node (there is no ML node),
# and switch off models run inside the JVM (their ONNX runtime is not assembled). The
# memory circuit breakers would refuse to deploy on a busy 1 GB heap; a remote model
# holds no weights in the heap, so they are off here too. The node does not redeploy
# models by itself after a restart: `chunkwise local up` deploys the query model,
# waiting for ML Commons' master key; the node's own redeploy raced it, failed on the
# master key ("Fetching master key timed out") and left the model half-held, so that
# every later deploy was refused ("Duplicate deploy model task").
ML_LOCAL_SETTINGS=(
    '-Eplugins.ml_commons.trusted_connector_endpoints_regex=^http://127\.0\.0\.1:[0-9]+/.*$'
    "-Eplugins.ml_commons.connector.private_ip_enabled=true"
    "-Eplugins.ml_commons.only_run_on_ml_node=false"
    "-Eplugins.ml_commons.local_model.enabled=false"
    "-Eplugins.ml_commons.native_memory_threshold=100"
    "-Eplugins.ml_commons.jvm_heap_memory_threshold=100"
    "-Eplugins.ml_commons.model_auto_redeploy.enable=false"
)

say() { printf 'opensearch: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# --- HTTP helpers (curl if present, else the Python standard library) ---------------------
http_get() { # url -> body on stdout; non-zero if unreachable or HTTP error
    if command -v curl >/dev/null 2>&1; then
        curl -fsS --max-time 5 "$1" 2>/dev/null
    else
        python3 - "$1" <<'PY' 2>/dev/null
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
    sys.stdout.write(r.read().decode())
PY
    fi
}
json_field() { # field -> value of a top-level/nested string field from JSON on stdin
    python3 -c 'import json,sys
d=json.load(sys.stdin)
for k in sys.argv[1].split("."): d=d[k]
print(d)' "$1" 2>/dev/null
}
health_status() { # base-url -> green|yellow|red, or nothing
    http_get "$1/_cluster/health" | json_field status || true
}
port_busy() { # port -> 0 if something listens on 127.0.0.1:port
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# --- the node process ----------------------------------------------------------------------
our_pid() { # prints the pid if the pid file names a live LocalNode JVM
    [[ -f "$PIDFILE" ]] || return 1
    local pid
    pid="$(cat "$PIDFILE" 2>/dev/null || true)"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$MAIN_CLASS" || return 1
    echo "$pid"
}

pick_java() {
    local java="${OPENSEARCH_JAVA:-}"
    if [[ -z "$java" ]]; then
        if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then java="$JAVA_HOME/bin/java"; else java=java; fi
    fi
    command -v "$java" >/dev/null 2>&1 || die "no java found (need Java 11..21; set OPENSEARCH_JAVA)"
    local major
    major="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')"
    major="${major#1.}"
    if ! [[ "$major" =~ ^[0-9]+$ ]] || ((major < 11 || major > 21)); then
        # OpenSearch 2.19 runs on 11..21; prefer a Java 17 JDK if one is installed.
        local alt
        for alt in /usr/lib/jvm/java-17-openjdk-*/bin/java /usr/lib/jvm/java-21-openjdk-*/bin/java; do
            [[ -x "$alt" ]] && { java="$alt"; major=ok; break; }
        done
        [[ "$major" == ok ]] || die "$java is Java $major; OpenSearch 2.19 needs Java 11..21 (set OPENSEARCH_JAVA)"
    fi
    echo "$java"
}

# --- assembling from Maven Central ----------------------------------------------------------
build() {
    if [[ -f "$STAMP" && -f "$LAUNCHER" ]] && [[ -z "$(find "$HERE/pom.xml" "$HERE/src" -newer "$STAMP" -print -quit)" ]]; then
        return 0
    fi
    command -v mvn >/dev/null 2>&1 || die "mvn (Maven 3) is needed to assemble the node from Maven Central"
    say "assembling OpenSearch from Maven Central (first run downloads ~400 MB into ~/.m2, 363 MB of it ML Commons)..."
    rm -rf "$NODE_HOME" "$CDS_ARCHIVE"
    local t0=$SECONDS
    # shellcheck disable=SC2086  # word splitting of OPENSEARCH_MVN_ARGS is intended
    if ! mvn -q -B -Dstyle.color=never ${OPENSEARCH_MVN_ARGS:-} -f "$HERE/pom.xml" package; then
        die "maven build of $HERE/pom.xml failed (see the output above)"
    fi
    touch "$STAMP"
    say "assembled in $((SECONDS - t0)) s: $NODE_HOME"
}

# --- commands ---------------------------------------------------------------------------------
external_check() {
    local url="${OPENSEARCH_URL%/}" status
    status="$(health_status "$url")"
    if [[ "$status" == green || "$status" == yellow ]]; then
        say "using OPENSEARCH_URL=$url (cluster health: $status); nothing started"
        return 0
    fi
    die "OPENSEARCH_URL=$url does not answer with a yellow/green cluster health (got: '${status:-no answer}')"
}

cmd_up() {
    local port="${OPENSEARCH_PORT:-9200}" fresh=0
    while (($#)); do
        case "$1" in
            --port) [[ $# -ge 2 ]] || die "--port needs a value"; port="$2"; shift 2 ;;
            --port=*) port="${1#--port=}"; shift ;;
            --fresh) fresh=1; shift ;;
            --nodes) [[ $# -ge 2 ]] || die "--nodes needs a value"; NODES="$2"; shift 2 ;;
            --nodes=*) NODES="${1#--nodes=}"; shift ;;
            *) die "unknown option for up: $1" ;;
        esac
    done
    [[ "$port" =~ ^[0-9]+$ ]] || die "bad port: $port"
    [[ "$NODES" =~ ^[1-9]$ ]] || die "--nodes must be 1..9, not '$NODES'"
    if [[ -n "${OPENSEARCH_URL:-}" ]]; then external_check; return; fi
    if ((NODES > 1)); then cluster_up "$port" "$fresh"; return; fi

    local url="http://127.0.0.1:$port" pid
    if pid="$(our_pid)"; then
        local running_port
        running_port="$(cat "$PORTFILE" 2>/dev/null || echo '?')"
        if [[ "$running_port" == "$port" ]]; then
            if [[ "$(health_status "$url")" =~ ^(green|yellow)$ ]]; then
                say "already running: $url (pid $pid, log $LOG)"
                return 0
            fi
            say "a node started from here (pid $pid) is still starting; waiting for it"
            wait_ready "$pid" "$url" "$SECONDS" other
            return 0
        fi
        die "a node started from here is already running (pid $pid, port $running_port); run '$0 down' first. Log: $LOG"
    fi
    local tport=$((port + 100))
    port_busy "$port" && die "port $port on 127.0.0.1 is already in use by another process (not our node); stop it or use --port N / OPENSEARCH_PORT, or point OPENSEARCH_URL at it"
    port_busy "$tport" && die "transport port $tport (HTTP port + 100) on 127.0.0.1 is already in use; pick another --port"

    build
    ((fresh)) && rm -rf "$STATE/data"
    local t0=$SECONDS
    launch_node "$port" "-Ediscovery.type=single-node" "-Ecluster.name=chunkwise-local"
    say "starting pid $LAUNCHED on $url (heap ${OPENSEARCH_HEAP:-1g}, log $LOG)"
    wait_ready "$LAUNCHED" "$url" "$t0" child
}

# Starts the current node's JVM (use_single / use_node) on HTTP port $1 with the node
# settings that follow; its pid in $LAUNCHED and in the pid file.
launch_node() { # port setting...
    local port="$1"; shift
    local tport=$((port + 100)) java
    java="$(pick_java)"
    mkdir -p "$STATE/data" "$STATE/logs" "$STATE/tmp"
    : >"$LOG"
    local heap="${OPENSEARCH_HEAP:-1g}"
    # shellcheck disable=SC2206  # OPENSEARCH_SETTINGS is a list of -Ekey=value words on purpose
    local extra=(${OPENSEARCH_SETTINGS:-})
    local jvm_fast=()
    if [[ "${OPENSEARCH_FAST_START:-1}" == 1 ]]; then
        jvm_fast+=(-XX:TieredStopAtLevel=1)
        if [[ -n "${CDS_DUMP:-}" ]]; then
            jvm_fast+=("-XX:ArchiveClassesAtExit=$CDS_ARCHIVE" -Xlog:cds=off -Xlog:cds+dynamic=info)
        elif [[ -f "$CDS_ARCHIVE" ]]; then
            # A stale or foreign archive is ignored by the JVM (-Xshare:auto), never fatal.
            jvm_fast+=("-XX:SharedArchiveFile=$CDS_ARCHIVE" -Xlog:cds=off)
        fi
    fi
    # shellcheck disable=SC2206
    local jvm_extra=(${OPENSEARCH_JAVA_OPTS:-})
    nohup "$java" \
        -Xms512m "-Xmx$heap" -Xss1m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError \
        -Dfile.encoding=UTF-8 -Djava.awt.headless=true -Djna.nosys=true \
        "-Djava.io.tmpdir=$STATE/tmp" \
        -Dlog4j.shutdownHookEnabled=false -Dlog4j2.disable.jmx=true -Dlog4j2.formatMsgNoLookups=true \
        -Dio.netty.noUnsafe=true -Dio.netty.noKeySetOptimization=true -Dio.netty.recycler.maxCapacityPerThread=0 \
        "${jvm_fast[@]}" "${jvm_extra[@]}" \
        -cp "$NODE_HOME/lib/*:$LAUNCHER" "$MAIN_CLASS" \
        "-Epath.home=$NODE_HOME" "-Epath.data=$STATE/data" "-Epath.logs=$STATE/logs" \
        "-Enode.name=$NODE_NAME" \
        "-Enode.roles=cluster_manager,data,ingest" \
        "-Enetwork.host=127.0.0.1" "-Ehttp.port=$port" "-Etransport.port=$tport" \
        "$@" \
        "-Ecluster.routing.allocation.disk.threshold_enabled=false" \
        "${ML_LOCAL_SETTINGS[@]}" \
        "${extra[@]}" \
        </dev/null >>"$LOG" 2>&1 &
    LAUNCHED=$!
    echo "$LAUNCHED" >"$PIDFILE"
    echo "$port" >"$PORTFILE"
}

# --- the cluster (OPENSEARCH_NODES > 1) ---------------------------------------------------------
cluster_up() { # base-port fresh
    local base="$1" fresh="$2" i pid seeds="" managers="" started=()
    for ((i = 0; i < NODES; i++)); do
        seeds+="${seeds:+,}127.0.0.1:$((base + 100 + i))"
        managers+="${managers:+,}chunkwise-local-$i"
    done
    # Ports first: a node we do not own on one of them stops everything before any start.
    for ((i = 0; i < NODES; i++)); do
        use_node "$i"
        if pid="$(our_pid)"; then
            [[ "$(cat "$PORTFILE" 2>/dev/null)" == "$((base + i))" ]] \
                || die "$NODE_NAME (pid $pid) runs on port $(cat "$PORTFILE" 2>/dev/null); run '$0 down' first"
            continue
        fi
        port_busy "$((base + i))" && die "port $((base + i)) on 127.0.0.1 is in use by another process; pick another OPENSEARCH_PORT"
        port_busy "$((base + 100 + i))" && die "transport port $((base + 100 + i)) on 127.0.0.1 is in use; pick another OPENSEARCH_PORT"
    done
    build
    # The heap of one node of N on a shared machine: 768m each (samdocs/local-stack.md).
    local heap="${OPENSEARCH_HEAP:-768m}" t0=$SECONDS
    for ((i = 0; i < NODES; i++)); do
        use_node "$i"
        our_pid >/dev/null && continue
        ((fresh)) && rm -rf "$STATE/data"
        # initial_cluster_manager_nodes only counts on the very first start of an empty
        # cluster (bootstrap); a node with cluster state ignores it, so restarts keep it.
        OPENSEARCH_HEAP="$heap" launch_node "$((base + i))" \
            "-Ecluster.name=chunkwise-local-cluster" \
            "-Ediscovery.seed_hosts=$seeds" \
            "-Ecluster.initial_cluster_manager_nodes=$managers"
        started+=("$i:$LAUNCHED")
        say "starting $NODE_NAME: pid $LAUNCHED on http://127.0.0.1:$((base + i)) (heap $heap, log $LOG)"
    done
    local timeout="${OPENSEARCH_START_TIMEOUT:-300}" health="" url="http://127.0.0.1:$base"
    while :; do
        local entry
        for entry in "${started[@]}"; do
            pid="${entry#*:}"
            if ! kill -0 "$pid" 2>/dev/null; then
                use_node "${entry%%:*}"
                rm -f "$PIDFILE"
                say "---- last lines of $LOG ----"
                tail -n 25 "$LOG" >&2 || true
                die "$NODE_NAME exited during startup. Full log: $LOG (the other nodes keep running; '$0 down' stops them)"
            fi
        done
        health="$(cluster_health "$base")"
        [[ "$health" =~ ^(green|yellow)\ $NODES$ ]] && break
        if ((SECONDS - t0 >= timeout)); then
            die "no cluster of $NODES nodes after ${timeout}s (health: '${health:-no answer}'); logs in $CLUSTER_STATE/node-*/node.log; '$0 down' stops the nodes"
        fi
        sleep 1
    done
    say "up: cluster of $NODES nodes, http://127.0.0.1:$base..$((base + NODES - 1)) (health ${health% *}, $((SECONDS - t0)) s)"
}

# "<status> <number of nodes>" from the first node of the cluster that answers.
cluster_health() { # base-port
    local i body
    for ((i = 0; i < NODES; i++)); do
        body="$(http_get "http://127.0.0.1:$(($1 + i))/_cluster/health")" || continue
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["number_of_nodes"])' <<<"$body" 2>/dev/null && return 0
    done
    return 0
}

cluster_base_port() { # the HTTP port of node 0 as recorded, else OPENSEARCH_PORT
    cat "$CLUSTER_STATE/node-0/port" 2>/dev/null || echo "${OPENSEARCH_PORT:-9200}"
}

cluster_down() {
    local i pid stopped=0
    # Stop them all at once (SIGTERM each, then wait): one by one, every node left would
    # first re-elect and re-allocate for the one just gone.
    local pids=()
    for dir in "$CLUSTER_STATE"/node-*; do
        [[ -d "$dir" ]] || continue
        i="${dir##*/node-}"
        use_node "$i"
        if pid="$(our_pid)"; then
            kill -TERM "$pid" 2>/dev/null || true
            pids+=("$pid")
        fi
        rm -f "$PIDFILE"
    done
    for pid in "${pids[@]}"; do
        stop_pid "$pid"
        stopped=$((stopped + 1))
    done
    ((stopped)) && say "stopped $stopped cluster node(s)"
    return 0
}

cluster_status() {
    local base i pid alive=0 health
    base="$(cluster_base_port)"
    for ((i = 0; i < NODES; i++)); do
        use_node "$i"
        if pid="$(our_pid)"; then
            alive=$((alive + 1))
            say "$NODE_NAME: pid $pid, http://127.0.0.1:$(cat "$PORTFILE")"
        else
            say "$NODE_NAME: not running"
        fi
    done
    health="$(cluster_health "$base")"
    ((alive == NODES)) && [[ "$health" =~ ^(green|yellow)\ $NODES$ ]] || {
        say "cluster: $alive of $NODES nodes running, health '${health:-no answer}'"
        return 1
    }
    say "running: cluster of $NODES nodes from http://127.0.0.1:$base (health ${health% *})"
}

cluster_pids() {
    local dir pid
    for dir in "$CLUSTER_STATE"/node-*; do
        [[ -d "$dir" ]] || continue
        use_node "${dir##*/node-}"
        pid="$(our_pid)" && echo "$NODE_NAME $pid"
    done
    return 0
}

# Waits until the node answers with yellow/green health; on death or timeout: cause, log, exit 1.
wait_ready() { # pid url t0 child|other
    local pid="$1" url="$2" t0="$3" whose="$4" rc="unknown"
    local timeout="${OPENSEARCH_START_TIMEOUT:-120}" status=""
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            if [[ "$whose" == child ]]; then wait "$pid" 2>/dev/null && rc=0 || rc=$?; fi
            rm -f "$PIDFILE"
            say "---- last lines of $LOG ----"
            tail -n 25 "$LOG" >&2 || true
            say "---- cause ----"
            grep -m 3 -E 'LocalNode: FATAL|\]\[ERROR\]|^Caused by' "$LOG" | cut -c1-400 >&2 || true
            die "the node exited during startup (exit code $rc). Full log: $LOG"
        fi
        status="$(health_status "$url")"
        [[ "$status" == green || "$status" == yellow ]] && break
        if ((SECONDS - t0 >= timeout)); then
            say "---- last lines of $LOG ----"
            tail -n 25 "$LOG" >&2 || true
            say "no yellow cluster health after ${timeout}s; stopping pid $pid"
            stop_pid "$pid"
            rm -f "$PIDFILE"
            die "start timed out after ${timeout}s. Full log: $LOG"
        fi
        sleep 0.5
    done
    local name
    name="$(http_get "$url/" | json_field name || true)"
    [[ "$name" == "$NODE_NAME" ]] || die "something else answers on $url (node name '$name'); log: $LOG"
    say "up: $url (OpenSearch $(http_get "$url/" | json_field version.number), health $status, pid $pid, $((SECONDS - t0)) s to $status)"
}

stop_pid() {
    local pid="$1" timeout="${OPENSEARCH_STOP_TIMEOUT:-30}" t0=$SECONDS
    kill -TERM "$pid" 2>/dev/null || return 0
    while kill -0 "$pid" 2>/dev/null; do
        if ((SECONDS - t0 >= timeout)); then
            say "pid $pid still alive ${timeout}s after SIGTERM: SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            break
        fi
        sleep 0.2
    done
}

cmd_down() {
    if [[ -n "${OPENSEARCH_URL:-}" ]]; then
        say "OPENSEARCH_URL is set ($OPENSEARCH_URL): external cluster, nothing to stop"
        return 0
    fi
    # Every node started from here, whatever OPENSEARCH_NODES says now.
    cluster_down
    use_single
    local pid
    if ! pid="$(our_pid)"; then
        rm -f "$PIDFILE"
        say "not running"
        return 0
    fi
    local t0=$SECONDS
    stop_pid "$pid"
    rm -f "$PIDFILE"
    say "stopped pid $pid in $((SECONDS - t0)) s (log $LOG)"
}

cmd_status() {
    if [[ -n "${OPENSEARCH_URL:-}" ]]; then external_check; return; fi
    if ((NODES > 1)); then cluster_status; return; fi
    local pid port url status
    port="$(cat "$PORTFILE" 2>/dev/null || echo "${OPENSEARCH_PORT:-9200}")"
    url="http://127.0.0.1:$port"
    if ! pid="$(our_pid)"; then
        say "not running (log of the last run: $LOG)"
        return 1
    fi
    status="$(health_status "$url")"
    if [[ -z "$status" ]]; then
        say "pid $pid is alive but $url does not answer (starting, or stuck: see $LOG)"
        return 1
    fi
    say "running: $url (pid $pid, health $status, log $LOG)"
    http_get "$url/_cat/plugins?h=component,version" | sed 's/^/opensearch:   plugin /' >&2 || true
}

cmd_cds() {
    [[ -z "${OPENSEARCH_URL:-}" ]] || die "OPENSEARCH_URL is set: no local node to archive"
    our_pid >/dev/null && die "stop the running node first ('$0 down')"
    [[ "${OPENSEARCH_FAST_START:-1}" == 1 ]] || die "the archive is only used with OPENSEARCH_FAST_START=1"
    build
    rm -f "$CDS_ARCHIVE"
    say "starting once with -XX:ArchiveClassesAtExit; the archive is written when the node stops"
    CDS_DUMP=1 OPENSEARCH_STOP_TIMEOUT="${OPENSEARCH_STOP_TIMEOUT:-120}" cmd_up "$@"
    cmd_down
    [[ -f "$CDS_ARCHIVE" ]] || die "no archive was written; see $LOG"
    say "class-data archive: $CDS_ARCHIVE ($(du -m "$CDS_ARCHIVE" | cut -f1) MB); used by every 'up' from now on"
}

case "${1:-}" in
    up) shift; cmd_up "$@" ;;
    down) cmd_down ;;
    status) cmd_status ;;
    pids) cluster_pids ;;
    build) build; say "assembled: $NODE_HOME" ;;
    cds) shift; cmd_cds "$@" ;;
    *) echo "usage: $0 up [--port N] [--fresh] [--nodes N] | down | status | pids | build | cds" >&2; exit 2 ;;
esac
