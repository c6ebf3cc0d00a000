"""Shards and replicas of a generation are configurable (settings, template) and every
read and write of one document carries its routing, so a head and its chunks share a
shard however many there are (fake client, no I/O; issue #27)."""

from __future__ import annotations

from typing import Any

import pytest

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.switch import OpenSearchSwitchIndex
from chunkwise.index.heads import Head, absent_head
from chunkwise.index.mapping import index_body
from chunkwise.settings import AdminSettings


def test_layout_comes_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (AdminSettings().index_shards, AdminSettings().index_replicas) == (1, 0)
    monkeypatch.setenv("CHUNKWISE_INDEX_SHARDS", "3")
    monkeypatch.setenv("CHUNKWISE_INDEX_REPLICAS", "1")
    s = AdminSettings()
    assert (s.index_shards, s.index_replicas) == (3, 1)
    body = index_body(8, shards=s.index_shards, replicas=s.index_replicas)
    assert body["settings"]["index"]["number_of_shards"] == 3
    assert body["settings"]["index"]["number_of_replicas"] == 1


class _Indices:
    def __init__(self) -> None:
        self.created: dict[str, Any] = {}
        self.templates: list[Any] = []

    def exists(self, index: str) -> bool:
        return index in self.created

    def create(self, index: str, body: dict[str, Any]) -> None:
        self.created[index] = body

    def put_index_template(self, name: str, body: dict[str, Any]) -> None:
        self.templates.append(body)

    def get_alias(self, name: str) -> dict[str, Any]:
        from opensearchpy.exceptions import NotFoundError

        raise NotFoundError(404, "alias_missing", {})

    def update_aliases(self, body: dict[str, Any]) -> None:
        pass


class _Client:
    def __init__(self) -> None:
        self.indices = _Indices()
        self.bulks: list[list[Any]] = []
        self.mgets: list[dict[str, Any]] = []

    def bulk(self, body: list[Any], params: Any = None) -> Any:
        self.bulks.append(body)
        items = [
            {next(iter(meta)): {"_id": meta[next(iter(meta))]["_id"], "status": 201}}
            for meta in body
            if next(iter(meta)) in ("index", "create", "update", "delete")
        ]
        return {"items": items}

    def mget(self, index: str, body: dict[str, Any], params: Any = None) -> Any:
        self.mgets.append(body)
        return {"docs": [{"_id": d["_id"], "found": False} for d in body["docs"]]}


def test_a_generation_is_created_with_the_layout_asked_for() -> None:
    client = _Client()
    ix = OpenSearchIndex(client)  # type: ignore[arg-type]
    ix.create_generation("g1", dimension=8, shards=3, replicas=1)
    (body,) = client.indices.created.values()
    assert body["settings"]["index"]["number_of_shards"] == 3
    assert body["settings"]["index"]["number_of_replicas"] == 1
    template = client.indices.templates[-1]["template"]["settings"]["index"]
    assert (template["number_of_shards"], template["number_of_replicas"]) == (3, 1)


def test_every_write_and_realtime_read_of_a_document_is_routed_by_its_doc_id() -> None:
    client = _Client()
    port = OpenSearchSwitchIndex(OpenSearchIndex(client))  # type: ignore[arg-type]
    read = absent_head("d1", "k1", [])
    new = Head(doc_id="d1", key="k1", revision="r2", chunks=2, cleanup=(("r1", 2),))
    port.commit_heads([(read, new)])
    port.finish([new])
    port.mget_heads(["d1"])
    port.read_revision("d1", "r2", 2)
    ops = ("index", "create", "update", "delete")
    metas = [line[op] for b in client.bulks for line in b for op in ops if op in line]
    assert len(metas) == 1 + 2 + 2  # the head, the new chunks live, the old superseded
    assert all(m["routing"] == "d1" for m in metas)
    assert all(d["routing"] == "d1" for g in client.mgets for d in g["docs"])


def test_the_template_passes_the_layout_with_production_defaults() -> None:
    import yaml

    from tests.unit.test_template import TEMPLATE, _CfnLoader

    t = yaml.load(TEMPLATE.read_text(encoding="utf-8"), Loader=_CfnLoader)
    params = t["Parameters"]
    assert (params["IndexShards"]["Default"], params["IndexReplicas"]["Default"]) == (2, "auto")
    env = t["Globals"]["Function"]["Environment"]["Variables"]
    assert env["CHUNKWISE_INDEX_SHARDS"] == {"!Ref": "IndexShards"}
    auto = env["CHUNKWISE_INDEX_REPLICAS"]["!If"]
    assert auto[0] == "AutoReplicas" and auto[1] == {"!If": ["SingleNodeDomain", "0", "1"]}
    assert "ReplicasNeedASecondNode" in t["Rules"]


def test_serverless_is_refused_at_deploy_time_and_at_run_time() -> None:
    import yaml

    from chunkwise.errors import ConfigError
    from chunkwise.settings import OpenSearchSettings
    from chunkwise.wiring.clients import opensearch_client
    from tests.unit.test_template import TEMPLATE, _CfnLoader

    t = yaml.load(TEMPLATE.read_text(encoding="utf-8"), Loader=_CfnLoader)
    (assertion,) = t["Rules"]["ServerlessIsRefused"]["Assertions"]
    assert "RuleCondition" not in t["Rules"]["ServerlessIsRefused"]  # every stack
    assert assertion["Assert"] == {"!Equals": [{"!Ref": "OpenSearchKind"}, "es"]}
    for word in ("document ids", "_refresh", "routing", "if_seq_no"):
        assert word in assertion["AssertDescription"]
    with pytest.raises(ConfigError, match="if_seq_no"):
        opensearch_client(OpenSearchSettings(opensearch_auth="sigv4-aoss"))
