"""The Lambda handlers with fakes behind them, fed with the sample events in events/."""

from __future__ import annotations

import copy
import importlib.util
import json
import logging
import sys
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from chunkwise.errors import ConfigError, TransientError
from chunkwise.index.names import make_doc_id
from chunkwise.localstack.emulator import LocalContext
from chunkwise.search.hybrid import Citation, Hit, ScoreBreakdown
from chunkwise.search.rerank import Answer, RerankOutcome
from tests.fakes.pipeline import BUCKET, DATA, load_event, make_rig

ROOT = Path(__file__).resolve().parents[2]
MANUAL = (DATA / "manual_en.md").read_bytes()


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("CHUNKWISE_") or name in ("AWS_ENDPOINT_URL", "OPENSEARCH_URL"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("CHUNKWISE_BUCKET", BUCKET)
    monkeypatch.setenv("CHUNKWISE_INPUT_PREFIX", "incoming/")
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-central-1")


def load(name: str) -> ModuleType:
    """A fresh copy of functions/<name>/app.py (settings are read at import)."""
    spec = importlib.util.spec_from_file_location(
        f"test_fn_{name}_{uuid.uuid4().hex[:8]}", ROOT / "functions" / name / "app.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def merged(*names: str) -> dict[str, Any]:
    """One SQS batch made of the records of several sample events."""
    records: list[dict[str, Any]] = []
    for n in names:
        records.extend(copy.deepcopy(load_event(n)["Records"]))  # type: ignore[arg-type]
    return {"Records": records}


@pytest.fixture
def ingest(counter: object) -> tuple[ModuleType, Any]:
    mod = load("ingest")
    rig = make_rig(counter)
    mod._PIPELINE = rig.pipeline
    return mod, rig


def test_settings_are_validated_at_cold_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHUNKWISE_BUCKET")
    with pytest.raises(ConfigError, match="CHUNKWISE_BUCKET"):
        load("ingest")
    monkeypatch.setenv("CHUNKWISE_BUCKET", "b-1")
    monkeypatch.setenv("CHUNKWISE_INPUT_PREFIX", "")
    with pytest.raises(ConfigError, match="artifacts"):
        load("ingest")
    monkeypatch.setenv("CHUNKWISE_INPUT_PREFIX", "incoming/")
    monkeypatch.setenv("CHUNKWISE_OPENSEARCH_AUTH", "kerberos")
    with pytest.raises(ConfigError, match="OPENSEARCH_AUTH"):
        load("ingest")


def test_the_reconcile_function_refuses_a_bad_pipeline_config_at_cold_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHUNKWISE_INPUT_PREFIX", "docs/")
    monkeypatch.setenv("CHUNKWISE_ARTIFACTS_PREFIX", "docs/extracted/")
    with pytest.raises(ConfigError, match="artifacts"):
        load("reconcile")
    monkeypatch.setenv("CHUNKWISE_ARTIFACTS_PREFIX", "extracted/")
    assert load("reconcile").SETTINGS.artifacts_prefix == "extracted/"


def test_put_then_second_version_then_delete(ingest: tuple[ModuleType, Any]) -> None:
    mod, rig = ingest
    doc_id = make_doc_id(BUCKET, "incoming/manual_en.md")
    rig.store.put("incoming/manual_en.md", MANUAL)
    out = mod.lambda_handler(load_event("sqs_s3_put.json"), LocalContext())
    assert out == {"batchItemFailures": []}
    assert rig.index.live(doc_id) == {"v0001"}
    rig.store.put("incoming/manual_en.md", MANUAL + b"\n\nRevised.\n")
    out = mod.lambda_handler(load_event("sqs_s3_put_second_version.json"), LocalContext())
    assert out == {"batchItemFailures": []}
    assert rig.index.live(doc_id) == {"v0002"}
    rig.store.delete("incoming/manual_en.md")
    out = mod.lambda_handler(load_event("sqs_s3_delete_marker.json"), LocalContext())
    assert out == {"batchItemFailures": []}
    assert rig.index.live(doc_id) == set()


def test_test_event_is_skipped(ingest: tuple[ModuleType, Any]) -> None:
    mod, rig = ingest
    out = mod.lambda_handler(load_event("sqs_s3_test_event.json"), LocalContext())
    assert out == {"batchItemFailures": []}
    assert rig.store.heads == 0


def test_poison_in_a_batch_fails_alone(ingest: tuple[ModuleType, Any]) -> None:
    mod, rig = ingest
    rig.store.put("incoming/manual_en.md", MANUAL)
    rig.store.put(
        "incoming/Berichte/Übersicht März 2026.pdf", (DATA / "handbuch_de.pdf").read_bytes()
    )
    rig.store.put(
        "incoming/price list 2026 (A+B).txt", (DATA / "hostile" / "binary.txt").read_bytes()
    )
    event = merged(
        "sqs_s3_put.json",
        "sqs_s3_put_plus_key.json",
        "sqs_s3_test_event.json",
        "sqs_s3_put_non_ascii_key.json",
    )
    out = mod.lambda_handler(event, LocalContext())
    poison_id = event["Records"][1]["messageId"]
    assert out == {"batchItemFailures": [{"itemIdentifier": poison_id}]}
    assert rig.index.live(make_doc_id(BUCKET, "incoming/manual_en.md")) == {"v0001"}
    key = "incoming/Berichte/Übersicht März 2026.pdf"
    assert rig.index.live(make_doc_id(BUCKET, key)) == {"v0002"}


def test_all_failed_batch_is_reported_not_raised(ingest: tuple[ModuleType, Any]) -> None:
    mod, rig = ingest
    rig.store.put(
        "incoming/price list 2026 (A+B).txt", (DATA / "hostile" / "binary.txt").read_bytes()
    )
    event = load_event("sqs_s3_put_plus_key.json")
    out = mod.lambda_handler(event, LocalContext())
    assert out["batchItemFailures"] == [{"itemIdentifier": event["Records"][0]["messageId"]}]  # type: ignore[index]


def test_transient_and_unparseable_are_failures(ingest: tuple[ModuleType, Any]) -> None:
    mod, rig = ingest

    def boom(key: str) -> None:
        raise TransientError("s3 head: SlowDown")

    rig.store.head_current = boom
    event = merged("sqs_s3_put.json")
    bad = copy.deepcopy(event["Records"][0])
    bad["messageId"] = "not-json"
    bad["body"] = "{{{"
    event["Records"].append(bad)
    out = mod.lambda_handler(event, LocalContext())
    assert {f["itemIdentifier"] for f in out["batchItemFailures"]} == {
        event["Records"][0]["messageId"],
        "not-json",
    }


def test_eventbridge_events_via_sqs_and_direct(ingest: tuple[ModuleType, Any]) -> None:
    mod, rig = ingest
    doc_id = make_doc_id(BUCKET, "incoming/handbuch_de.md")
    rig.store.put("incoming/handbuch_de.md", (DATA / "handbuch_de.md").read_bytes())
    out = mod.lambda_handler(load_event("sqs_eventbridge_object_created.json"), LocalContext())
    assert out == {"batchItemFailures": []} and rig.index.live(doc_id) == {"v0001"}
    rig.store.delete("incoming/handbuch_de.md")
    out = mod.lambda_handler(load_event("eventbridge_object_deleted.json"), LocalContext())
    assert out == {"batchItemFailures": []} and rig.index.live(doc_id) == set()


def test_rechunk_message_goes_to_the_generation(ingest: tuple[ModuleType, Any]) -> None:
    from chunkwise.ingest.messages import change_message

    mod, rig = ingest
    rig.store.put("incoming/manual_en.md", MANUAL)
    event = merged("sqs_s3_put.json")
    event["Records"][0]["body"] = change_message(BUCKET, "incoming/manual_en.md", "rechunk", "g9")
    assert mod.lambda_handler(event, LocalContext()) == {"batchItemFailures": []}
    assert rig.indexes["g9"].live(make_doc_id(BUCKET, "incoming/manual_en.md")) == {"v0001"}
    assert rig.index.docs == {}


# --------------------------------------------------------------------------- query


class FakeSearcher:
    fusion = "client"

    def __init__(self, outcome: RerankOutcome | None = None) -> None:
        self.calls: list[tuple[str, int, Any]] = []
        self.options: list[tuple[bool | None, bool]] = []
        self.outcome = outcome or RerankOutcome(requested=False)

    def answer(
        self, query: str, k: int, filters: Any, *, rerank: bool | None, collapse: bool
    ) -> Answer:
        self.options.append((rerank, collapse))
        return Answer(self.search(query, k, filters), self.outcome)

    def search(self, query: str, k: int, filters: Any) -> list[Hit]:
        self.calls.append((query, k, filters))
        return [
            Hit(
                id="d:v1:0",
                doc_id="d",
                chunk_index=0,
                last_modified="2026-03-02T09:00:00.000Z",
                kind="prose",
                lang="de",
                citation=Citation(
                    key="incoming/Übersicht.pdf",
                    revision="v1",
                    page_start=2,
                    page_end=2,
                    start=10,
                    end=20,
                    heading_path=["Wartung"],
                    body="Filter prüfen",
                ),
                score=ScoreBreakdown(fused=0.03, fusion="rrf-client"),
            )
        ]


def test_query_get_and_post() -> None:
    mod = load("query")
    fake = FakeSearcher()
    mod._SEARCHER = fake
    out = mod.lambda_handler(load_event("query_function_url.json"), LocalContext())
    assert out["statusCode"] == 200
    body = json.loads(out["body"])
    assert body["query"] == "Wie hoch ist der Preis?" and body["k"] == 3
    hit = body["hits"][0]
    assert hit["rank"] == 1
    assert hit["citation"] == {
        "key": "incoming/Übersicht.pdf",
        "revision": "v1",
        "page_start": 2,
        "page_end": 2,
        "start": 10,
        "end": 20,
        "heading_path": ["Wartung"],
        "body": "Filter prüfen",
    }
    out = mod.lambda_handler(load_event("query_function_url_post.json"), LocalContext())
    assert out["statusCode"] == 200
    q, k, filters = fake.calls[-1]
    assert (q, k, filters.key_prefix, filters.langs) == (
        "maintenance interval",
        5,
        "incoming/",
        ("en",),
    )


def test_query_passes_rerank_and_collapse_and_reports_a_reranker_fallback() -> None:
    mod = load("query")
    fake = FakeSearcher(
        RerankOutcome(requested=True, candidates=20, took_ms=600.4, error="reranker: timeout")
    )
    mod._SEARCHER = fake
    event = copy.deepcopy(load_event("query_function_url.json"))
    event["queryStringParameters"] = {"q": "x", "rerank": "true", "collapse": "false"}
    out = mod.lambda_handler(event, LocalContext())
    assert out["statusCode"] == 200 and fake.options == [(True, False)]
    assert json.loads(out["body"])["rerank"] == {
        "requested": True,
        "applied": False,
        "candidates": 20,
        "took_ms": 600.4,
        "error": "reranker: timeout",
    }
    event["queryStringParameters"] = {"q": "x"}
    mod.lambda_handler(event, LocalContext())
    assert fake.options[-1] == (None, True)  # the function's configuration decides
    event["queryStringParameters"] = {"q": "x", "rerank": "maybe"}
    out = mod.lambda_handler(event, LocalContext())
    assert out["statusCode"] == 400 and json.loads(out["body"])["detail"].startswith("rerank:")


@pytest.mark.parametrize(
    "params", [{}, {"q": "   "}, {"q": "x", "k": "0"}, {"q": "x", "k": "many"}]
)
def test_query_bad_requests(params: dict[str, str]) -> None:
    mod = load("query")
    mod._SEARCHER = FakeSearcher()
    event = copy.deepcopy(load_event("query_function_url.json"))
    event["queryStringParameters"] = params
    assert mod.lambda_handler(event, LocalContext())["statusCode"] == 400


LONG_QUERY = " ".join(f"wort{i}" for i in range(660))  # ~4,000 chars cut to 2,000 below


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"q": "x", "k": "true"}, "k"),
        ({"q": "x", "k": "1.5"}, "k"),
        ({"q": LONG_QUERY[:2000]}, "query"),
        ({"q": "x", "key_prefix": "incoming/" + "a" * 1_000_000}, "key_prefix"),
        ({"q": "x", "doc_id": ",".join(["0" * 32] * 70_000)}, "doc_id"),
        ({"q": "x", "doc_id": "not-a-doc-id"}, "doc_id"),
        ({"q": "x", "lang": "de," + "x" * 5000}, "lang"),
        ({"q": "x", "kind": "table,<script>"}, "kind"),
    ],
)
def test_query_parameters_are_bounded_and_named(params: dict[str, str], field: str) -> None:
    mod = load("query")
    fake = FakeSearcher()
    mod._SEARCHER = fake
    event = copy.deepcopy(load_event("query_function_url.json"))
    event["queryStringParameters"] = params
    out = mod.lambda_handler(event, LocalContext())
    assert out["statusCode"] == 400 and fake.calls == []
    detail = json.loads(out["body"])["detail"]
    assert detail.startswith(f"{field}:") and len(detail) < 300


