#!/usr/bin/env bash
# The SAM stack deployed into LocalStack on this machine (host mode, no Docker).
#
#   bash scripts/deploy-local.sh up      build, derive, deploy, run the custom resource
#   bash scripts/deploy-local.sh smoke   an English and a German document through the
#                                        deployed bucket, queue and index, found by search
#   bash scripts/deploy-local.sh wiring  the wiring tests on the deployed stack (pytest -m deploy)
#   bash scripts/deploy-local.sh down    delete the stack, stop what `up` started
#
# What runs where (samdocs/local-stack.md, "The SAM stack in LocalStack"):
#   - LocalStack (scripts/localstack.sh) with CloudFormation and every service the
#     template uses; its Lambda uses tools/localstack-lambda: functions are created and
#     Active but never run (no container runtime here);
#   - OpenSearch (tools/opensearch/opensearch.sh): the stack's OpenSearchEndpoint (the
#     emulator cannot create a domain offline);
#   - `sam build` (x86_64) and scripts/deploy-local-template.py, which derives the
#     deployed template from the built one (http loopback endpoint allowed, the ingest
#     event source mapping disabled);
#   - `sam deploy` of that template, waiting for CREATE_COMPLETE;
#   - the admin function's code, in this process, with the custom-resource request
#     (`chunkwise local admin --stack`): LocalStack community has no custom resources.
#
# Environment: LOCALSTACK_PORT (4566), OPENSEARCH_PORT (9200), CHUNKWISE_EMBED_PORT,
# DEPLOY_LOCAL_STACK (stack name, default chunkwise-local), DEPLOY_LOCAL_INDEX_PREFIX
# (default cwdeploy: the stack's IndexPrefix, a prefix of its own on the node).
# For the upgrade rehearsal (scripts/deploy-local-upgrade.py): DEPLOY_LOCAL_UPGRADE=1
# deploys the changed release that `deploy-local-template.py --upgrade` derives (a new
# tokenizer layer version, the next MappingRevision), DEPLOY_LOCAL_PARAMS adds parameter
# overrides (e.g. IngestBatchSize=5), DEPLOY_LOCAL_SKIP_BUILD=1 reuses an existing build.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
STACK=${DEPLOY_LOCAL_STACK:-chunkwise-local}
PREFIX=${DEPLOY_LOCAL_INDEX_PREFIX:-cwdeploy}
LS_PORT=${LOCALSTACK_PORT:-4566}
OS_PORT=${OPENSEARCH_PORT:-9200}
ENDPOINT="http://127.0.0.1:$LS_PORT"
OS_URL="http://127.0.0.1:$OS_PORT"
REGION=us-east-1
STATE=$ROOT/.local/deploy-local
STARTED=$STATE/started
BUILD=.aws-sam/build-x86_64
TEMPLATE=$BUILD/template.deploy-local.yaml
ARTIFACTS=cw-local-sam-artifacts
SAM=$ROOT/.local/sam-venv/bin/sam
PY=$ROOT/.venv/bin/python
CW=$ROOT/.venv/bin/chunkwise
export LOCALSTACK_PORT=$LS_PORT OPENSEARCH_PORT=$OS_PORT
export LOCALSTACK_SERVICES=s3,sqs,events,cloudformation,iam,sts,lambda,logs,sns,cloudwatch,scheduler
export LOCALSTACK_LAMBDA_EXECUTOR=chunkwise-no-container
export SAM_CLI_TELEMETRY=0

say() { echo "deploy-local: $*" >&2; }
t0=$(date +%s)
elapsed() { echo "$(($(date +%s) - t0))s"; }

# The stack's tools talk to the emulator with its dummy credentials only.
aws_env() {
  env -u AWS_PROFILE AWS_ENDPOINT_URL="$ENDPOINT" AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test \
    AWS_DEFAULT_REGION=$REGION AWS_REGION=$REGION "$@"
}

ls_has_deploy_services() {
  local h
  h=$(curl -sf -m 3 "$ENDPOINT/_localstack/health" 2>/dev/null) || return 1
  for svc in cloudformation lambda iam; do
    grep -Eq "\"$svc\": \"(available|running)\"" <<<"$h" || return 1
  done
}

