"""The query function in access mode ``groups``: every way a caller is refused (401/403),
a bad filter (400 with its path), what a valid identity sees, and the audit line.

The handler (functions/query/app.py) runs with its real settings, endpoint and token
verifier (the local test issuer's keys under tmp_path); behind it, a searcher that
answers from a handful of chunk sources by evaluating the very filter clauses the
real one sends to OpenSearch (tests/metadata_eval.clause_matches), so what a caller
sees is decided by the clauses alone.
"""

from __future__ import annotations

import base64
import copy
import importlib.util
import json
import logging
import sys
import time
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import jwt
import pytest

from chunkwise.errors import ConfigError
from chunkwise.localstack.emulator import LocalContext
from chunkwise.localstack.issuer import LocalIssuer
from chunkwise.metadata import DocumentMetadata, document_fields
from chunkwise.metadata.model import AttributeType, AttributeValue
from chunkwise.search.hybrid import Hit, SearchFilters, build_hit
from chunkwise.search.rerank import Answer, RerankOutcome
from tests.fakes.pipeline import load_event
from tests.metadata_eval import clause_matches

ROOT = Path(__file__).resolve().parents[2]
SECRET_TEXT = "Geheime Gehaltsliste der Geschäftsführung"


def _chunk(doc: str, readers: tuple[str, ...] | None, department: str) -> dict[str, Any]:
    metadata = DocumentMetadata(
        attributes={"department": AttributeValue(AttributeType.STRING, department)},
        readers=readers,
    )
    return {
        "doc_id": doc,
        "source_key": f"incoming/{doc}.md",
        "revision": "v1",
        "chunk_index": 0,
        "start": 0,
        "end": 10,
        "body": f"{SECRET_TEXT} {doc}",
        "kind": "prose",
        "lang": "de",
        "state": "live",
        **document_fields(metadata),
    }


#: A: legal's; B: finance's; C: legal's, another department; N: nobody's (admin only).
CHUNKS = {
    "A": _chunk("A", ("legal",), "legal"),
    "B": _chunk("B", ("finance",), "finance"),
    "C": _chunk("C", ("legal", "finance"), "hr"),
    "N": _chunk("N", None, "legal"),
}


class JudgingSearcher:
    """Answers with every chunk its filters admit, as OpenSearch would."""

    fusion = "client"

    def __init__(self) -> None:
        self.calls: list[SearchFilters] = []

    def _admitted(self, f: SearchFilters) -> list[str]:
        every = {"bool": {"filter": f.clauses()}}
        return [d for d, src in CHUNKS.items() if clause_matches(every, src)]

    def search(self, query: str, k: int, filters: SearchFilters) -> list[Hit]:
        self.calls.append(filters)
        docs = self._admitted(filters)[:k]
        return [build_hit({"_id": d, "_source": CHUNKS[d]}, 1.0, "rrf-client") for d in docs]

    def answer(
        self, query: str, k: int, filters: SearchFilters, *, rerank: bool | None, collapse: bool
    ) -> Answer:
        return Answer(self.search(query, k, filters), RerankOutcome(requested=bool(rerank)))

    def withheld(self, query: str, filters: SearchFilters) -> int:
        return len(self._admitted(filters.without_access())) - len(self._admitted(filters))


