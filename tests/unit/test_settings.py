"""One settings model per function, from mixins; validated once, errors name the variable."""

from __future__ import annotations

import pytest

from chunkwise.errors import ConfigError
from chunkwise.settings import (
    AdminSettings,
    IngestSettings,
    QuerySettings,
    ReconcileSettings,
    Settings,
    load_settings,
)
from chunkwise.wiring import pipeline_config


def test_each_function_reads_only_its_own_concerns() -> None:
    assert "bucket" in IngestSettings.model_fields
    assert "bucket" not in QuerySettings.model_fields
    assert "bucket" not in AdminSettings.model_fields
    assert "query_embedding" in QuerySettings.model_fields
    assert "query_embedding" not in IngestSettings.model_fields
    assert "retention" in ReconcileSettings.model_fields
    assert "queue_url" in ReconcileSettings.model_fields
    assert "queue_url" not in IngestSettings.model_fields
    assert "query_connector_role_arn" in AdminSettings.model_fields
    assert {"access_control", "admin_group", "jwt_issuer"} <= set(QuerySettings.model_fields)
    assert "access_control" not in IngestSettings.model_fields
    assert "query_connector_role_arn" not in QuerySettings.model_fields
    every = set().union(
        *(m.model_fields for m in (IngestSettings, QuerySettings, ReconcileSettings, AdminSettings))
    )
    assert set(Settings.model_fields) == every


def test_a_function_with_a_bucket_requires_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHUNKWISE_BUCKET", raising=False)
    with pytest.raises(ConfigError, match="CHUNKWISE_BUCKET: required"):
        load_settings(IngestSettings)
    with pytest.raises(ConfigError, match="CHUNKWISE_BUCKET: required"):
        load_settings(ReconcileSettings)
    assert load_settings(QuerySettings).index_prefix == "chunks"
    monkeypatch.setenv("CHUNKWISE_BUCKET", "docs")
    assert pipeline_config(load_settings(IngestSettings)).bucket == "docs"


def test_a_bad_value_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKWISE_QUERY_EMBEDDING", "telepathy")
    with pytest.raises(ConfigError, match="CHUNKWISE_QUERY_EMBEDDING"):
        load_settings(QuerySettings)
    # The ingest function does not read it, so it does not fail on it.
    monkeypatch.setenv("CHUNKWISE_BUCKET", "docs")
    assert load_settings(IngestSettings).bucket == "docs"


def test_the_opensearch_url_has_two_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHUNKWISE_OPENSEARCH_URL", raising=False)
    monkeypatch.setenv("OPENSEARCH_URL", "http://127.0.0.1:9999")
    assert load_settings(QuerySettings).opensearch_url == "http://127.0.0.1:9999"
    monkeypatch.setenv("CHUNKWISE_OPENSEARCH_URL", "http://127.0.0.1:8888")
    assert load_settings(AdminSettings).opensearch_url == "http://127.0.0.1:8888"