def test_query_post_k_must_be_an_integer() -> None:
    mod = load("query")
    mod._SEARCHER = FakeSearcher()
    event = copy.deepcopy(load_event("query_function_url_post.json"))
    event["body"] = json.dumps({"query": "x", "k": True})
    event["isBase64Encoded"] = False
    out = mod.lambda_handler(event, LocalContext())
    assert out["statusCode"] == 400 and json.loads(out["body"])["detail"].startswith("k:")


def test_query_rejected_by_opensearch_is_400_and_internal_errors_are_not_echoed() -> None:
    from chunkwise.errors import QueryRejected

    mod = load("query")
    secret = "search_phase_execution_exception: node-7 /usr/share/opensearch"

    class Rejects(FakeSearcher):
        def search(self, query: str, k: int, filters: Any) -> list[Hit]:
            raise QueryRejected(f"search: clause limit: {secret}")

    class Breaks(FakeSearcher):
        def search(self, query: str, k: int, filters: Any) -> list[Hit]:
            raise RuntimeError(secret)

    class Down(FakeSearcher):
        def search(self, query: str, k: int, filters: Any) -> list[Hit]:
            raise TransientError(secret)

    for searcher, status in ((Rejects(), 400), (Breaks(), 500), (Down(), 503)):
        mod._SEARCHER = searcher
        out = mod.lambda_handler(load_event("query_function_url.json"), LocalContext())
        assert out["statusCode"] == status
        assert "node-7" not in out["body"] and "exception" not in out["body"]