@pytest.fixture
def issuer(tmp_path: Path) -> LocalIssuer:
    return LocalIssuer.create(tmp_path / "issuer")


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, issuer: LocalIssuer) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("CHUNKWISE_") or name in ("AWS_ENDPOINT_URL", "OPENSEARCH_URL"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-central-1")
    monkeypatch.setenv("CHUNKWISE_ACCESS_CONTROL", "groups")
    monkeypatch.setenv("CHUNKWISE_ADMIN_GROUP", "admins")
    monkeypatch.setenv("CHUNKWISE_JWT_ISSUER", issuer.issuer)
    monkeypatch.setenv("CHUNKWISE_JWT_AUDIENCE", issuer.audience)
    monkeypatch.setenv("CHUNKWISE_JWT_GROUPS_CLAIM", "groups")
    monkeypatch.setenv("CHUNKWISE_JWT_JWKS_FILE", str(issuer.jwks_path))


def load_query() -> ModuleType:
    """A fresh copy of functions/query/app.py (settings are read at import)."""
    spec = importlib.util.spec_from_file_location(
        f"test_fn_query_{uuid.uuid4().hex[:8]}", ROOT / "functions" / "query" / "app.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def query() -> tuple[ModuleType, JudgingSearcher]:
    mod = load_query()
    searcher = JudgingSearcher()
    mod._SEARCHER = searcher
    return mod, searcher


def request(
    token: str | None = None,
    body: dict[str, Any] | None = None,
    params: dict[str, str] | None = None,
    scheme: str = "Bearer",
) -> dict[str, Any]:
    if params is not None:
        event = copy.deepcopy(load_event("query_function_url.json"))
        event["queryStringParameters"] = params
    else:
        event = copy.deepcopy(load_event("query_function_url_post.json"))
        event["body"] = json.dumps(body or {"query": "Gehalt", "k": 10})
    if token is not None:
        event["headers"]["authorization"] = f"{scheme} {token}"
    return event


def call(mod: ModuleType, event: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, Any]]:
    out = mod.lambda_handler(event, LocalContext())
    return out["statusCode"], json.loads(out["body"]), out["headers"]


def seen(body: dict[str, Any]) -> set[str]:
    return {h["doc_id"] for h in body["hits"]}


# --------------------------------------------------------------------------- refused: 401


def _reason(body: dict[str, Any]) -> str:
    return str(body["error"])


def test_no_token_is_401_and_nothing_is_searched(
    query: tuple[ModuleType, JudgingSearcher],
) -> None:
    mod, searcher = query
    status, body, headers = call(mod, request())
    assert (status, _reason(body)) == (401, "unauthorized (missing)")
    assert headers["www-authenticate"] == "Bearer"
    assert searcher.calls == []
    status, body, _ = call(mod, request("not-a-jwt"))
    assert (status, _reason(body)) == (401, "unauthorized (malformed)")
    status, body, _ = call(mod, request("x", scheme="Basic"))
    assert (status, _reason(body)) == (401, "unauthorized (malformed)")
    assert searcher.calls == []


def test_a_forged_token_is_401(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer, tmp_path: Path
) -> None:
    mod, searcher = query
    forger = LocalIssuer.create(tmp_path / "forger", issuer=issuer.issuer)
    claims = jwt.decode(issuer.mint("mallory", ["admins"]), options={"verify_signature": False})
    forged = jwt.encode(
        claims, forger.private_key, algorithm="ES256", headers={"kid": issuer.key_id}
    )
    status, body, _ = call(mod, request(forged))
    assert (status, _reason(body)) == (401, "unauthorized (bad_signature)")
    # A real token whose payload was edited (groups raised to admins) keeps its signature
    # over the old payload: refused the same way.
    head, _, sig = issuer.mint("mallory", ["staff"]).split(".")
    raised = {**claims, "groups": ["admins"]}
    payload = base64.urlsafe_b64encode(json.dumps(raised).encode()).rstrip(b"=").decode()
    status, body, _ = call(mod, request(f"{head}.{payload}.{sig}"))
    assert (status, _reason(body)) == (401, "unauthorized (bad_signature)")
    assert searcher.calls == []


def test_an_expired_token_is_401(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer
) -> None:
    mod, _ = query
    token = issuer.mint("alice", ["legal"], ttl_seconds=60, now=time.time() - 3600)
    status, body, _ = call(mod, request(token))
    assert (status, _reason(body)) == (401, "unauthorized (expired)")


def test_a_token_of_another_issuer_is_401(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer, tmp_path: Path
) -> None:
    mod, _ = query
    # Signed with our key (say, a second tenant of the same signer), another iss.
    same_key = issuer.mint("alice", ["legal"], extra_claims={"iss": "https://evil.example"})
    status, body, _ = call(mod, request(same_key))
    assert (status, _reason(body)) == (401, "unauthorized (wrong_issuer)")
    # Another issuer with its own keys: its key id is not in our JWKS.
    other = LocalIssuer.create(tmp_path / "other", issuer="https://other.example")
    status, body, _ = call(mod, request(other.mint("alice", ["legal"], audience=issuer.audience)))
    assert (status, _reason(body)) == (401, "unauthorized (unknown_key)")


def test_a_token_for_another_audience_is_401(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer
) -> None:
    mod, _ = query
    status, body, _ = call(mod, request(issuer.mint("alice", ["legal"], audience="other-app")))
    assert (status, _reason(body)) == (401, "unauthorized (wrong_audience)")


def test_alg_none_is_401(query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer) -> None:
    mod, searcher = query
    claims = jwt.decode(issuer.mint("mallory", ["admins"]), options={"verify_signature": False})

    def b64(obj: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    unsigned = f"{b64({'alg': 'none', 'typ': 'JWT', 'kid': issuer.key_id})}.{b64(claims)}."
    status, body, _ = call(mod, request(unsigned))
    assert (status, _reason(body)) == (401, "unauthorized (bad_algorithm)")
    assert searcher.calls == []


# --------------------------------------------------------------------------- refused: 403


@pytest.mark.parametrize("groups", ["legal", "[admins staff]", {"admins": True}, [1]])
def test_a_groups_claim_of_the_wrong_type_is_403(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer, groups: Any
) -> None:
    mod, searcher = query
    token = issuer.mint("alice", extra_claims={"groups": groups})
    status, body, _ = call(mod, request(token))
    assert (status, body) == (403, {"error": "forbidden"})
    assert searcher.calls == []


def test_a_token_without_groups_is_403(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer
) -> None:
    mod, searcher = query
    status, body, _ = call(mod, request(issuer.mint("alice", [])))
    assert (status, body) == (403, {"error": "forbidden"})
    assert searcher.calls == []


@pytest.mark.parametrize(
    "event",
    [
        {"body": {"query": "Gehalt", "groups": ["admins"]}},
        {"body": {"query": "Gehalt", "readers": ["finance"]}},
        {"body": {"query": "Gehalt", "identity": {"sub": "root"}}},
        {"body": {"query": "Gehalt", "Groups": "admins"}},  # any case
        {"body": {"query": "Gehalt", "chunkwise_readers": ["admins"]}},  # the readers key
        {"params": {"q": "Gehalt", "groups": "admins"}},
        {"params": {"q": "Gehalt", "cognito:groups": "admins"}},
        {"params": {"q": "Gehalt", "as": "root"}},
    ],
)
def test_a_request_that_names_its_own_groups_is_403(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer, event: dict[str, Any]
) -> None:
    mod, searcher = query
    token = issuer.mint("alice", ["legal"])
    status, body, _ = call(mod, request(token, event.get("body"), event.get("params")))
    assert (status, body) == (403, {"error": "forbidden"})
    assert searcher.calls == []


def test_the_configured_groups_claim_is_refused_as_a_parameter(
    monkeypatch: pytest.MonkeyPatch, issuer: LocalIssuer
) -> None:
    monkeypatch.setenv("CHUNKWISE_JWT_GROUPS_CLAIM", "https://example.com/roles")
    mod = load_query()
    mod._SEARCHER = JudgingSearcher()
    token = issuer.mint("alice", ["legal"], groups_claim="https://example.com/roles")
    event = request(token, {"query": "Gehalt", "https://example.com/roles": ["admins"]})
    assert call(mod, event)[0] == 403
    assert seen(call(mod, request(token))[1]) == {"A", "C"}


# --------------------------------------------------------------------------- 400


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        ({"andAll": [{"equals": {"key": "department", "value": "legal"}}]}, "$.andAll"),
        ({"orAll": [{"equals": {"key": "a", "value": 1}}, {"like": {}}]}, "$.orAll[1]"),
        ({"listContains": {"key": "tags", "value": 7}}, "$.listContains.value"),
        ({"equals": {"key": "chunkwise_readers", "value": "admins"}}, "$.equals.key"),
    ],
)
def test_a_bad_filter_is_400_with_its_path(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer, raw: Any, path: str
) -> None:
    mod, searcher = query
    token = issuer.mint("alice", ["legal"])
    status, body, _ = call(mod, request(token, {"query": "Gehalt", "filter": raw}))
    assert status == 400
    assert body["detail"].startswith(f"filter {path}:"), body
    assert "admins" not in body["detail"]  # the value is never echoed
    assert searcher.calls == []


