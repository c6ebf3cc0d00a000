#!/usr/bin/env bash
# The behaviour-identity evals of one checkout: `chunkwise eval` on the labelled set
# (bench/eval, the four configurations of samdocs/evaluation.md) and on the XQuAD dev
# half (en, de; chunkwise + recursive, as bench/xquad/summarize.py expects), against a
# running OpenSearch node, with inputs copied once so that every checkout reads the
# same bytes.
#
#   bash bench/identity/run_evals.sh CHECKOUT OUT INPUTS URL [PREFIX]
#
# CHECKOUT: a worktree with its .venv (`make setup`); OUT: results folder (eval/,
# xquad-dev-en/, xquad-dev-de/); INPUTS: a folder with eval/{questions.jsonl,corpus.json,
# docs,configs} and xquad-dev-{en,de}/ (bench/xquad/prepare.py's output); URL: the node.
# Compare two OUT folders with `python -m bench.identity.compare OUT_A OUT_B`.
# SETS (environment) picks what to run: default "eval xquad-en xquad-de".
set -euo pipefail
checkout=$(cd "$1" && pwd) out=$2 inputs=$(cd "$3" && pwd) url=$4 prefix=${5:-identity}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cw="$checkout/.venv/bin/chunkwise"
cfg="$inputs/eval/configs"
cd "$checkout"
echo "run_evals: $(git -C "$checkout" rev-parse HEAD) -> $out" >&2
"$cw" --version >&2 || true
sets=" ${SETS:-eval xquad-en xquad-de} "
if [[ $sets == *" eval "* ]]; then
start=$(date +%s)
"$cw" eval "$inputs/eval/questions.jsonl" \
    --config "$cfg/chunkwise.toml" --config "$cfg/fixed.toml" \
    --config "$cfg/fixed_overlap.toml" --config "$cfg/recursive.toml" \
    --out "$out/eval" --url "$url" --prefix "$prefix" --no-plot --no-progress
echo "run_evals: labelled set done in $(( $(date +%s) - start )) s" >&2
fi
for lang in en de; do
    [[ $sets == *" xquad-$lang "* ]] || continue
    start=$(date +%s)
    "$cw" eval "$inputs/xquad-dev-$lang/questions.jsonl" \
        --config "$cfg/chunkwise.toml" --config "$cfg/recursive.toml" \
        --out "$out/xquad-dev-$lang" --url "$url" --prefix "$prefix" --no-plot --no-progress
    echo "run_evals: xquad dev-$lang done in $(( $(date +%s) - start )) s" >&2
done
