"""scripts/deploy-local-template.py: the local deploy's template is derived from the
production one with exactly the documented differences, and the production template
is not touched (samdocs/local-stack.md, "The SAM stack in LocalStack")."""

from __future__ import annotations

import copy
import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.template_policies import load_template

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def derive() -> Any:
    spec = importlib.util.spec_from_file_location(
        "deploy_local_template", ROOT / "scripts" / "deploy-local-template.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.derive


@pytest.fixture(scope="module")
def production() -> dict[str, Any]:
    # The one reader of CloudFormation's short tags (as samcli.yamlhelper reads them).
    return load_template(ROOT / "template.yaml")


@pytest.fixture(scope="module")
def local(derive: Any, production: dict[str, Any]) -> dict[str, Any]:
    before = copy.deepcopy(production)
    out = derive(copy.deepcopy(production))
    assert production == before
    return out  # type: ignore[no-any-return]


def test_the_endpoint_may_be_the_local_node_there_only(
    production: dict[str, Any], local: dict[str, Any]
) -> None:
    prod = re.compile(production["Parameters"]["OpenSearchEndpoint"]["AllowedPattern"])
    loc = re.compile(local["Parameters"]["OpenSearchEndpoint"]["AllowedPattern"])
    assert not prod.fullmatch("http://127.0.0.1:9280") and prod.fullmatch("")
    assert loc.fullmatch("http://127.0.0.1:9280") and loc.fullmatch("https://search-x.es.aws")
    assert not loc.fullmatch("") and not loc.fullmatch("http://10.0.0.1:9200")
    assert "Default" not in local["Parameters"]["OpenSearchEndpoint"]


def test_the_ingest_mapping_is_created_disabled(local: dict[str, Any]) -> None:
    queue = local["Resources"]["IngestFunction"]["Properties"]["Events"]["Queue"]
    assert queue["Type"] == "SQS" and queue["Properties"]["Enabled"] is False


def test_no_domain_and_no_groups_only_resources(
    production: dict[str, Any], local: dict[str, Any]
) -> None:
    gone = {
        k
        for k, v in production["Resources"].items()
        if v.get("Condition") in ("CreateDomain", "UseGroupsAccess")
    }
    assert {"OpenSearchDomain", "DomainSlowLogGroup", "QueryHttpApi"} <= gone
    assert not gone & set(local["Resources"])
    rest = repr({k: local[k] for k in ("Globals", "Resources", "Outputs")})
    assert "CreateDomain" not in rest
    # (the IAM statements keep their Sid "OpenSearchDomain": only references are gone)
    assert "{'Ref': 'OpenSearchDomain'}" not in rest and "['OpenSearchDomain', " not in rest
    assert "${OpenSearchDomain" not in rest
    assert local["Parameters"]["AccessControl"]["AllowedValues"] == ["none"]
    assert "QueryApiUrl" not in local["Outputs"] and "QueryFunctionUrl" in local["Outputs"]


def test_the_visibility_lookup_is_resolved_for_the_default_timeout(local: dict[str, Any]) -> None:
    default = local["Parameters"]["IngestTimeout"]["Default"]
    visibility = local["Resources"]["IngestQueue"]["Properties"]["VisibilityTimeout"]
    assert visibility == local["Mappings"]["IngestTimeoutToVisibility"][str(default)]["Visibility"]
    assert local["Parameters"]["IngestTimeout"]["AllowedValues"] == [default]


def test_everything_else_is_the_production_template(
    production: dict[str, Any], local: dict[str, Any]
) -> None:
    same = [
        k
        for k, v in production["Resources"].items()
        if v.get("Condition") not in ("CreateDomain", "UseGroupsAccess")
        and k not in ("IngestFunction", "IngestQueue")
        and "CreateDomain" not in repr(v)
    ]
    assert len(same) > 25
    for k in same:
        assert local["Resources"][k] == production["Resources"][k], k
    assert "SearchIndex" in local["Resources"]  # recorded by the emulator, run in-process