def test_query_unavailable_is_503() -> None:
    mod = load("query")

    class Down(FakeSearcher):
        def search(self, query: str, k: int, filters: Any) -> list[Hit]:
            raise TransientError("OpenSearch unavailable after 3 attempts")

    mod._SEARCHER = Down()
    out = mod.lambda_handler(load_event("query_function_url.json"), LocalContext())
    assert out["statusCode"] == 503


# --------------------------------------------------------------------------- reconcile + admin


def test_reconcile_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkwise.ingest.maintenance import GenerationCheck, SweepResult
    from chunkwise.wiring import operations

    mod = load("reconcile")
    calls: list[Any] = []
    monkeypatch.setattr(
        operations,
        "run_sweep",
        lambda s, enqueue: calls.append(("sweep", enqueue)) or SweepResult(3, 2, ["k"], 1),
    )
    monkeypatch.setattr(
        operations, "start_rechunk", lambda s, g: calls.append(("rechunk", g)) or ("g7", 3)
    )
    monkeypatch.setattr(
        operations,
        "finish_rechunk",
        lambda s, g, force: GenerationCheck(g, 3, 3, (), ()),
    )
    out = mod.lambda_handler(load_event("scheduled_reconcile.json"), LocalContext())
    assert out["drifted"] == 1 and out["enqueued"] == 1 and calls[0] == ("sweep", False)
    out = mod.lambda_handler(load_event("reconcile_rechunk_start.json"), LocalContext())
    assert out == {"action": "rechunk", "generation": "g7", "enqueued": 3}
    out = mod.lambda_handler(load_event("reconcile_rechunk_finish.json"), LocalContext())
    assert out["complete"] and out["swapped"]
    with pytest.raises(ValueError, match="unknown action"):
        mod.lambda_handler({"action": "explode"}, LocalContext())


