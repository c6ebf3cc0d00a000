#!/usr/bin/env bash
# SAM checks for CI and `make test`: `sam validate --lint`, `sam build` (no Docker),
# the unzipped size of every built function and layer, and an import smoke test
# of every handler with its layers (x86_64 build, local python3.12).
#
# Environment:
#   SAM_CHECK_STEPS   validate,build,smoke (default: all three)
#   SAM_ARCH          architecture of the main build (default arm64, the deploy default)
#   SAM_CLI_VERSION   aws-sam-cli version installed into .local/sam-venv
# Exit status is non-zero if any step fails or a function exceeds Lambda's
# 250 MB unzipped limit (function + its layers).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

SAM_VENV="${SAM_VENV:-$ROOT/.local/sam-venv}"
SAM_CLI_VERSION="${SAM_CLI_VERSION:-1.170.0}"
SAM_ARCH="${SAM_ARCH:-arm64}"
STEPS="${SAM_CHECK_STEPS:-validate,build,smoke}"
PY_VERSION=3.12
export SAM_CLI_TELEMETRY=0
# sam validate/build need a region but no credentials.
export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-${AWS_REGION:-us-east-1}}"

log() { printf '[sam-check] %s\n' "$*" >&2; }
has_step() { [[ ",$STEPS," == *",$1,"* ]]; }

# ---------------------------------------------------------------- SAM CLI
# In its own venv: aws-sam-cli pins its own boto3/cfn-lint/... and must not
# disturb the project's .venv.
if [ ! -x "$SAM_VENV/bin/sam" ]; then
    log "installing aws-sam-cli==$SAM_CLI_VERSION into $SAM_VENV"
    host_py="$(command -v python3.11 || command -v python3)"
    "$host_py" -m venv "$SAM_VENV"
    "$SAM_VENV/bin/pip" install --quiet --disable-pip-version-check --upgrade pip
    "$SAM_VENV/bin/pip" install --quiet --disable-pip-version-check "aws-sam-cli==$SAM_CLI_VERSION"
fi
SAM="$SAM_VENV/bin/sam"
log "$("$SAM" --version)"

# The tokenizer layer takes the model zip from the dev .venv when it is there
# (else layers/Makefile downloads the model package once).
if [ -z "${CHUNKWISE_MODEL_ZIP:-}" ] && [ -x "$ROOT/.venv/bin/python" ]; then
    CHUNKWISE_MODEL_ZIP="$("$ROOT/.venv/bin/python" - <<'PY' 2>/dev/null || true
import importlib.util, pathlib
s = importlib.util.find_spec("all_minilm_l6_v2")
if s and s.submodule_search_locations:
    print(pathlib.Path(next(iter(s.submodule_search_locations))) / "model.zip")
PY
)"
    export CHUNKWISE_MODEL_ZIP
fi

build_dir_for() { if [ "$1" = arm64 ]; then echo .aws-sam/build; else echo ".aws-sam/build-$1"; fi; }

sam_build() {  # $1 = arm64 | x86_64
    local arch="$1" dir
    dir="$(build_dir_for "$arch")"
    log "sam build ($arch) -> $dir"
    CHUNKWISE_LAMBDA_ARCH="$arch" "$SAM" build \
        --parameter-overrides "Architecture=$arch" \
        --build-dir "$dir" --cache-dir ".aws-sam/cache-$arch" >".aws-sam/build-$arch.log" 2>&1 \
        || { tail -n 40 ".aws-sam/build-$arch.log" >&2; log "sam build ($arch) FAILED"; return 1; }
    sizes "$dir"
}

# Unzipped sizes; Lambda's limit is 250 MB for a function plus all its layers.
sizes() {
    "$SAM_VENV/bin/python" - "$1" <<'PY'
import os, sys
from samcli.yamlhelper import yaml_parse

build = sys.argv[1]
with open(os.path.join(build, "template.yaml")) as f:
    tpl = yaml_parse(f.read())

def mb(path):
    total = 0
    for dp, _, files in os.walk(path):
        for n in files:
            fp = os.path.join(dp, n)
            if not os.path.islink(fp):
                total += os.path.getsize(fp)
    return total / 1e6

res = tpl["Resources"]
# The command line, the local stack and the evaluation stay out of every function.
not_shipped = [
    os.path.join(k, "chunkwise", part)
    for k, v in res.items()
    if v["Type"] == "AWS::Serverless::Function"
    for part in ("cli", "evaluation", "localstack")
    if os.path.exists(os.path.join(build, k, "chunkwise", part))
]
if not_shipped:
    print("not for the Lambda packages, but built into them: " + ", ".join(not_shipped))
    sys.exit(1)
glob_layers = [l["Ref"] for l in tpl.get("Globals", {}).get("Function", {}).get("Layers", [])]
layer_mb = {k: mb(os.path.join(build, k)) for k, v in res.items()
            if v["Type"] == "AWS::Serverless::LayerVersion"}
print(f"{'artifact':<22}{'unzipped MB':>12}")
for k, v in sorted(layer_mb.items()):
    print(f"{k:<22}{v:>12.1f}")
bad = 0
for k, v in sorted(res.items()):
    if v["Type"] != "AWS::Serverless::Function":
        continue
    own = mb(os.path.join(build, k))
    layers = glob_layers + [l["Ref"] for l in v["Properties"].get("Layers", [])]
    total = own + sum(layer_mb[l] for l in layers)
    flag = "" if total < 250 else "  OVER 250 MB"
    bad += bool(flag)
    print(f"{k:<22}{own:>12.1f}   with layers {total:6.1f} MB ({', '.join(layers)}){flag}")
sys.exit(1 if bad else 0)
PY
}

