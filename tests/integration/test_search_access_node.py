"""Metadata filters and access control end to end on the real node: through `Searcher`
on every query path, the query function's handler, and `chunkwise search` (a process).

60 documents with random metadata and readers (tests/metadata_eval.py) are made
current through the production revision switch and stamped with their metadata, on a
generation whose mapping has the metadata fields. Every document's one chunk matches
the query ``alpha``, so a search with k = 60 must return exactly the documents its
filter admits: the reference evaluator's set (Bedrock's documented semantics computed
in Python), intersected with what the caller may read.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch

from chunkwise.access import AccessMode, AccessPolicy, Identity
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.query_model import delete_query_model
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.embedding.embed import Embedder
from chunkwise.index.names import make_doc_id
from chunkwise.index.versions import ObjectVersion
from chunkwise.localstack import embed_endpoint
from chunkwise.localstack.issuer import LocalIssuer
from chunkwise.metadata import translate
from chunkwise.search.hybrid import Hit, SearchFilters
from chunkwise.settings import Settings
from chunkwise.wiring import setup_local_query_model
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import chunks_from_paragraphs
from tests.integration.live_index import (
    add_metadata_mapping,
    live_test_index,
    stamp_metadata,
    switch_to_current,
)
from tests.integration.test_metadata_filters_node import EVERY_OPERATOR
from tests.metadata_eval import ADMIN, BUCKET, GROUPS, Doc, bedrock_holds, random_docs, readable

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DOCS = 60
QUERY = "alpha"


@pytest.fixture(scope="module")
def corpus(client: OpenSearch, embedder: Embedder) -> Iterator[tuple[OpenSearchIndex, list[Doc]]]:
    with live_test_index(client, embedder, "it-acl") as ix:
        add_metadata_mapping(ix)
        docs = random_docs(random.Random(2024), DOCS)
        s3 = FakeBucket(BUCKET)
        for i, doc in enumerate(docs):
            s3.put_version(doc.source_key, "v1", "2025-03-01T00:00:00Z")
            doc_id = make_doc_id(BUCKET, doc.source_key)

            def load(v: ObjectVersion, d: str = doc_id, n: int = i) -> Any:
                text = f"alpha maintenance report number {n} for pump station {n % 7}"
                return chunks_from_paragraphs(d, v, [text], lang="en", heading="Report")

            switch_to_current(
                doc.source_key, doc_id, s3=s3, index=ix, load_chunks=load, embed=embedder.embed
            )
            stamp_metadata(ix, doc_id, doc.metadata)
        ix.refresh()
        yield ix, docs


@pytest.fixture(scope="module")
def query_model(
    corpus: tuple[OpenSearchIndex, list[Doc]], client: OpenSearch, embedder: Embedder,
    opensearch_url: str,
) -> Iterator[str]:  # fmt: skip
    """The cluster's query model for the corpus's generation (the cluster-embedded path)."""
    url = embed_endpoint.endpoint_url()
    if embed_endpoint.probe(url) is None:
        pytest.fail(f"no embedding endpoint at {url} (scripts/with-services.sh starts one)")
    ix, _ = corpus
    settings = Settings(opensearch_url=opensearch_url, index_prefix=ix.names.prefix)
    info = setup_local_query_model(settings, url, client=client, embedder=embedder)
    try:
        yield info["query_model_id"]
    finally:
        delete_query_model(client, info["query_model_id"])


PATHS = ["client fusion", "server hybrid", "cluster-embedded hybrid", "cluster-embedded client"]


@pytest.fixture(params=PATHS)
def searcher(
    request: pytest.FixtureRequest, corpus: tuple[OpenSearchIndex, list[Doc]], embedder: Embedder
) -> Searcher:
    ix, _ = corpus
    path = request.param
    if path.startswith("cluster"):
        request.getfixturevalue("query_model")
    fusion = "client" if path.endswith("client") or path == "client fusion" else "server"
    embedding = "cluster" if path.startswith("cluster") else "client"
    return Searcher(
        ix.client, embedder, ix.names, fusion=fusion, query_embedding=embedding  # type: ignore[arg-type]
    )


def keys(hits: list[Hit]) -> set[str]:
    return {h.citation.key for h in hits}


def test_every_operator_end_to_end_through_the_searcher(
    searcher: Searcher, corpus: tuple[OpenSearchIndex, list[Doc]]
) -> None:
    _, docs = corpus
    assert len(keys(searcher.search(QUERY, DOCS))) == DOCS  # every chunk matches the query
    selective = 0
    for name, raw in EVERY_OPERATOR.items():
        expected = {d.source_key for d in docs if bedrock_holds(raw, d)}
        f = SearchFilters(metadata_filter=translate(raw, source_bucket=BUCKET))
        got = keys(searcher.search(QUERY, DOCS, f))
        assert got == expected, (name, sorted(got ^ expected)[:5])
        selective += 0 < len(expected) < DOCS
    assert selective >= len(EVERY_OPERATOR) - 4  # the checks select something, not all


def _identity(*groups: str) -> Identity:
    return Identity(f"user-{'-'.join(groups)}", "https://issuer.example", frozenset(groups))


def test_an_identity_sees_what_its_groups_may_read_and_nothing_else(
    searcher: Searcher, corpus: tuple[OpenSearchIndex, list[Doc]]
) -> None:
    _, docs = corpus
    policy = AccessPolicy(AccessMode.GROUPS, admin_group=ADMIN)
    x, y = _identity(GROUPS[0]), _identity(GROUPS[1], GROUPS[2])
    seen_x = keys(searcher.search(QUERY, DOCS, identity=x, access=policy))
    seen_y = keys(searcher.search(QUERY, DOCS, identity=y, access=policy))
    assert seen_x == {d.source_key for d in docs if readable(d, sorted(x.groups))}
    assert seen_y == {d.source_key for d in docs if readable(d, sorted(y.groups))}
    # a chunk X sees and Y does not, and the other way round: the test decides something
    assert seen_x - seen_y and seen_y - seen_x
    no_readers = {d.source_key for d in docs if not d.metadata.readers}
    assert no_readers and not no_readers & (seen_x | seen_y)
    admin = keys(searcher.search(QUERY, DOCS, identity=_identity(ADMIN), access=policy))
    assert admin == {d.source_key for d in docs}
    # the caller's filter narrows within its access and never widens it
    wide = {"orAll": [{"notEquals": {"key": "k0", "value": "no-such-value"}},
                      {"equals": {"key": "k1", "value": 1}}]}  # fmt: skip
    f = SearchFilters(metadata_filter=translate(wide))
    assert keys(searcher.search(QUERY, DOCS, f, identity=x, access=policy)) == seen_x


def test_the_withheld_count_is_what_access_kept_back(
    corpus: tuple[OpenSearchIndex, list[Doc]], embedder: Embedder
) -> None:
    ix, docs = corpus
    searcher = Searcher(ix.client, embedder, ix.names, fusion="client")
    policy = AccessPolicy(AccessMode.GROUPS, admin_group=ADMIN)
    x = _identity(GROUPS[0])
    readable_x = sum(readable(d, [GROUPS[0]]) for d in docs)
    assert searcher.withheld(QUERY, SearchFilters(), identity=x, access=policy) == (
        DOCS - readable_x
    )
    assert searcher.withheld(QUERY, SearchFilters(), identity=_identity(ADMIN), access=policy) == 0


# --------------------------------------------------------------------------- handler, CLI


@pytest.fixture
def issuer(tmp_path: Path) -> LocalIssuer:
    return LocalIssuer.create(tmp_path / "issuer")


def test_the_query_function_shows_x_a_chunk_it_hides_from_y(
    corpus: tuple[OpenSearchIndex, list[Doc]],
    embedder: Embedder,
    issuer: LocalIssuer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.unit.test_query_access import call, load_query, request

    ix, docs = corpus
    for name, value in {
        "CHUNKWISE_ACCESS_CONTROL": "groups",
        "CHUNKWISE_ADMIN_GROUP": ADMIN,
        "CHUNKWISE_JWT_ISSUER": issuer.issuer,
        "CHUNKWISE_JWT_AUDIENCE": issuer.audience,
        "CHUNKWISE_JWT_GROUPS_CLAIM": "groups",
        "CHUNKWISE_JWT_JWKS_FILE": str(issuer.jwks_path),
        "CHUNKWISE_BUCKET": BUCKET,
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_DISABLED": "true",
    }.items():
        monkeypatch.setenv(name, value)
    mod = load_query()
    mod._SEARCHER = Searcher(ix.client, embedder, ix.names)
    x, y = issuer.mint("x", [GROUPS[0]]), issuer.mint("y", [GROUPS[1], GROUPS[2]])
    body = {"query": QUERY, "k": 50}
    status, seen_x, _ = call(mod, request(x, body))
    assert status == 200
    got_x = {h["citation"]["key"] for h in seen_x["hits"]}
    got_y = {h["citation"]["key"] for h in call(mod, request(y, body))[1]["hits"]}
    assert got_x == {d.source_key for d in docs if readable(d, [GROUPS[0]])}
    assert got_y == {d.source_key for d in docs if readable(d, [GROUPS[1], GROUPS[2]])}
    assert got_x - got_y and got_y - got_x
    # with a filter, in the query string, as a raw client would send it
    raw = {"startsWith": {"key": "x-amz-bedrock-kb-source-uri", "value": f"s3://{BUCKET}/doc1"}}
    event = request(x, params={"q": QUERY, "k": "50", "filter": json.dumps(raw)})
    got = {h["citation"]["key"] for h in call(mod, event)[1]["hits"]}
    assert got == {k for k in got_x if k.startswith("doc1")} and got
    assert call(mod, request(None, body))[0] == 401


_SCRIPT = Path(sys.executable).with_name("chunkwise")
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "chunkwise.cli.main"]


def _chunkwise_search(
    url: str, ix: OpenSearchIndex, *args: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUNKWISE_")}
    env["CHUNKWISE_BUCKET"] = BUCKET
    cmd = [*CLI, "search", QUERY, "--k", "50", "--json", "--url", url]
    cmd += ["--prefix", ix.names.prefix, *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=False)


def test_chunkwise_search_as_x_and_as_y(
    corpus: tuple[OpenSearchIndex, list[Doc]], tmp_path: Path, opensearch_url: str
) -> None:
    ix, docs = corpus
    issuer_dir = str(tmp_path / "issuer")

    def as_(groups: list[str], *extra: str) -> set[str]:
        who = ["--as", "someone", "--groups", ",".join(groups), "--issuer-dir", issuer_dir]
        done = _chunkwise_search(opensearch_url, ix, *who, *extra)
        assert done.returncode == 0, done.stderr
        assert f"searching as someone (groups: {', '.join(sorted(groups))})" in done.stderr
        return {json.loads(line)["citation"]["key"] for line in done.stdout.splitlines()}

    seen_x, seen_y = as_([GROUPS[0]]), as_([GROUPS[3]])
    assert seen_x == {d.source_key for d in docs if readable(d, [GROUPS[0]])}
    assert seen_y == {d.source_key for d in docs if readable(d, [GROUPS[3]])}
    assert seen_x - seen_y and seen_y - seen_x
    only_true = {"equals": {"key": "k2", "value": True}}
    filtered = as_([GROUPS[0]], "--filter", json.dumps(only_true))
    assert filtered == {
        d.source_key for d in docs if readable(d, [GROUPS[0]]) and bedrock_holds(only_true, d)
    }
    # a token that does not verify is refused (exit 3), a bad filter names its path (2)
    issuer = LocalIssuer.load(Path(issuer_dir))
    expired = issuer.mint("x", [GROUPS[0]], ttl_seconds=1, now=1_000_000_000)
    done = _chunkwise_search(opensearch_url, ix, "--token", expired, "--issuer-dir", issuer_dir)
    assert done.returncode == 3 and "expired" in done.stderr and not done.stdout
    bad = _chunkwise_search(opensearch_url, ix, "--filter", '{"in": {"key": "k0", "value": []}}')
    assert bad.returncode == 2 and "$.in.value" in bad.stderr