class _CloudFormationReply:
    """What urlopen returns for the custom resource's PUT to CloudFormation."""

    status = 200

    def __enter__(self) -> _CloudFormationReply:
        return self

    def __exit__(self, *a: object) -> None:
        return None


def _cloudformation_responses(monkeypatch: pytest.MonkeyPatch, mod: Any) -> list[dict[str, Any]]:
    """The response bodies the admin handler PUTs to CloudFormation's pre-signed URL."""
    sent: list[dict[str, Any]] = []

    def urlopen(req: Any, timeout: float) -> _CloudFormationReply:
        assert req.get_method() == "PUT" and req.full_url.startswith("https://cloudformation")
        sent.append(json.loads(req.data))
        return _CloudFormationReply()

    monkeypatch.setattr(mod.urllib.request, "urlopen", urlopen)
    return sent


def test_admin_custom_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkwise import wiring

    mod = load("admin")
    sent = _cloudformation_responses(monkeypatch, mod)
    calls: list[Any] = []
    monkeypatch.setattr(
        wiring,
        "ensure_index",
        lambda s, generation=None: calls.append(s.index_prefix) or {"live_index": "chunks-g1"},
    )
    out = mod.lambda_handler(load_event("cfn_admin_create.json"), LocalContext())
    assert out["Status"] == "SUCCESS" and sent[-1]["Status"] == "SUCCESS"
    assert sent[-1]["PhysicalResourceId"] == "chunkwise-index-chunks"
    assert sent[-1]["Data"] == {"live_index": "chunks-g1", "RerankModelId": ""}
    mod.lambda_handler(load_event("cfn_admin_update.json"), LocalContext())
    assert sent[-1]["Status"] == "SUCCESS" and calls == ["chunks", "chunks"]
    mod.lambda_handler(load_event("cfn_admin_delete.json"), LocalContext())
    assert sent[-1]["Status"] == "SUCCESS" and len(calls) == 2  # delete keeps the data

    def broken(s: Any, generation: Any = None) -> dict[str, Any]:
        raise TransientError("OpenSearch unavailable")

    monkeypatch.setattr(wiring, "ensure_index", broken)
    out = mod.lambda_handler(load_event("cfn_admin_create.json"), LocalContext())
    assert out["Status"] == "FAILED" and sent[-1]["Status"] == "FAILED"
    assert "OpenSearch unavailable" in sent[-1]["Reason"]