# A fresh clone installs LocalStack's and the SAM CLI's virtualenvs once (minutes of
# download and unpacking, little CPU). They need nothing from each other nor from the
# node, so they run in the background while OpenSearch is assembled and started; each
# is waited for just before its first use. A warm clone starts neither.
LS_INSTALL_PID="" SAM_INSTALL_PID=""
start_installs() {
  mkdir -p "$STATE"
  if ! curl -sf -m 3 "$ENDPOINT/_localstack/health" >/dev/null 2>&1; then
    # (returns at once when the pinned venv is there)
    bash scripts/localstack.sh install >"$STATE/install-localstack.log" 2>&1 &
    LS_INSTALL_PID=$!
  fi
  if [[ ! -x $SAM ]]; then
    say "installing the SAM CLI in the background ($STATE/install-sam.log)"
    SAM_CHECK_STEPS=none bash scripts/sam-check.sh >"$STATE/install-sam.log" 2>&1 &
    SAM_INSTALL_PID=$!
  fi
}
wait_install() {  # $1 pid, $2 what, $3 log
  [[ -n $1 ]] || return 0
  wait "$1" || { tail -n 20 "$3" >&2; say "installing $2 FAILED"; return 1; }
  grep -q installing "$3" && say "$2 installed in the background ($(elapsed))"
  return 0
}

services_up() {
  mkdir -p "$STATE"
  touch "$STARTED"
  start_installs
  if bash tools/opensearch/opensearch.sh status >/dev/null 2>&1; then
    say "OpenSearch already running on $OS_URL: using it"
  else
    bash tools/opensearch/opensearch.sh up
    echo opensearch >>"$STARTED"
  fi
  if curl -sf -m 3 "$ENDPOINT/_localstack/health" >/dev/null 2>&1; then
    ls_has_deploy_services || {
      say "a LocalStack on $ENDPOINT runs without CloudFormation/Lambda/IAM (started for the tests?);"
      say "stop it (bash scripts/localstack.sh down) or choose another LOCALSTACK_PORT"
      return 1
    }
    say "LocalStack already running on $ENDPOINT with the deploy's services: using it"
  else
    wait_install "$LS_INSTALL_PID" "LocalStack's virtualenv" "$STATE/install-localstack.log"
    bash scripts/localstack.sh up
    echo localstack >>"$STARTED"
  fi
}

stack_status() {
  aws_env "$PY" - "$STACK" <<'PY'
import sys, boto3
cfn = boto3.client("cloudformation")
try:
    print(cfn.describe_stacks(StackName=sys.argv[1])["Stacks"][0]["StackStatus"])
except Exception:
    print("NONE")
PY
}

stack_failure() {  # the events that failed, newest first
  aws_env "$PY" - "$STACK" <<'PY'
import sys, boto3
cfn = boto3.client("cloudformation")
for e in cfn.describe_stack_events(StackName=sys.argv[1])["StackEvents"]:
    if "FAILED" in e.get("ResourceStatus", ""):
        print(f"  {e['LogicalResourceId']} ({e['ResourceType']}): {e.get('ResourceStatusReason', '')}")
PY
}

