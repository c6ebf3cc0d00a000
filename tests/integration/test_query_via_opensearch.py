"""Querying through OpenSearch itself: the local node embeds the query (ML Commons).

The node's ML Commons model calls chunkwise's loopback embedding endpoint (started by
`scripts/with-services.sh` / `chunkwise local up`); the test registers it for its own
index prefix, exactly as `chunkwise local up` does, and checks

- one vector space: the cluster's query vector equals chunkwise's own (cosine >= 0.9999),
- a raw HTTP ``hybrid`` query (BM25 + ``neural`` with ``query_text``, no vector, no
  pipeline, no model id) on the read alias returns chunkwise's own top 5, en and de,
- superseded revisions never come back, on either path.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.query_model import delete_query_model, generation_query_model
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.cli import embed_endpoint
from chunkwise.index.bodies import ObjectVersion, make_doc_id
from chunkwise.models.minilm import MiniLMEmbedder
from chunkwise.search.hybrid import Hit
from chunkwise.settings import Settings
from chunkwise.wiring import setup_local_query_model
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import chunks_from_paragraphs
from tests.integration.conftest import OsHttp
from tests.integration.live_index import live_test_index, switch_to_current

pytestmark = pytest.mark.integration

BUCKET = "bucket"
OLD, NEW = "2025-01-10T00:00:00Z", "2025-06-01T00:00:00Z"

# key -> (lang, [(revision, last_modified, paragraphs)]); the last revision is current.
CORPUS: dict[str, tuple[str, list[tuple[str, str, list[str]]]]] = {
    "en/pump.md": (
        "en",
        [
            (
                "r1",
                OLD,
                [
                    "Check the inlet filter of the X17 pump every 500 operating hours.",
                    "A clogged filter shows as a pressure drop at the outlet gauge.",
                    "Replace the shaft seal when water drips from the housing.",
                ],
            ),
            (
                "r2",
                NEW,
                [
                    "Check the inlet filter of the X17 pump every 250 operating hours.",
                    "A clogged filter shows as a pressure drop at the outlet gauge.",
                    "Replace the shaft seal when water drips from the housing.",
                    "Store the pump frost-free; drain it before winter.",
                ],
            ),
        ],
    ),
    "en/lease.md": (
        "en",
        [
            (
                "v1",
                OLD,
                [
                    "The tenant may terminate the lease with three months notice in writing.",
                    "Rent is due on the first working day of each month by bank transfer.",
                    "Pets are allowed only with the landlord's prior written consent.",
                    "The deposit is returned within six weeks after the keys are handed back.",
                ],
            )
        ],
    ),
    "en/travel.md": (
        "en",
        [
            (
                "v1",
                OLD,
                [
                    "For business trips to Berlin, the daily allowance is 28 EUR.",
                    "A lost laptop must be reported to the IT desk within 24 hours.",
                    "Train travel is preferred over flights for trips under 500 km.",
                ],
            )
        ],
    ),
    "de/pumpe.md": (
        "de",
        [
            (
                "r1",
                OLD,
                [
                    "Der Einlassfilter der Pumpe X17 ist alle 500 Betriebsstunden zu prüfen.",
                    "Ein verstopfter Filter zeigt sich als Druckabfall am Auslassmanometer.",
                ],
            ),
            (
                "r2",
                NEW,
                [
                    "Der Einlassfilter der Pumpe X17 ist alle 250 Betriebsstunden zu prüfen.",
                    "Ein verstopfter Filter zeigt sich als Druckabfall am Auslassmanometer.",
                    "Die Wellendichtung ist zu tauschen, wenn Wasser aus dem Gehäuse tropft.",
                    "Die Pumpe frostfrei lagern und vor dem Winter entleeren.",
                ],
            ),
        ],
    ),
    "de/mietvertrag.md": (
        "de",
        [
            (
                "v1",
                OLD,
                [
                    "Die Kündigungsfrist für den Mieter beträgt drei Monate zum Monatsende.",
                    "Die Miete ist jeweils am dritten Werktag des Monats im Voraus zu zahlen.",
                    "Haustiere dürfen nur mit vorheriger Zustimmung des Vermieters gehalten "
                    "werden.",
                    "Die Kaution wird sechs Wochen nach Rückgabe der Schlüssel erstattet.",
                ],
            )
        ],
    ),
    "de/reise.md": (
        "de",
        [
            (
                "v1",
                OLD,
                [
                    "Für Dienstreisen nach Berlin beträgt das Tagegeld 28 EUR.",
                    "Ein verlorener Laptop ist innerhalb von 24 Stunden dem IT-Service zu melden.",
                    "Bahnreisen sind bei Strecken unter 500 km dem Flug vorzuziehen.",
                ],
            )
        ],
    ),
}

QUESTIONS: list[tuple[str, str]] = [
    ("en", "How often must the inlet filter be checked?"),
    ("en", "What does a pressure drop at the outlet mean?"),
    ("en", "How can the renter end the contract?"),
    ("en", "When do I get my deposit back?"),
    ("en", "What should I do if my laptop is lost on a trip?"),
    ("en", "daily allowance Berlin"),
    ("de", "Wie oft muss der Einlassfilter geprüft werden?"),
    ("de", "Wann muss die Wellendichtung getauscht werden?"),
    ("de", "Welche Kündigungsfrist gilt für den Mieter?"),
    ("de", "Wann bekomme ich die Kaution zurück?"),
    ("de", "Laptop verloren auf Dienstreise"),
    ("de", "Tagegeld Berlin"),
]

SUPERSEDED = {("en/pump.md", "r1"), ("de/pumpe.md", "r1")}
TOP = 5
WINDOW = 20  # chunkwise asks for k * 4 candidates and cuts to k


def _ingest(ix: OpenSearchIndex, embedder: MiniLMEmbedder) -> None:
    s3 = FakeBucket(BUCKET)
    for key, (lang, revisions) in CORPUS.items():
        doc = make_doc_id(BUCKET, key)
        for revision, modified, paras in revisions:
            s3.put_version(key, revision, modified)

            def load(
                v: ObjectVersion, d: str = doc, p: Sequence[str] = paras, la: str = lang
            ) -> Any:
                return chunks_from_paragraphs(d, v, p, lang=la, heading="Section")

            switch_to_current(key, doc, s3=s3, index=ix, load_chunks=load, embed=embedder.embed)
    ix.refresh()


@pytest.fixture(scope="module")
def endpoint_url(embedder: MiniLMEmbedder) -> str:
    url = embed_endpoint.endpoint_url()
    info = embed_endpoint.probe(url)
    if info is None:
        pytest.fail(
            f"no embedding endpoint at {url}: start it with "
            "`python -m chunkwise.cli.embed_endpoint up`"
            " (scripts/with-services.sh and `chunkwise local up` do)",
            pytrace=False,
        )
    assert info["model"] == embedder.name, f"the endpoint serves {info}, tests use {embedder.name}"
    return url


@pytest.fixture(scope="module")
def served(
    client: OpenSearch, embedder: MiniLMEmbedder, endpoint_url: str, opensearch_url: str
) -> Iterator[tuple[OpenSearchIndex, dict[str, str]]]:
    """A live generation with old and current revisions, served by a query model."""
    with live_test_index(client, embedder, "it-mlq") as ix:
        _ingest(ix, embedder)
        settings = Settings(opensearch_url=opensearch_url, index_prefix=ix.names.prefix)
        info = setup_local_query_model(settings, endpoint_url, client=client, embedder=embedder)
        try:
            yield ix, info
        finally:
            delete_query_model(client, info["query_model_id"])


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def test_the_cluster_embeds_a_query_into_chunkwise_vector_space(
    served: tuple[OpenSearchIndex, dict[str, str]], os_http: OsHttp, embedder: MiniLMEmbedder
) -> None:
    # The text_embedding processor runs the same ML Commons inference as a neural
    # query (text in, connector pre-process + request template, post-process out).
    _, info = served
    docs = [{"_source": {"q": q}} for _, q in QUESTIONS]
    resp = os_http(
        "POST",
        "/_ingest/pipeline/_simulate",
        {
            "pipeline": {
                "processors": [
                    {
                        "text_embedding": {
                            "model_id": info["query_model_id"],
                            "field_map": {"q": "v"},
                        }
                    }
                ]
            },
            "docs": docs,
        },
    )
    worst = 1.0
    for (_, q), doc in zip(QUESTIONS, resp["docs"], strict=True):
        cluster = doc["doc"]["_source"]["v"]
        ours = embedder.embed_query(q)
        assert len(cluster) == len(ours) == embedder.dimension
        worst = min(worst, _cosine(cluster, ours))
    assert worst >= 0.9999, worst


def test_the_generation_records_its_query_model(
    served: tuple[OpenSearchIndex, dict[str, str]], os_http: OsHttp
) -> None:
    ix, info = served
    index = info["query_model_index"]
    assert index == ix.live_generation()
    assert generation_query_model(ix.client, ix.names.read_alias) == info["query_model_id"]
    settings = os_http("GET", f"/{index}/_settings/index.search.default_pipeline")
    assert (
        settings[index]["settings"]["index"]["search"]["default_pipeline"]
        == (info["query_pipeline"])
    )


def _raw_hybrid(question: str, lang: str) -> dict[str, Any]:
    """What any OpenSearch client sends (samdocs/query-from-any-client.md): BM25 on the
    text fields, the language's field boosted, plus the best table row; and the query
    text for k-NN. No vector, no model id, no pipeline: the index default does that."""
    boosted = {"en": ["text_en^2", "text_de", "text"], "de": ["text_en", "text_de^2", "text"]}
    live = [{"term": {"state": "live"}}]
    return {
        "size": WINDOW,
        "_source": {"excludes": ["embedding", "text_en", "text_de", "rows"]},
        "query": {
            "hybrid": {
                "queries": [
                    {
                        "bool": {
                            "must": [{"multi_match": {"query": question, "fields": boosted[lang]}}],
                            "should": [
                                {
                                    "nested": {
                                        "path": "rows",
                                        "score_mode": "max",
                                        "ignore_unmapped": True,
                                        "query": {
                                            "multi_match": {
                                                "query": question,
                                                "fields": [f"rows.{f}" for f in boosted[lang]],
                                            }
                                        },
                                    }
                                }
                            ],
                            "filter": live,
                        }
                    },
                    {
                        "neural": {
                            "embedding": {
                                "query_text": question,
                                "k": WINDOW,
                                "filter": {"bool": {"filter": live}},
                            }
                        }
                    },
                ]
            }
        },
    }


def _raw_bm25(question: str, lang: str) -> dict[str, Any]:
    body = _raw_hybrid(question, lang)
    body["query"] = body["query"]["hybrid"]["queries"][0]
    return body


def _ids(hits: Sequence[Hit]) -> list[tuple[str, str, int]]:
    return [(h.citation.key, h.revision, h.chunk_index) for h in hits]


def _raw_ids(resp: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [
        (h["_source"]["source_key"], h["_source"]["revision"], h["_source"]["chunk_index"])
        for h in resp["hits"]["hits"]
    ]


class _EveryLanguage:
    """The test's model, taken to read every language: chunkwise then runs hybrid for
    German questions too, as it does with a multilingual model."""

    languages = None

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@pytest.mark.parametrize(("lang", "question"), QUESTIONS, ids=[q for _, q in QUESTIONS])
def test_a_raw_hybrid_query_returns_chunkwise_top_5(
    served: tuple[OpenSearchIndex, dict[str, str]],
    os_http: OsHttp,
    embedder: MiniLMEmbedder,
    lang: str,
    question: str,
) -> None:
    ix, _ = served
    own = Searcher(ix.client, _EveryLanguage(embedder), ix.names, fusion="server")  # type: ignore[arg-type]
    ours = _ids(own.search(question, TOP, lang=lang))
    read_alias = ix.names.read_alias
    raw_hybrid = _raw_ids(os_http("POST", f"/{read_alias}/_search", _raw_hybrid(question, lang)))
    assert len(ours) == TOP
    assert raw_hybrid[:TOP] == ours
    assert not SUPERSEDED & {(k, r) for k, r, _ in raw_hybrid}


@pytest.mark.parametrize(("lang", "question"), QUESTIONS, ids=[q for _, q in QUESTIONS])
def test_a_language_the_model_does_not_read_is_bm25_on_both_sides(
    served: tuple[OpenSearchIndex, dict[str, str]],
    os_http: OsHttp,
    embedder: MiniLMEmbedder,
    lang: str,
    question: str,
) -> None:
    ix, _ = served
    own = Searcher(ix.client, embedder, ix.names, fusion="server")
    if own.embedder_reads(lang):
        pytest.skip(f"{embedder.name} reads {lang}: covered by the hybrid comparison")
    # chunkwise does not ask a model for similarity in a language it was not trained on
    # (Embedder.languages); the same question sent as BM25 is what it runs.
    ours = _ids(own.search(question, TOP, lang=lang))
    read_alias = ix.names.read_alias
    raw_bm25 = _raw_ids(os_http("POST", f"/{read_alias}/_search", _raw_bm25(question, lang)))
    assert ours and raw_bm25[:TOP] == ours
    assert not SUPERSEDED & {(k, r) for k, r, _ in raw_bm25}


@pytest.mark.parametrize("fusion", ["server", "client"])
def test_cluster_and_client_embedding_rank_alike(
    served: tuple[OpenSearchIndex, dict[str, str]], embedder: MiniLMEmbedder, fusion: str
) -> None:
    ix, _ = served
    every = _EveryLanguage(embedder)  # both paths run k-NN for German questions too
    mine = Searcher(ix.client, every, ix.names, fusion=fusion)  # type: ignore[arg-type]
    cluster = Searcher(
        ix.client,
        every,  # type: ignore[arg-type]
        ix.names,
        fusion=fusion,
        query_embedding="cluster",  # type: ignore[arg-type]
    )
    for lang, question in QUESTIONS:
        assert _ids(cluster.search(question, TOP, lang=lang)) == _ids(
            mine.search(question, TOP, lang=lang)
        ), question