def test_admin_sets_up_the_query_model_when_it_has_a_connector_role(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from chunkwise import wiring

    role = "arn:aws:iam::123456789012:role/query-connector"
    monkeypatch.setenv("CHUNKWISE_QUERY_CONNECTOR_ROLE_ARN", role)
    mod = load("admin")
    sent = _cloudformation_responses(monkeypatch, mod)
    monkeypatch.setattr(wiring, "ensure_index", lambda s, generation=None: {"live_index": "c-g1"})
    roles: list[str] = []

    def setup(s: Any) -> dict[str, str]:
        roles.append(s.query_connector_role_arn)
        return {"query_model_id": "m-1", "query_pipeline": "chunkwise-query-m-1"}

    monkeypatch.setattr(wiring, "setup_bedrock_query_model", setup)
    out = mod.lambda_handler(load_event("cfn_admin_create.json"), LocalContext())
    assert out["Status"] == "SUCCESS" and roles == [role]
    # The stack output reads the QueryModelId attribute.
    assert sent[-1]["Data"]["QueryModelId"] == "m-1"
    assert sent[-1]["Data"]["query_pipeline"] == "chunkwise-query-m-1"


def test_admin_sets_up_the_reranker_when_the_stack_names_a_rerank_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from chunkwise import wiring

    monkeypatch.setenv("CHUNKWISE_RERANK_MODEL", "cohere.rerank-v3-5:0")
    monkeypatch.setenv("CHUNKWISE_RERANK_REGION", "eu-central-1")
    monkeypatch.setenv("CHUNKWISE_RERANK_CONNECTOR_ROLE_ARN", "arn:aws:iam::1:role/rerank")
    mod = load("admin")
    sent = _cloudformation_responses(monkeypatch, mod)
    monkeypatch.setattr(wiring, "ensure_index", lambda s, generation=None: {"live_index": "c-g1"})
    seen: list[tuple[str, str, str]] = []

    def setup(s: Any) -> dict[str, str]:
        seen.append((s.rerank_model, s.rerank_region, s.rerank_connector_role_arn))
        return {"rerank_model_id": "r-1", "rerank_pipeline": "chunks-rerank"}

    monkeypatch.setattr(wiring, "setup_bedrock_rerank", setup)
    out = mod.lambda_handler(load_event("cfn_admin_create.json"), LocalContext())
    assert out["Status"] == "SUCCESS"
    assert seen == [("cohere.rerank-v3-5:0", "eu-central-1", "arn:aws:iam::1:role/rerank")]
    assert sent[-1]["Data"]["RerankModelId"] == "r-1"
    assert sent[-1]["Data"]["RerankPipeline"] == "chunks-rerank"


def test_bedrock_rerank_setup_needs_its_role_and_uses_the_stack_region_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from chunkwise.errors import ConfigError
    from chunkwise.settings import AdminSettings
    from chunkwise.wiring import rerank_setup

    captured: list[dict[str, Any]] = []
    monkeypatch.setattr(
        rerank_setup,
        "setup_rerank",
        lambda s, connector, description, client=None: captured.append(connector) or {},
    )
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    monkeypatch.delenv("CHUNKWISE_REGION", raising=False)
    base = {"rerank_model": "cohere.rerank-v3-5:0"}
    with pytest.raises(ConfigError, match="CHUNKWISE_RERANK_CONNECTOR_ROLE_ARN"):
        rerank_setup.setup_bedrock_rerank(AdminSettings(**base))
    rerank_setup.setup_bedrock_rerank(
        AdminSettings(**base, rerank_connector_role_arn="arn:r", rerank_timeout_ms=1500)
    )
    (connector,) = captured
    assert connector["parameters"]["region"] == "us-west-2"
    assert connector["parameters"]["model"] == "cohere.rerank-v3-5:0"
    assert connector["client_config"]["read_timeout"] == 1500


def test_model_path_setting_points_the_tokenizer_at_a_layer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from chunkwise.errors import ConfigError
    from chunkwise.models.files import default_tokenizer_path
    from chunkwise.settings import EmbedderSettings, load_settings

    monkeypatch.setenv("CHUNKWISE_MODEL_PATH", str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="CHUNKWISE_MODEL_PATH"):
        load_settings(EmbedderSettings)
    packaged = default_tokenizer_path()
    monkeypatch.setenv("CHUNKWISE_MODEL_PATH", str(packaged))
    settings = load_settings(EmbedderSettings)
    assert settings.model_path == packaged
    assert default_tokenizer_path(settings.model_path) == packaged


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("{{{", "not JSON"),
        (json.dumps({"Records": [{"s3": {"object": {"key": "incoming/a.md"}}}]}), "bucket.name"),
        (json.dumps({"Records": [{"s3": {"bucket": {"name": BUCKET}}}]}), "object.key"),
        (
            json.dumps(
                {
                    "chunkwise": "rechunk",
                    "bucket": BUCKET,
                    "key": "incoming/a.md",
                    "generation": "../G1",
                }
            ),
            "invalid generation",
        ),
        (json.dumps({"chunkwise": "reconcile", "bucket": BUCKET}), "without key"),
    ],
)
def test_malformed_message_is_logged_with_its_id_and_reason(
    ingest: tuple[ModuleType, Any], caplog: pytest.LogCaptureFixture, body: str, reason: str
) -> None:
    mod, rig = ingest
    event = merged("sqs_s3_put.json")
    event["Records"][0]["messageId"] = "m-malformed"
    event["Records"][0]["body"] = body
    out = mod.lambda_handler(event, LocalContext())
    assert out == {"batchItemFailures": [{"itemIdentifier": "m-malformed"}]}
    logged = [r for r in caplog.records if getattr(r, "message_id", None) == "m-malformed"]
    assert len(logged) == 1 and logged[0].levelname == "ERROR"
    assert reason in logged[0].reason and "malformed" in logged[0].getMessage()
    assert rig.store.heads == 0