# What the python3.12 Lambda runtime provides besides the standard library
# (/var/runtime): boto3, botocore, s3transfer. Versions of the dev .venv.
RUNTIME_SIM=.aws-sam/lambda-runtime-sim
lambda_runtime_sim() {
    [ -d "$RUNTIME_SIM/botocore" ] && return 0
    local reqs="boto3 botocore s3transfer"
    if [ -x "$ROOT/.venv/bin/python" ]; then
        reqs="$("$ROOT/.venv/bin/python" -m pip freeze 2>/dev/null \
            | grep -iE '^(boto3|botocore|s3transfer)==' | tr '\n' ' ')"
        [ -n "$reqs" ] || reqs="boto3 botocore s3transfer"
    fi
    log "runtime simulation: $reqs-> $RUNTIME_SIM"
    # shellcheck disable=SC2086
    "$SAM_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
        --no-compile --target "$RUNTIME_SIM" $reqs
}

# Import every handler with exactly the built artifacts on sys.path (the x86_64
# build: this machine cannot load arm64 binaries). Same requirements files as
# arm64, so a missing dependency in a layer shows up here.
smoke() {
    local dir py fn
    dir="$(build_dir_for x86_64)"
    py="$(bash layers/find-python.sh "$PY_VERSION")"
    if [ -z "$py" ]; then
        log "smoke: no local python$PY_VERSION - skipped"
        return 0
    fi
    lambda_runtime_sim || return 1
    for fn in IngestFunction QueryFunction ReconcileFunction AdminFunction; do
        # Lambda's order: /var/task, layers (/opt/python), then the runtime (/var/runtime).
        local path="$ROOT/$dir/$fn:$ROOT/$dir/IcuLayer/python:$ROOT/$dir/DepsLayer/python"
        path="$path:$ROOT/$dir/TokenizerLayer/python"
        [ "$fn" = IngestFunction ] && path="$path:$ROOT/$dir/ExtractLayer/python"
        path="$path:$ROOT/$RUNTIME_SIM"
        local extract=""; [ "$fn" = IngestFunction ] && extract=1
        env -i PATH="$PATH" HOME="$HOME" PYTHONPATH="$path" PYTHONNOUSERSITE=1 \
            PYTHONDONTWRITEBYTECODE=1 SMOKE_EXTRACT="$extract" \
            AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1 \
            POWERTOOLS_TRACE_DISABLED=true POWERTOOLS_METRICS_DISABLED=true \
            CHUNKWISE_BUCKET=smoke-bucket CHUNKWISE_ARTIFACTS_BUCKET=smoke-artifacts \
            CHUNKWISE_QUEUE_URL=https://sqs.us-east-1.amazonaws.com/123456789012/smoke \
            CHUNKWISE_OPENSEARCH_URL=https://search.invalid CHUNKWISE_OPENSEARCH_AUTH=sigv4-es \
            CHUNKWISE_EMBEDDER="bedrock:amazon.titan-embed-text-v2:0?dimensions=1024" \
            CHUNKWISE_MODEL_PATH="$ROOT/$dir/TokenizerLayer/python/all_minilm_l6_v2/model.zip" \
            "$py" -S -c '
import sys, importlib.util
sys.path[:0] = [p for p in __import__("os").environ["PYTHONPATH"].split(":")]
import os
import app, chunkwise.text.segment, tokenizers, opensearchpy, aws_lambda_powertools, pydantic_settings
assert callable(app.lambda_handler)
# ICU from its layer: sentence breaks work
assert chunkwise.split_sentences("Dr. Müller kam am 3. Oktober. Dann ging er.", "de")
# token counts from the tokenizer layer, with the cap of the configured Bedrock model
# (CHUNKWISE_MODEL_PATH as in template.yaml, which the composition root passes to the
# embedder it builds; the layer is also shaped like the MiniLM package, so the
# MiniLM lookup finds it too)
from chunkwise.models.files import default_tokenizer_path, minilm_model_path
from chunkwise.settings import EmbedderSettings, load_settings
from chunkwise.wiring.embedders import embedder_for
settings = load_settings(EmbedderSettings)
emb = embedder_for(settings)
assert emb.count_tokens("Hallo Welt") > 0 and emb.max_tokens <= 8192
assert "/TokenizerLayer/" in str(default_tokenizer_path(settings.model_path))
assert "/TokenizerLayer/" in str(minilm_model_path())
counter = emb.token_counter()
assert counter.max_tokens == emb.max_tokens and counter.model_id == emb.name
assert chunkwise.chunk_text("Dr. Müller kam am 3. Oktober. Dann ging er. " * 50, counter=counter)
if os.environ.get("SMOKE_EXTRACT"):
    import lxml.html, docx, pypdfium2, pdfplumber, openpyxl, xlrd, defusedxml, pptx, xlsxwriter
    from openpyxl.worksheet._reader import WorkSheetParser
if importlib.util.find_spec("numpy") is not None and "site-packages" in importlib.util.find_spec("numpy").origin:
    raise SystemExit("numpy came from outside the build")
print("ok")' >/dev/null \
            || { log "smoke: importing $fn FAILED"; return 1; }
        log "smoke: $fn imports with its layers"
    done
}

mkdir -p .aws-sam
status=0
if has_step validate; then
    log "sam validate --lint"
    "$SAM" validate --lint --template template.yaml || { log "sam validate --lint FAILED"; status=1; }
fi
if has_step build; then
    sam_build "$SAM_ARCH" || status=1
fi
if has_step smoke; then
    if [ "$SAM_ARCH" != x86_64 ] || ! has_step build; then
        sam_build x86_64 || status=1
    fi
    [ $status -eq 0 ] && { smoke || status=1; }
fi
if [ $status -eq 0 ]; then log "all SAM checks passed"; else log "SAM checks FAILED"; fi
exit $status
