"""template.yaml: the production hardening a security review asked for, checked on the
parsed template (CloudFormation tags kept as {"!Tag": value})."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"


class _CfnLoader(yaml.SafeLoader):
    pass


def _tag(loader: Any, suffix: str, node: Any) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {f"!{suffix}": value}


_CfnLoader.add_multi_constructor("!", _tag)


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return yaml.load(TEMPLATE.read_text(encoding="utf-8"), Loader=_CfnLoader)  # type: ignore[no-any-return]


def _props(template: dict[str, Any], name: str) -> dict[str, Any]:
    return template["Resources"][name]["Properties"]  # type: ignore[no-any-return]


def test_query_function_has_reserved_concurrency(template: dict[str, Any]) -> None:
    reserved = _props(template, "QueryFunction")["ReservedConcurrentExecutions"]
    assert reserved["!If"][1] == {"!Ref": "QueryReservedConcurrency"}
    assert template["Parameters"]["QueryReservedConcurrency"]["Default"] > 0


def test_query_errors_alarm_counts_requests_answered_500(template: dict[str, Any]) -> None:
    metrics = _props(template, "QueryErrorsAlarm")["Metrics"]
    names = {m["MetricStat"]["Metric"]["MetricName"] for m in metrics if "MetricStat" in m}
    assert names == {"Errors", "QueryErrors"}
    answered = next(m for m in metrics if m.get("Id") == "answered")["MetricStat"]["Metric"]
    # the dimension Powertools' Metrics(service="query") puts on the query handler's metrics
    assert answered["Namespace"] == "chunkwise"
    assert answered["Dimensions"] == [{"Name": "service", "Value": "query"}]
    app = (TEMPLATE.parent / "functions" / "query" / "app.py").read_text(encoding="utf-8")
    assert 'Metrics(namespace="chunkwise", service="query")' in app
    assert 'name="QueryErrors"' in app


def test_domain_publishes_slow_application_and_audit_logs(template: dict[str, Any]) -> None:
    logs = _props(template, "OpenSearchDomain")["LogPublishingOptions"]
    assert {"SEARCH_SLOW_LOGS", "INDEX_SLOW_LOGS", "ES_APPLICATION_LOGS", "AUDIT_LOGS"} <= set(logs)
    assert logs["AUDIT_LOGS"]["!If"][0] == "UseFineGrainedAccess"
    fgac = _props(template, "OpenSearchDomain")["AdvancedSecurityOptions"]["!If"]
    assert fgac[0] == "UseFineGrainedAccess" and fgac[1]["Enabled"] is True


def test_vpc_placement_is_offered_for_the_domain_and_every_function(
    template: dict[str, Any],
) -> None:
    assert _props(template, "OpenSearchDomain")["VPCOptions"]["!If"][0] == "InVpc"
    for fn in ("IngestFunction", "QueryFunction", "ReconcileFunction", "AdminFunction"):
        assert _props(template, fn)["VpcConfig"]["!If"][0] == "InVpc", fn


def test_document_and_artifacts_buckets_log_access(template: dict[str, Any]) -> None:
    for bucket in ("DocumentBucket", "ArtifactsBucket"):
        logging = _props(template, bucket)["LoggingConfiguration"]
        assert logging["DestinationBucketName"] == {"!Ref": "AccessLogsBucket"}, bucket


def test_retention_is_scheduled_and_may_erase_artifacts(template: dict[str, Any]) -> None:
    reconcile = _props(template, "ReconcileFunction")
    event = reconcile["Events"]["Retention"]["Properties"]
    assert '"retention"' in event["Input"]
    assert reconcile["Environment"]["Variables"]["CHUNKWISE_RETENTION"] == {
        "!Ref": "RetentionPeriod"
    }
    assert template["Parameters"]["RetentionPeriod"]["Default"] == "7d"
    statements = reconcile["Policies"][0]["Statement"]
    erase = next(s for s in statements if isinstance(s, dict) and s.get("Sid") == "EraseArtifacts")
    assert erase["Action"] == "s3:DeleteObject"
    assert "LifecycleConfiguration" in _props(template, "ArtifactsBucket")


def test_index_prefix_description_names_the_real_read_alias(template: dict[str, Any]) -> None:
    from chunkwise.index.names import IndexNames

    text = template["Parameters"]["IndexPrefix"]["Description"]
    names = IndexNames("p")
    assert "<prefix>-read" not in text
    assert re.search(r"read alias is <prefix>(?!-)", text) and names.read_alias == "p"
    assert "<prefix>-write" in text and names.write_alias == "p-write"


def test_query_role_may_delete_its_point_in_time_and_nothing_else(
    template: dict[str, Any],
) -> None:
    # Searcher.answer reads through a point in time and deletes it afterwards; without
    # the DELETE every search would leave one open until its keep-alive ran out.
    text = str(_props(template, "QueryFunction")["Policies"])
    deletes = [s for s in text.split("'Sid': ")[1:] if "ESHttpDelete" in s]
    assert len(deletes) == 1 and deletes[0].startswith("'OpenSearchPointInTimeDelete'")
    assert "/_search/point_in_time" in deletes[0] and "/*" not in deletes[0]