up() {
  say "services"
  services_up
  say "services ready ($(elapsed))"
  wait_install "$SAM_INSTALL_PID" "the SAM CLI" "$STATE/install-sam.log"
  if [[ ${DEPLOY_LOCAL_SKIP_BUILD:-0} == 1 && -f $BUILD/template.yaml ]]; then
    say "sam build skipped (DEPLOY_LOCAL_SKIP_BUILD=1): $BUILD as it is"
  else
    say "sam build (x86_64)"
    make --no-print-directory sam-build SAM_ARCH=x86_64 >/dev/null
  fi
  say "built ($(elapsed)); deriving $TEMPLATE from the built template"
  "$ROOT/.local/sam-venv/bin/python" scripts/deploy-local-template.py "$BUILD/template.yaml" "$TEMPLATE"
  if [[ ${DEPLOY_LOCAL_UPGRADE:-0} == 1 ]]; then
    TEMPLATE=$BUILD/template.deploy-local-upgrade.yaml
    "$ROOT/.local/sam-venv/bin/python" scripts/deploy-local-template.py --upgrade "$BUILD/template.yaml" "$TEMPLATE"
    say "the changed release: $TEMPLATE"
  fi
  aws_env "$PY" -c "
import boto3
s3 = boto3.client('s3')
if '$ARTIFACTS' not in [b['Name'] for b in s3.list_buckets()['Buckets']]:
    s3.create_bucket(Bucket='$ARTIFACTS')"
  local status
  status=$(stack_status)
  if [[ $status == ROLLBACK_COMPLETE || $status == *FAILED || $status == REVIEW_IN_PROGRESS ]]; then
    say "stack $STACK is $status from an earlier run: deleting it first"
    delete_stack
    status=NONE
  fi
  if [[ $status == NONE ]]; then
    # A new stack has a new, empty bucket (the emulator keeps nothing across a
    # restart): generations of an earlier deploy on the node would serve documents
    # it does not hold, so they go before the admin step makes a fresh one.
    drop_generations
  fi
  # CloudFormation sends the custom resource Create on a new stack, Update on an update.
  local request=()
  [[ $status == CREATE_COMPLETE || $status == UPDATE_COMPLETE ]] && request=(--update)
  local extra=()
  read -r -a extra <<<"${DEPLOY_LOCAL_PARAMS:-}"
  say "sam deploy $STACK"
  aws_env "$SAM" deploy --template-file "$TEMPLATE" --stack-name "$STACK" \
    --s3-bucket "$ARTIFACTS" --region $REGION --no-confirm-changeset --no-fail-on-empty-changeset \
    --capabilities CAPABILITY_IAM CAPABILITY_AUTO_EXPAND --disable-rollback \
    --parameter-overrides "OpenSearchEndpoint=$OS_URL" \
    "OpenSearchResourceArn=arn:aws:es:$REGION:000000000000:domain/chunkwise-local" \
    "Architecture=x86_64" "IndexPrefix=$PREFIX" "IndexShards=1" "IndexReplicas=0" ${extra[@]+"${extra[@]}"} \
    >"$STATE/sam-deploy.log" 2>&1 || true
  status=$(stack_status)
  if [[ $status != CREATE_COMPLETE && $status != UPDATE_COMPLETE ]]; then
    tail -n 20 "$STATE/sam-deploy.log" >&2
    say "stack $STACK is $status; failed resources:"
    stack_failure >&2
    return 1
  fi
  say "stack $STACK: $status ($(elapsed))"
  # What the emulator does with the functions: created and Active, never run.
  aws_env "$PY" - "$STACK" <<'PY' >&2
import sys, boto3
cfn, lam = boto3.client("cloudformation"), boto3.client("lambda")
fns = [r["PhysicalResourceId"] for r in cfn.describe_stack_resources(StackName=sys.argv[1])["StackResources"]
       if r["ResourceType"] == "AWS::Lambda::Function"]
for fn in fns:
    c = lam.get_function_configuration(FunctionName=fn)
    print(f"deploy-local:   function {fn}: {c['State']}, {c['Runtime']} {c['Architectures'][0]}, {c['CodeSize']} bytes")
for m in lam.list_event_source_mappings()["EventSourceMappings"]:
    if m["FunctionArn"].split(":")[-1] in fns:
        print(f"deploy-local:   event source mapping {m['EventSourceArn'].split(':')[-1]} -> {m['FunctionArn'].split(':')[-1]}: {m['State']}")
try:
    lam.invoke(FunctionName=fns[0], Payload=b"{}")
    print("deploy-local:   an invocation ran (unexpected on this machine)")
except Exception as exc:
    print(f"deploy-local:   invoking {fns[0]} is refused: {str(exc).split('Caused by ')[-1][:240]}")
PY
  say "custom resource SearchIndex: the admin function's code with the stack's request"
  aws_env "$CW" local admin --stack "$STACK" ${request[@]+"${request[@]}"} >"$STATE/admin.json"
  "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print('deploy-local: admin', d['Status'], json.dumps(d['Data']))" "$STATE/admin.json" >&2
  say "outputs:"
  aws_env "$PY" - "$STACK" <<'PY' >&2
import sys, boto3
for o in boto3.client("cloudformation").describe_stacks(StackName=sys.argv[1])["Stacks"][0]["Outputs"]:
    print(f"  {o['OutputKey']:<22} {o['OutputValue']}")
PY
  say "ready in $(elapsed): documents go to the DocumentBucketName output under InputPrefix; with"
  say "  AWS_ENDPOINT_URL=$ENDPOINT and the emulator's credentials (test/test):"
  say "  ingest: chunkwise local run --stack $STACK; search: chunkwise local query --stack $STACK TEXT"
}

