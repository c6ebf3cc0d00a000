#!/usr/bin/env bash
# LocalStack for S3, SQS and EventBridge on 127.0.0.1:4566, in host mode, without Docker.
#
#   bash scripts/localstack.sh up|down|status|logs
#
# LocalStack runs from its own virtualenv (.local/localstack-venv, created on first
# use with pinned versions); PID, log and state live under .local/localstack/.
#
# Pins (verified on Python 3.11, no Docker): localstack-core[runtime]==4.13.1 plus
#   cbor2==5.6.5        (cbor2 6.x removed cbor2._decoder, which LocalStack's parser imports)
#   cryptography==43.0.3, pyopenssl==24.2.1, service_identity==24.2.0
#                       (pyOpenSSL >= 24.3 dropped X509.add_extensions used for the
#                        gateway's self-signed certificate)
# Host mode needs no auth token in 4.13.1 (it warns that later releases will).
#
# Environment:
#   AWS_ENDPOINT_URL        set = another stack (Docker LocalStack, AWS): start nothing
#   CHUNKWISE_S3_EMULATOR   localstack (default) | moto  (moto server as the fallback)
#   LOCALSTACK_PORT         default 4566
#   LOCALSTACK_START_TIMEOUT seconds to wait for health (default 180)
#   LOCALSTACK_SERVICES     services to start (default s3,sqs,events; the local deploy,
#                           scripts/deploy-local.sh, adds CloudFormation and what the
#                           template creates)
#   LOCALSTACK_LAMBDA_EXECUTOR  chunkwise-no-container: Lambda functions become Active
#                           but are never run (tools/localstack-lambda; there is no
#                           container runtime here); unset = LocalStack's own (docker)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIR=$ROOT/.local/localstack
EMULATOR=${CHUNKWISE_S3_EMULATOR:-localstack}
PORT=${LOCALSTACK_PORT:-4566}
HOST=127.0.0.1
URL="http://$HOST:$PORT"
TIMEOUT=${LOCALSTACK_START_TIMEOUT:-180}
PIDF=$DIR/$EMULATOR.pid
LOG=$DIR/$EMULATOR.log
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3

LS_VENV=$ROOT/.local/localstack-venv
LS_PINS=("localstack-core[runtime]==4.13.1" "cbor2==5.6.5" "cryptography==43.0.3"
  "pyopenssl==24.2.1" "service_identity==24.2.0")
MOTO_VENV=$ROOT/.local/moto-venv
MOTO_PINS=("moto[server]==5.2.5")

say() { echo "localstack.sh: $*" >&2; }

healthy() {
  if [[ $EMULATOR == moto ]]; then
    curl -sf -m 3 "$URL/moto-api/data.json" >/dev/null 2>&1
  else
    local h
    h=$(curl -sf -m 3 "$URL/_localstack/health" 2>/dev/null) || return 1
    for svc in s3 sqs events; do
      grep -Eq "\"$svc\": \"(available|running)\"" <<<"$h" || return 1
    done
  fi
}

