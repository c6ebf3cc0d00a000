"""Derive the local deploy's template from the BUILT production template.

    python scripts/deploy-local-template.py BUILT_TEMPLATE OUT_TEMPLATE
    python scripts/deploy-local-template.py --upgrade BUILT_TEMPLATE OUT_TEMPLATE

Run with the SAM CLI's python (.local/sam-venv): samcli.yamlhelper reads and writes
CloudFormation YAML with its short-form tags. The output sits beside the input (the
built CodeUri/ContentUri paths are relative to it). Never edited by hand: every
difference from template.yaml is made here, and each one is what the pinned LocalStack
(community 4.13.1, host mode, no container runtime) cannot do otherwise:

1. OpenSearchEndpoint also accepts an http loopback URL (http://127.0.0.1:PORT): the
   emulator cannot create an OpenSearch domain offline, so the stack is given the local
   node, which speaks plain http. The production pattern stays https-only.
2. The ingest function's SQS event source mapping is created disabled: the emulator
   runs no function here (tools/localstack-lambda refuses invocations), and an enabled
   mapping would receive the documents' messages and hide them for the visibility
   timeout. `chunkwise local run --stack` consumes the deployed queue instead.
3. A mapping looked up with a Number parameter (the queue's visibility timeout from
   IngestTimeout) is resolved here for the parameter's default, and the parameter is
   held to that value: the emulator's change-set engine takes the Number as an int and
   fails the lookup ("sequence item 1: expected str instance, int found" in
   change_set_model_preproc._resolve_mapping).
4. Access mode none only: AccessControl is held to "none" and what exists only in mode
   groups (condition UseGroupsAccess: the HTTP API, its invoke permission and log
   group, the output QueryApiUrl) is left out. The emulator's change-set engine
   resolves the Fn::Sub of a resource or output whose condition is false and fails on
   the absent resource ("Undefined variable name in Fn::Sub string template
   'QueryHttpApi'").
5. No domain: the emulator cannot create one offline, so the resources of condition
   CreateDomain (the domain, its log groups and log policy) are left out, every
   Fn::If on CreateDomain takes its existing-endpoint branch, and OpenSearchEndpoint
   may not be empty. Kept in the template with a false condition, they break the
   emulator's DeleteStack ("Template format error: Unresolved resource dependencies
   [DomainSlowLogGroup] in the Resources block of the template").
6. Nothing else. The custom resource SearchIndex stays as it is: LocalStack community
   has no provider for custom resources and records it without calling anything
   ("No resource provider found"); `chunkwise local admin --stack` then runs the admin
   function's code with the CloudFormation request the stack would have sent. The
   output QueryModelId (an attribute of that resource) cannot be resolved and is left
   out; the admin run prints its data instead.

With ``--upgrade``, the same derivation and then the changed release of the upgrade
rehearsal (scripts/deploy-local-upgrade.py, `make deploy-local-upgrade`), made to the
built artifacts so that no source file changes (``upgrade``):

- a new version of the tokenizer layer: its built content is copied beside it with one
  file added (``UPGRADE_MARKER``), so the packaged zip, and with it the layer version
  SAM deploys, is new and every function moves to it;
- the next ``MappingRevision`` of the custom resource SearchIndex: what a release whose
  mapping changed carries (on AWS, an Update request to the admin function); the
  rehearsal then runs the documented migration for a change that needs a new
  generation (re-chunk, verify, swap: samdocs/operations.md).

The batch size is a parameter (IngestBatchSize), given to `sam deploy` by the caller.
"""

from __future__ import annotations

import sys

GROUPS_ONLY = "UseGroupsAccess"
DOMAIN_ONLY = "CreateDomain"
LOOPBACK = r"http://(127\.0\.0\.1|localhost)(:[0-9]+)?/?"


