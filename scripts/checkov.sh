#!/usr/bin/env bash
# checkov on template.yaml, in its own venv (.local/checkov-venv: its pinned
# dependencies must not disturb the project's .venv). Every finding it still
# reports is an accepted one, listed with its reason in samdocs/security.md;
# this script fails if a check fails that is not on that list.
#
#   bash scripts/checkov.sh            # summary + the failed checks
#   CHECKOV_VERSION=3.3.30             # the version the list was made with
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.local/checkov-venv
VERSION="${CHECKOV_VERSION:-3.3.30}"
if [ ! -x "$VENV/bin/checkov" ]; then
    echo "checkov.sh: installing checkov==$VERSION into $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "checkov==$VERSION"
fi
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$VENV/bin/checkov" -f template.yaml --framework cloudformation --compact --quiet --skip-download \
    --output json > "$out" || true
python3 - "$out" <<'PY'
import json, pathlib, re, sys

report = json.loads(pathlib.Path(sys.argv[1]).read_text())
results = report["results"]
failed = sorted({(c["check_id"], c["resource"]) for c in results["failed_checks"]})
doc = pathlib.Path("samdocs/security.md").read_text(encoding="utf-8")
accepted = set(re.findall(r"^\| `(CKV_[A-Z0-9_]+)` \| ([^|]+?) \|", doc, re.M))
print(f"checkov: {report['summary']['passed']} passed, {len(failed)} failed")
unlisted = []
for check, resource in failed:
    name = resource.split(".", 1)[-1]
    listed = any(c == check and name in r for c, r in accepted)
    print(f"  {check:<12} {resource:<45} {'accepted' if listed else 'NOT LISTED'}")
    if not listed:
        unlisted.append((check, resource))
if unlisted:
    print(f"checkov: {len(unlisted)} finding(s) not justified in samdocs/security.md", file=sys.stderr)
    sys.exit(1)
PY