def test_a_filter_in_the_query_string_is_json(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer
) -> None:
    mod, _ = query
    token = issuer.mint("alice", ["legal"])
    legal = json.dumps({"equals": {"key": "department", "value": "legal"}})
    status, body, _ = call(mod, request(token, params={"q": "Gehalt", "filter": legal}))
    assert (status, seen(body)) == (200, {"A"})
    status, body, _ = call(mod, request(token, params={"q": "Gehalt", "filter": "{nope"}))
    assert (status, body["detail"]) == (400, "filter: must be JSON (a Retrieve filter object)")


# --------------------------------------------------------------------------- who sees what


def test_a_valid_identity_sees_its_documents_and_not_the_others(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer
) -> None:
    mod, searcher = query
    legal = issuer.mint("alice", ["legal"])
    finance = issuer.mint("bob", ["finance", "staff"])
    admin = issuer.mint("root", ["admins"])
    assert seen(call(mod, request(legal))[1]) == {"A", "C"}
    assert seen(call(mod, request(finance))[1]) == {"B", "C"}
    assert seen(call(mod, request(admin))[1]) == {"A", "B", "C", "N"}  # N: admin only
    # The caller's own filter narrows within what it may read, and no filter widens it:
    wide = {"orAll": [{"equals": {"key": "department", "value": "finance"}},
                      {"notEquals": {"key": "nobody-has-this", "value": "x"}}]}  # fmt: skip
    status, body, _ = call(mod, request(legal, {"query": "Gehalt", "filter": wide}))
    assert (status, seen(body)) == (200, {"A", "C"})
    only_hr = {"equals": {"key": "department", "value": "hr"}}
    assert seen(call(mod, request(legal, {"query": "Gehalt", "filter": only_hr}))[1]) == {"C"}
    # the access clause reached the searcher in the filters it puts into both legs
    assert searcher.calls[0].access == {"terms": {"readers": ["legal"]}}