def derive(tpl: dict) -> dict:
    params = tpl["Parameters"]
    ep = params["OpenSearchEndpoint"]
    prod = ep["AllowedPattern"]
    if not (prod.startswith("^(") and prod.endswith(")$")):
        raise SystemExit(f"OpenSearchEndpoint's pattern changed shape: {prod!r}")
    ep["AllowedPattern"] = "^(" + prod[3:-2].lstrip("|") + "|" + LOOPBACK + ")$"
    if ep["AllowedPattern"].startswith("^(|"):
        raise SystemExit("OpenSearchEndpoint's pattern: the empty alternative is not first")
    ep.pop("Default", None)
    ep["Description"] = (
        "Local deploy: the local OpenSearch node (http://127.0.0.1:PORT) or an https "
        "endpoint; required (the emulator creates no domain)."
    )

    events = tpl["Resources"]["IngestFunction"]["Properties"]["Events"]
    sqs = [k for k, v in events.items() if v["Type"] == "SQS"]
    if len(sqs) != 1:
        raise SystemExit(f"expected one SQS event of IngestFunction, found {sqs}")
    events[sqs[0]]["Properties"]["Enabled"] = False

    resolve_number_lookups(tpl)
    drop_condition(tpl, DOMAIN_ONLY)

    params["AccessControl"]["AllowedValues"] = ["none"]
    params["AccessControl"]["Default"] = "none"
    for section in ("Resources", "Outputs"):
        for name, node in list(tpl.get(section, {}).items()):
            if node.get("Condition") == GROUPS_ONLY:
                del tpl[section][name]

    outputs = tpl.get("Outputs", {})
    for name, out in list(outputs.items()):
        if "SearchIndex" in repr(out.get("Value")):
            del outputs[name]
    tpl["Description"] = "[local deploy, derived by scripts/deploy-local-template.py] " + str(
        tpl.get("Description", "")
    )
    return tpl


def drop_condition(tpl: dict, condition: str) -> None:
    """Resources of ``condition`` removed, Fn::If on it resolved to its false branch."""

    def walk(node: object) -> object:
        if isinstance(node, dict):
            fif = node.get("Fn::If")
            if len(node) == 1 and isinstance(fif, list) and fif[0] == condition:
                return walk(fif[2])
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    for section in ("Resources", "Outputs"):
        for name, node in list(tpl.get(section, {}).items()):
            if node.get("Condition") == condition:
                del tpl[section][name]
    for section in ("Globals", "Resources", "Outputs"):
        if section in tpl:
            tpl[section] = walk(tpl[section])
    if condition in repr({k: tpl.get(k) for k in ("Globals", "Resources", "Outputs")}):
        raise SystemExit(f"{condition} is still referenced after dropping it")


def resolve_number_lookups(tpl: dict) -> None:
    params, maps = tpl["Parameters"], tpl.get("Mappings", {})

    def walk(node: object) -> object:
        if isinstance(node, dict):
            fim = node.get("Fn::FindInMap")
            if len(node) == 1 and isinstance(fim, list) and isinstance(fim[1], dict):
                name = fim[1].get("Ref")
                if name in params and params[name].get("Type") == "Number":
                    default = str(params[name]["Default"])
                    params[name]["AllowedValues"] = [params[name]["Default"]]
                    params[name]["Description"] = (
                        params[name].get("Description", "") + " (local deploy: the default only)"
                    ).strip()
                    return maps[fim[0]][default][fim[2]]
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    tpl["Resources"] = walk(tpl["Resources"])


UPGRADE_LAYER = "TokenizerLayer"
UPGRADE_SUFFIX = "-upgrade"
UPGRADE_MARKER = "chunkwise-upgrade-rehearsal.txt"


def upgrade(tpl: dict) -> tuple[dict, str, str]:
    """The rehearsal's changed release of a derived template: (template, the layer's
    built folder, the folder its new version is packaged from). The caller copies the
    folder and adds the marker (``make_upgraded_layer``)."""
    layer = tpl["Resources"][UPGRADE_LAYER]["Properties"]
    old = str(layer["ContentUri"])
    if old.endswith(UPGRADE_SUFFIX):
        raise SystemExit(f"{UPGRADE_LAYER} is already the upgraded one ({old})")
    layer["ContentUri"] = old.rstrip("/") + UPGRADE_SUFFIX
    props = tpl["Resources"]["SearchIndex"]["Properties"]
    props["MappingRevision"] = str(int(str(props["MappingRevision"])) + 1)
    return tpl, old, layer["ContentUri"]


def make_upgraded_layer(base: str, old: str, new: str, note: str) -> None:
    import shutil
    from pathlib import Path

    src, dst = Path(base) / old, Path(base) / new
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    (dst / UPGRADE_MARKER).write_text(note + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    args = argv[1:]
    upgrading = bool(args) and args[0] == "--upgrade"
    if upgrading:
        args = args[1:]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    from datetime import UTC, datetime
    from pathlib import Path

    from samcli.yamlhelper import yaml_dump, yaml_parse

    with open(args[0], encoding="utf-8") as f:
        tpl = derive(yaml_parse(f.read()))
    if upgrading:
        tpl, old, new = upgrade(tpl)
        note = f"upgrade rehearsal release {datetime.now(UTC).isoformat(timespec='seconds')}"
        make_upgraded_layer(str(Path(args[1]).parent), old, new, note)
    with open(args[1], "w", encoding="utf-8") as f:
        f.write(yaml_dump(tpl))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