def _record_for(key: str, message_id: str) -> dict[str, Any]:
    from chunkwise.ingest.messages import change_message

    record = copy.deepcopy(load_event("sqs_s3_put.json")["Records"][0])  # type: ignore[index]
    record["messageId"] = message_id
    record["body"] = change_message(BUCKET, key, "reconcile")
    return record  # type: ignore[no-any-return]


class FakeClockContext(LocalContext):
    """A Lambda context whose remaining time runs on a fake clock."""

    def __init__(self, clock: list[float], timeout_s: float) -> None:
        super().__init__()
        self._clock = clock
        self._end = clock[0] + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._end - self._clock[0]) * 1000))


def test_poison_documents_fail_alone_with_a_log_line_and_batch_mates_succeed(
    counter: object, caplog: pytest.LogCaptureFixture
) -> None:
    """Over the chunk limit, over its share of the invocation's time: each fails alone
    with a LimitExceeded log line; the good documents of the batch are indexed."""
    mod = load("ingest")
    rig = make_rig(counter, max_chunks_per_document=300)
    mod._PIPELINE = rig.pipeline
    clock = [0.0]
    mod.CLOCK = lambda: clock[0]
    embed = rig.embedder.embed

    def embed_three_seconds_per_step(texts: Any) -> list[list[float]]:
        clock[0] += 3.0
        return embed(texts)  # type: ignore[no-any-return]

    rig.embedder.embed = embed_three_seconds_per_step  # type: ignore[method-assign]
    sentence = "Die Pumpe wird jährlich geprüft und der Filter gewechselt. "
    paras = "\n\n".join(f"Absatz {i}: " + sentence * 25 for i in range(150))
    rig.store.put("incoming/many-chunks.md", "\n\n".join([paras] * 3).encode())  # > 300
    rig.store.put("incoming/slow.md", paras.encode())  # 150-300 chunks: >= 10 steps, 30 s
    rig.store.put("incoming/manual_en.md", MANUAL)
    rig.store.put("incoming/handbuch_de.md", (DATA / "handbuch_de.md").read_bytes())
    event = {
        "Records": [
            _record_for("incoming/slow.md", "m-slow"),
            _record_for("incoming/many-chunks.md", "m-many"),
            _record_for("incoming/manual_en.md", "m-good-1"),
            _record_for("incoming/handbuch_de.md", "m-good-2"),
        ]
    }
    # 10 s reserve + 5 s per waiting record: the slow document (3 waiting) gets 22 s, a
    # fair share (>= 20 s) it overruns: permanent. Embedding steps of 16 take 3 s each.
    out = mod.lambda_handler(event, FakeClockContext(clock, timeout_s=47.0))
    assert sorted(f["itemIdentifier"] for f in out["batchItemFailures"]) == ["m-many", "m-slow"]
    for key in ("incoming/manual_en.md", "incoming/handbuch_de.md"):
        assert rig.index.live(make_doc_id(BUCKET, key)) == {"v0003" if "manual" in key else "v0004"}
    failures = {
        r.key: r.reason for r in caplog.records if getattr(r, "error", "") == "LimitExceeded"
    }
    assert set(failures) == {"incoming/many-chunks.md", "incoming/slow.md"}
    assert "max_chunks_per_document" in failures["incoming/many-chunks.md"]
    assert "document_deadline" in failures["incoming/slow.md"]
    assert "Pumpe" not in " ".join(failures.values())  # never document text
    assert set(rig.index.failures) == {
        make_doc_id(BUCKET, k) for k in ("incoming/slow.md", "incoming/many-chunks.md")
    }


def test_a_bad_sidecar_fails_its_message_with_the_field_logged_and_batch_mates_succeed(
    ingest: tuple[ModuleType, Any], caplog: pytest.LogCaptureFixture
) -> None:
    mod, rig = ingest
    rig.store.put("incoming/a.md", MANUAL)
    secret = "confidential-value-" * 3
    bad = {"metadataAttributes": {"owner": {"value": {"type": "NUMBER", "stringValue": secret}}}}
    rig.store.put("incoming/a.md.metadata.json", json.dumps(bad).encode())
    rig.store.put("incoming/b.md", MANUAL)
    event = {
        "Records": [
            _record_for("incoming/a.md.metadata.json", "m-bad"),
            _record_for("incoming/b.md", "m-good"),
        ]
    }
    out = mod.lambda_handler(event, LocalContext())
    assert out == {"batchItemFailures": [{"itemIdentifier": "m-bad"}]}
    assert rig.index.live(make_doc_id(BUCKET, "incoming/b.md")) == {"v0003"}
    (logged,) = [r for r in caplog.records if getattr(r, "error", "") == "MetadataError"]
    assert logged.key == "incoming/a.md.metadata.json"  # type: ignore[attr-defined]
    assert "metadataAttributes.owner.value" in logged.reason  # type: ignore[attr-defined]
    assert secret not in logged.reason  # type: ignore[attr-defined]
    assert "DLQ" in logged.getMessage()