def test_the_function_ignores_the_authorizers_flattened_claims(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer
) -> None:
    # An HTTP API JWT authorizer passes array claims on flattened ("[admins staff]");
    # the function reads the verified token, never that context.
    mod, _ = query
    event = request(issuer.mint("alice", ["legal"]))
    event["requestContext"]["authorizer"] = {
        "jwt": {"claims": {"sub": "alice", "groups": "[admins finance]"}, "scopes": None}
    }
    assert seen(call(mod, event)[1]) == {"A", "C"}


def test_the_audit_line_says_who_asked_and_what_was_withheld_never_the_text(
    query: tuple[ModuleType, JudgingSearcher],
    issuer: LocalIssuer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mod, _ = query
    # Powertools keeps one handler per logger name, bound to the stdout of its first use.
    mod.logger.registered_handler.setStream(sys.stdout)
    # ... and to the level of its first use (an end-to-end run quiets it to WARNING):
    # the audit line of an answered query is INFO.
    mod.logger.setLevel(logging.INFO)
    question = "Wer verdient am meisten im Vorstand"
    token = issuer.mint("alice", ["legal"])
    status, _, _ = call(mod, request(token, {"query": question, "k": 10}))
    assert status == 200
    call(mod, request(issuer.mint("root", ["admins"]), {"query": question}))
    call(mod, request(issuer.mint("alice", ["legal"], ttl_seconds=1, now=time.time() - 99)))
    out = capsys.readouterr().out
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    audits = [r["audit"] for r in records if "audit" in r]
    assert audits[0] == {
        "status": 200, "access": "groups", "subject": "alice", "issuer": issuer.issuer,
        "groups": 1, "k": 10, "filtered": False, "hits": 2, "withheld": 2, "refused": None,
    }  # fmt: skip
    assert (audits[1]["access"], audits[1]["hits"], audits[1]["withheld"]) == ("admin", 4, 0)
    assert (audits[2]["status"], audits[2]["refused"], audits[2]["subject"]) == (
        401,
        "expired",
        None,
    )
    assert question not in out and SECRET_TEXT not in out and token not in out


def test_keys_that_cannot_be_read_are_503_not_401(
    query: tuple[ModuleType, JudgingSearcher], issuer: LocalIssuer
) -> None:
    mod, _ = query
    token = issuer.mint("alice", ["legal"])
    issuer.jwks_path.unlink()
    status, body, _ = call(mod, request(token))
    assert (status, body) == (
        503,
        {"error": "search temporarily unavailable", "reason": "unavailable"},
    )


# --------------------------------------------------------------------------- mode none


def test_mode_none_ignores_any_token_and_shows_everything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHUNKWISE_ACCESS_CONTROL", "none")
    mod = load_query()
    searcher = JudgingSearcher()
    mod._SEARCHER = searcher
    status, body, _ = call(mod, request("garbage"))
    assert (status, seen(body)) == (200, {"A", "B", "C", "N"})
    assert searcher.calls[0].access is None
    assert call(mod, request(None, {"query": "x", "groups": ["legal"]}))[0] == 403


# --------------------------------------------------------------------------- cold start


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("CHUNKWISE_JWT_ISSUER", "", "CHUNKWISE_JWT_ISSUER: required"),
        ("CHUNKWISE_JWT_AUDIENCE", "", "CHUNKWISE_JWT_AUDIENCE: required"),
        ("CHUNKWISE_JWT_JWKS_FILE", "/nonexistent/jwks.json", "does not exist"),
        ("CHUNKWISE_JWT_JWKS_URL", "https://issuer.example/jwks", "exactly one"),
        ("CHUNKWISE_ADMIN_GROUP", "ad\tmins", "CHUNKWISE_ADMIN_GROUP"),
        ("CHUNKWISE_ACCESS_CONTROL", "everyone", "CHUNKWISE_ACCESS_CONTROL"),
        ("CHUNKWISE_READERS_KEY", "x-amz-bedrock-kb-readers", "CHUNKWISE_READERS_KEY"),
    ],
)
def test_access_settings_are_validated_at_cold_start(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        load_query()