running_pid() {
  [[ -f $PIDF ]] || return 1
  local pid
  pid=$(cat "$PIDF")
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

install() {
  local venv=$1; shift
  local stamp=$venv/.chunkwise-pins want="$*"
  if [[ -x $venv/bin/python && -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
    return 0
  fi
  say "installing $want into ${venv#"$ROOT"/} (once; takes a few minutes)"
  [[ -x $venv/bin/python ]] || "$PY" -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip >&2
  # Two steps: the pins of the second override what localstack-core resolved.
  "$venv/bin/pip" install -q "$1" >&2
  shift
  # (pip warns that joserfc wants a newer cryptography: unused by s3/sqs/events)
  if (($#)); then "$venv/bin/pip" install -q "$@" 2>&1 | grep -v "dependency\|joserfc" >&2 || true; fi
  echo "$want" >"$stamp"
}

up() {
  if [[ -n ${AWS_ENDPOINT_URL:-} ]]; then
    say "AWS_ENDPOINT_URL=$AWS_ENDPOINT_URL is set: using it, starting nothing"
    return 0
  fi
  mkdir -p "$DIR"
  if healthy; then
    say "$EMULATOR already running at $URL"
    return 0
  fi
  if ! running_pid >/dev/null; then
    if [[ $EMULATOR == moto ]]; then
      install "$MOTO_VENV" "${MOTO_PINS[@]}"
      say "starting moto server on $URL (log ${LOG#"$ROOT"/})"
      setsid "$MOTO_VENV/bin/moto_server" -H "$HOST" -p "$PORT" >"$LOG" 2>&1 </dev/null &
    else
      install "$LS_VENV" "${LS_PINS[@]}"
      say "starting LocalStack (host mode) on $URL (log ${LOG#"$ROOT"/})"
      (
        cd "$DIR"
        export GATEWAY_LISTEN="$HOST:$PORT" SERVICES="${LOCALSTACK_SERVICES:-s3,sqs,events}" DNS_ADDRESS=0 \
          OVERRIDE_IN_DOCKER=0 SKIP_SSL_CERT_DOWNLOAD=1 DISABLE_EVENTS=1 \
          LOCALSTACK_VOLUME_DIR="$DIR/volume" PERSISTENCE=0 \
          SQS_ENDPOINT_STRATEGY=path LOCALSTACK_HOST="$HOST:$PORT"
        if [[ -n ${LOCALSTACK_LAMBDA_EXECUTOR:-} ]]; then
          # The executor plugin is found through its entry point on PYTHONPATH.
          export LAMBDA_RUNTIME_EXECUTOR="$LOCALSTACK_LAMBDA_EXECUTOR" \
            PYTHONPATH="$ROOT/tools/localstack-lambda${PYTHONPATH:+:$PYTHONPATH}"
        fi
        exec setsid "$LS_VENV/bin/localstack" start --host --no-banner
      ) >"$LOG" 2>&1 </dev/null &
    fi
    echo $! >"$PIDF"
  fi
  local waited=0
  until healthy; do
    if ! running_pid >/dev/null; then
      say "$EMULATOR exited during start; last lines of $LOG:"
      tail -n 20 "$LOG" >&2 || true
      rm -f "$PIDF"
      return 1
    fi
    if ((waited >= TIMEOUT)); then
      say "$EMULATOR not healthy after ${TIMEOUT}s; see $LOG"
      tail -n 20 "$LOG" >&2 || true
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  say "$EMULATOR ready at $URL after ${waited}s (pid $(cat "$PIDF"))"
}

down() {
  if [[ -n ${AWS_ENDPOINT_URL:-} ]]; then
    say "AWS_ENDPOINT_URL is set: nothing of ours to stop"
    return 0
  fi
  local pid
  if ! pid=$(running_pid); then
    say "$EMULATOR not running (no live pid in ${PIDF#"$ROOT"/})"
    rm -f "$PIDF"
    return 0
  fi
  say "stopping $EMULATOR (pid $pid)"
  # setsid made the pid a process-group leader: stop exactly that group.
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PIDF"
}

status() {
  local url=${AWS_ENDPOINT_URL:-$URL}
  if [[ -n ${AWS_ENDPOINT_URL:-} ]]; then
    say "AWS_ENDPOINT_URL=$url (external stack)"
    return 0
  fi
  if healthy; then
    local pid
    pid=$(running_pid || echo "?")
    say "running: $url ($EMULATOR, pid $pid, log $LOG)"
    return 0
  fi
  say "not running at $url ($EMULATOR; log $LOG)"
  return 1
}

case "${1:-}" in
  up) up ;;
  # The one-time install alone (scripts/deploy-local.sh runs it beside other work).
  install) if [[ $EMULATOR == moto ]]; then install "$MOTO_VENV" "${MOTO_PINS[@]}"; else install "$LS_VENV" "${LS_PINS[@]}"; fi ;;
  down) down ;;
  status) status ;;
  logs) tail -n "${2:-50}" "$LOG" ;;
  *)
    echo "usage: $0 up|down|status|logs [N]" >&2
    exit 2
    ;;
esac