def test_a_document_left_too_little_time_by_batch_mates_is_retried(
    counter: object, caplog: pytest.LogCaptureFixture
) -> None:
    """The first document uses most of the time; the second gets 7 s (less than a fair
    share): past its deadline it fails as transient, to be retried in another
    invocation, and is not recorded as broken for good. The first document of an
    invocation always had a fair share: over its deadline it fails for good.
    The time goes into loading each document (the batch's documents share their
    embedding calls): the first one, with little of its share left, is embedded
    before its batch-mate loads, not made to wait for it."""
    mod = load("ingest")
    rig = make_rig(counter)
    mod._PIPELINE = rig.pipeline
    clock = [0.0]
    mod.CLOCK = lambda: clock[0]
    load_document = rig.pipeline.documents.load
    seconds = {"incoming/manual_en.md": 10.0, "incoming/handbuch_de.md": 13.0}

    def slow_load(version: Any, *args: Any) -> Any:
        load = load_document(version, *args)
        clock[0] += seconds[version.key]
        return load

    rig.pipeline.documents.load = slow_load  # type: ignore[method-assign]
    rig.store.put("incoming/manual_en.md", MANUAL)
    rig.store.put("incoming/handbuch_de.md", (DATA / "handbuch_de.md").read_bytes())
    event = {
        "Records": [
            _record_for("incoming/manual_en.md", "m-first"),  # granted 12 s, needs 10
            _record_for("incoming/handbuch_de.md", "m-late"),  # granted 7 s, needs 13
        ]
    }
    out = mod.lambda_handler(event, FakeClockContext(clock, timeout_s=27.0))
    assert out == {"batchItemFailures": [{"itemIdentifier": "m-late"}]}
    logged = [r for r in caplog.records if getattr(r, "key", "") == "incoming/handbuch_de.md"]
    assert [r.error for r in logged] == ["DeadlineRetry"]
    assert logged[0].getMessage().startswith("transient failure")
    assert rig.index.failures == {}
    assert rig.index.live(make_doc_id(BUCKET, "incoming/manual_en.md")) == {"v0001"}

    clock[0] = 0.0  # alone in an invocation with 12 s: it had all there was
    out = mod.lambda_handler(
        {"Records": [_record_for("incoming/handbuch_de.md", "m-alone")]},
        FakeClockContext(clock, timeout_s=17.0),
    )
    assert out == {"batchItemFailures": [{"itemIdentifier": "m-alone"}]}
    assert set(rig.index.failures) == {make_doc_id(BUCKET, "incoming/handbuch_de.md")}


def test_malformed_eventbridge_event_is_logged_before_it_fails(
    ingest: tuple[ModuleType, Any], caplog: pytest.LogCaptureFixture
) -> None:
    from chunkwise.ingest.messages import MessageError

    mod, _rig = ingest
    event = {"source": "aws.s3", "id": "ev-1", "detail-type": "Object Created", "detail": {}}
    with pytest.raises(MessageError):
        mod.lambda_handler(event, LocalContext())
    logged = [r for r in caplog.records if getattr(r, "event_id", None) == "ev-1"]
    assert len(logged) == 1 and "object.key" in logged[0].reason


# ------------------------------------------------------------------ what is logged and counted


def _facts(**values: Any) -> Any:
    from chunkwise.ingest.document import ExtractionFacts

    base: dict[str, Any] = {
        "format": "pdf",
        "pages": 7,
        "ocr_pages": 2,
        "pages_without_text": 3,
        "tables": 4,
        "tables_found": 6,
        "tables_stitched": 1,
        "warnings": 5,
    }
    return ExtractionFacts(**(base | values))


def test_the_metrics_of_an_indexed_document_count_its_tokens_and_extraction_facts() -> None:
    from aws_lambda_powertools.metrics import MetricUnit

    from chunkwise.ingest.result import IngestResult

    mod = load("ingest")
    result = IngestResult(
        "incoming/a.pdf",
        "d1",
        "indexed",
        chunks=9,
        runts=1,
        tokens=1234,
        stages={"fetch": 0.5},
        chunk_chars={"p50": 800.0},
        extraction=_facts(),
        extractions=1,
        embedding_calls=2,
    )
    counted = {name: (unit, value) for name, unit, value in mod.document_metrics(result)}
    count = MetricUnit.Count
    assert counted == {
        "Documents_indexed": (count, 1),
        "Extractions": (count, 1),
        "EmbeddingCalls": (count, 2),
        "Chunks": (count, 9),
        "Runts": (count, 1),
        "Tokens": (count, 1234),
        "ChunkChars_p50": (count, 800.0),
        "Tables": (count, 4),
        "TablesStitched": (count, 1),
        "ExtractionWarnings": (count, 5),
        "OcrPages": (count, 2),
        "PagesWithoutText": (count, 3),
        "Pages": (count, 7),
        "Stage_fetch": (MetricUnit.Milliseconds, 500.0),
    }
    fields = result.log_fields()
    assert fields["tokens"] == 1234 and fields["extraction"] == _facts().log_fields()
    assert fields["extraction"]["tables"] == 4 and fields["extraction"]["warnings"] == 5


