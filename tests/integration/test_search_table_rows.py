"""Row-level BM25 on a real node: a cell question finds the table row, not the intro."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.embedding.embed import Embedder
from chunkwise.index.names import make_doc_id
from chunkwise.search.hybrid import SearchFilters, bm25_clause
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import chunks_from_paragraphs
from tests.integration.live_index import live_test_index, switch_to_current

pytestmark = pytest.mark.integration

BUCKET = "bucket"
KEY = "de/stromtarife.pdf"
# A short intro that talks about the columns, then the table: the shape of a
# one-page price list whose intro and table do not fit in one chunk.
PARAGRAPHS = [
    "Alle Stromtarife gelten pro Haushalt. Der Grundpreis wird monatlich berechnet, "
    "der Arbeitspreis pro Kilowattstunde. Die Laufzeit beginnt mit der Lieferung.",
    "| Tarif | Grundpreis | Arbeitspreis | Laufzeit | Kündigungsfrist |\n"
    "| --- | --- | --- | --- | --- |\n"
    "| Basis | 9,90 € | 32,1 ct | 1 Monat | 2 Wochen |\n"
    "| Öko | 11,90 € | 34,5 ct | 12 Monate | 1 Monat |\n"
    "| Fix | 12,90 € | 30,9 ct | 24 Monate | 3 Monate |\n"
    "| Wärme | 14,90 € | 28,4 ct | 12 Monate | 1 Monat |\n"
    "| Gewerbe | 19,90 € | 27,9 ct | 36 Monate | 3 Monate |",
]
QUESTION = "Wie hoch ist der Grundpreis pro Haushalt im Tarif Fix?"


@pytest.fixture(scope="module")
def tariff_index(client: OpenSearch, embedder: Embedder) -> Iterator[OpenSearchIndex]:
    with live_test_index(client, embedder, "it-rows") as ix:
        _ingest(ix, embedder)
        yield ix


def _ingest(ix: OpenSearchIndex, embedder: Embedder) -> None:
    s3 = FakeBucket(BUCKET)
    s3.put_version(KEY, "v1", "2025-03-01T00:00:00Z")
    doc = make_doc_id(BUCKET, KEY)
    switch_to_current(
        KEY,
        doc,
        s3=s3,
        index=ix,
        load_chunks=lambda v: chunks_from_paragraphs(
            doc, v, PARAGRAPHS, lang="de", kind="table", heading="Stromtarife"
        ),
        embed=embedder.embed,
    )


def test_rows_are_indexed_but_not_returned(tariff_index: OpenSearchIndex) -> None:
    client = tariff_index.client
    body = {"query": {"nested": {"path": "rows", "query": {"match": {"rows.text_de": "Fix"}}}}}
    resp = client.search(index=tariff_index.names.read_alias, body=body)
    assert [h["_source"]["chunk_index"] for h in resp["hits"]["hits"]] == [1]
    assert len(resp["hits"]["hits"][0]["_source"]["rows"]) == 5


@pytest.mark.parametrize("fusion", ["client", "server"])
def test_cell_question_ranks_the_table_first(
    tariff_index: OpenSearchIndex, embedder: Embedder, fusion: str
) -> None:
    client, alias = tariff_index.client, tariff_index.names.read_alias
    # Chunk text alone: the short intro matches "Grundpreis", "pro", "Haushalt"
    # and wins over the table, whose only other match is one cell ("Fix").
    plain = {"query": {"bool": {"must": [bm25_clause(QUESTION, "de")]}}}
    resp = client.search(index=alias, body=plain)
    assert resp["hits"]["hits"][0]["_source"]["chunk_index"] == 0
    # With the best row's score (German query: BM25 only, the embedder is English).
    s = Searcher(client, embedder, tariff_index.names, fusion=fusion)  # type: ignore[arg-type]
    hits = s.search(QUESTION, k=2, filters=SearchFilters())
    assert [h.chunk_index for h in hits] == [1, 0]
    assert "| Fix | 12,90 € |" in hits[0].citation.body