smoke() {
  local work=$STATE/smoke
  mkdir -p "$work"
  cat >"$work/maintenance-en.md" <<'EOF'
# Pump maintenance

The centrifugal pump needs a maintenance interval of 500 operating hours. Replace the
mechanical seal and check the impeller for wear at every interval.
EOF
  cat >"$work/wartung-de.md" <<'EOF'
# Wartung der Kreiselpumpe

Das Wartungsintervall der Kreiselpumpe beträgt 500 Betriebsstunden. Bei jeder Wartung
werden die Gleitringdichtung getauscht und das Laufrad auf Verschleiß geprüft.
EOF
  say "smoke: uploading an English and a German document to the deployed bucket"
  aws_env "$PY" - "$STACK" "$work" <<'PY'
import sys, boto3
outs = {o["OutputKey"]: o["OutputValue"] for o in
        boto3.client("cloudformation").describe_stacks(StackName=sys.argv[1])["Stacks"][0]["Outputs"]}
s3 = boto3.client("s3")
for name in ("maintenance-en.md", "wartung-de.md"):
    key = outs["InputPrefix"] + "smoke/" + name
    s3.upload_file(f"{sys.argv[2]}/{name}", outs["DocumentBucketName"], key)
    print(f"deploy-local: put s3://{outs['DocumentBucketName']}/{key}", file=sys.stderr)
PY
  say "smoke: the ingest function's code on the deployed queue"
  aws_env "$CW" local run --stack "$STACK" --until-idle 5 --max-seconds 240
  local fail=0
  check() {  # $1 query, $2 label, $3 expected key suffix (no language filter)
    aws_env "$CW" local query --stack "$STACK" "$1" >"$work/q-$2.json" || {
      say "smoke: query '$1' FAILED"; cat "$work/q-$2.json" >&2; return 1; }
    "$PY" - "$work/q-$2.json" "$3" "$1" <<'PY'
import json, sys
hits = json.load(open(sys.argv[1]))["hits"]
keys = [h["citation"]["key"] for h in hits]
rank = next((i + 1 for i, k in enumerate(keys) if k.endswith(sys.argv[2])), 0)
verdict = f"ok, rank {rank}" if rank else "MISSING " + sys.argv[2]
print(f"deploy-local: smoke: {sys.argv[3]!r} -> {len(hits)} hit(s) {keys}: {verdict}", file=sys.stderr)
ok = bool(rank)
sys.exit(0 if ok else 1)
PY
  }
  check "maintenance interval of the pump" en maintenance-en.md || fail=1
  check "Wartungsintervall der Kreiselpumpe" de wartung-de.md || fail=1
  if ((fail)); then say "smoke FAILED ($(elapsed))"; return 1; fi
  say "smoke passed ($(elapsed)): both documents found through the query function's code"
}

# The wiring tests (tests/deploy/test_wiring_deployed.py) against the deployed stack:
# notification -> queue, DLQ redrive, schedules, custom resource, per-role IAM.
wiring() {
  say "wiring: pytest -m deploy tests/deploy against stack $STACK"
  aws_env env DEPLOY_LOCAL_STACK="$STACK" "$ROOT/.venv/bin/pytest" -q -p no:cacheprovider \
    -m deploy tests/deploy
  say "wiring passed ($(elapsed))"
}

drop_generations() {
  if curl -sf -m 3 "$OS_URL" >/dev/null 2>&1; then
    curl -sf -XDELETE "$OS_URL/$PREFIX-*?expand_wildcards=all" >/dev/null || true
    curl -sf -XDELETE "$OS_URL/_index_template/$PREFIX*" >/dev/null || true
    say "index generations $PREFIX-* removed from $OS_URL"
  fi
}

delete_stack() {
  aws_env "$PY" - "$STACK" <<'PY'
import sys, boto3
cfn = boto3.client("cloudformation")
try:
    cfn.describe_stacks(StackName=sys.argv[1])
except Exception:
    sys.exit(0)
cfn.delete_stack(StackName=sys.argv[1])
cfn.get_waiter("stack_delete_complete").wait(StackName=sys.argv[1], WaiterConfig={"Delay": 2, "MaxAttempts": 120})
print(f"deploy-local: stack {sys.argv[1]} deleted", file=sys.stderr)
PY
}

down() {
  if curl -sf -m 3 "$ENDPOINT/_localstack/health" >/dev/null 2>&1; then
    delete_stack || say "stack delete failed (see above)"
  fi
  # The stack's index generations, template and pipelines on the node (the admin's
  # Delete keeps data, as in AWS; this local node is ours).
  drop_generations
  if [[ -f $STARTED ]]; then
    while read -r svc; do
      case $svc in
        localstack) bash scripts/localstack.sh down ;;
        opensearch) bash tools/opensearch/opensearch.sh down ;;
      esac
    done <"$STARTED"
    rm -f "$STARTED"
  fi
  say "down ($(elapsed))"
}

case "${1:-}" in
  up) up ;;
  smoke) smoke ;;
  wiring) wiring ;;
  down) down ;;
  *) echo "usage: $0 up|smoke|wiring|down" >&2; exit 2 ;;
esac