def test_a_metadata_only_change_is_counted_with_no_extraction_and_no_embedding() -> None:
    from aws_lambda_powertools.metrics import MetricUnit

    from chunkwise.ingest.result import IngestResult

    mod = load("ingest")
    result = IngestResult(
        "incoming/a.pdf", "d1", "indexed", chunks=9, tokens=1234, metadata_only=True
    )
    counted = {name: (unit, value) for name, unit, value in mod.document_metrics(result)}
    count = MetricUnit.Count
    assert counted["MetadataOnly"] == (count, 1)
    assert counted["Extractions"] == (count, 0) and counted["EmbeddingCalls"] == (count, 0)
    fields = result.log_fields()
    assert fields["metadata_only"] is True and fields["extractions"] == 0
    full = IngestResult("incoming/a.pdf", "d1", "indexed", extractions=1, embedding_calls=1)
    assert "MetadataOnly" not in [name for name, _u, _v in mod.document_metrics(full)]


def test_a_document_is_counted_for_what_it_has() -> None:
    from chunkwise.ingest.result import IngestResult

    mod = load("ingest")
    html = IngestResult("incoming/a.html", "d1", "indexed", tokens=5, extraction=_facts(pages=None))
    names = [name for name, _unit, _value in mod.document_metrics(html)]
    assert "Tokens" in names and "Tables" in names and "Pages" not in names
    unchanged = IngestResult("incoming/a.pdf", "d1", "unchanged", stages={"total": 0.1})
    names = [name for name, _unit, _value in mod.document_metrics(unchanged)]
    assert names == ["Documents_unchanged", "Stage_total"]
    assert unchanged.log_fields()["extraction"] is None and unchanged.log_fields()["tokens"] == 0


def test_the_log_line_and_metrics_of_an_upload_carry_its_tokens_and_extraction_report(
    ingest: tuple[ModuleType, Any],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Checked against what was written: the chunks' own token counts, the extraction
    report stored beside the artifact."""
    mod, rig = ingest
    # The handlers' loggers share one logger per service, configured by whoever built it
    # first (an end-to-end run quiets it to WARNING): this test reads INFO lines.
    caplog.set_level(logging.INFO, logger=mod.logger.name)
    written: list[Any] = []
    write_chunks = rig.index.write_chunks

    def spy(loaded: Any) -> Any:
        written.extend(c for item in loaded for c in item.chunks)
        return write_chunks(loaded)

    rig.index.write_chunks = spy
    counted: list[tuple[str, float]] = []
    monkeypatch.setattr(
        mod.metrics, "add_metric", lambda name, unit, value: counted.append((name, value))
    )
    files = {"incoming/catalog.pdf": "catalog_en_repeat.pdf", "incoming/scan.pdf": "scanned_en.pdf"}
    for key, name in files.items():
        rig.store.put(key, (DATA / name).read_bytes())
    event = {"Records": [_record_for(key, f"m-{i}") for i, key in enumerate(files)]}
    assert mod.lambda_handler(event, LocalContext()) == {"batchItemFailures": []}
    logged = {r.key: r for r in caplog.records if r.getMessage() == "ingested"}
    for key in files:
        doc_id = make_doc_id(BUCKET, key)
        revision = rig.store.head_current(key).revision  # type: ignore[union-attr]
        stored = rig.artifacts.files[f"extracted/{doc_id}/{revision}.json"][0]
        report = json.loads(stored)["extraction"]
        assert logged[key].tokens == sum(c.token_count for c in written if c.doc_id == doc_id)
        assert logged[key].extraction == {
            "format": report["format"],
            "pages": report["pages"],
            "ocr_pages": len(report["ocr_pages"]),
            "pages_without_text": len(report["pages_without_text"]),
            "tables": len(report["tables"]),
            "tables_found": report["tables_found"],
            "tables_stitched": report["tables_stitched"],
            "warnings": len(report["warnings"]),
        }
    # the two uploads differ where the facts must tell them apart
    assert logged["incoming/catalog.pdf"].extraction["tables_stitched"] > 0
    assert logged["incoming/scan.pdf"].extraction["pages_without_text"] > 0
    for metric, facts in (("Tokens", "tokens"), ("Tables", "tables"), ("Pages", "pages")):
        values = [r.tokens if facts == "tokens" else r.extraction[facts] for r in logged.values()]
        assert sorted(v for n, v in counted if n == metric) == sorted(values)
    warnings = sorted(v for n, v in counted if n == "ExtractionWarnings")
    assert warnings == sorted(r.extraction["warnings"] for r in logged.values())
