"""Pure search code: query bodies, RRF, newest-revision filter, span dedupe, hits."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkwise.search.fusion import parse_fusion, rrf_scores
from chunkwise.search.hybrid import (
    DUPLICATE_SPAN_SHARE,
    RRF_K,
    SearchFilters,
    bm25_query,
    dedupe_overlapping,
    format_hit,
    fuse_client_side,
    guess_query_lang,
    hits_from_response,
    hybrid_query,
    keep_newest_revision,
    knn_query,
    postprocess,
    rrf_pipeline_body,
)


def _src(doc: str, rev: str, lm: str, start: int, end: int, **kw: Any) -> dict[str, Any]:
    return {
        "doc_id": doc,
        "source_key": f"key/{doc}",
        "revision": rev,
        "last_modified": lm,
        "start": start,
        "end": end,
        "body": (f"{doc}{start} " * (end - start))[: end - start],  # distinct text per span
        "heading_path": ["H1", "H2"],
        "page_start": 1,
        "page_end": 2,
        "kind": "prose",
        "lang": "en",
        "chunk_index": kw.get("i", 0),
    }


RRF60 = parse_fusion("rrf:60")  # these tests are about RRF, not about the default


def _raw(_id: str, score: float, src: dict[str, Any]) -> dict[str, Any]:
    return {"_id": _id, "_score": score, "_source": src}


def test_filters_build_clauses() -> None:
    f = SearchFilters(doc_ids=("d1",), key_prefix="docs/", langs=("de",), kinds=("table",))
    cl = f.clauses()
    assert {"terms": {"state": ["pending", "live"]}} in cl  # the heads decide among them
    assert {"terms": {"doc_id": ["d1"]}} in cl
    assert {"prefix": {"source_key": "docs/"}} in cl
    assert {"terms": {"lang": ["de"]}} in cl
    assert {"terms": {"kind": ["table"]}} in cl


def test_bm25_knn_hybrid_bodies() -> None:
    b = bm25_query("Wie kündige ich?", 5, lang="de")
    mm = b["query"]["bool"]["must"][0]["multi_match"]
    assert mm["fields"] == ["text_en", "text_de^2", "text"]
    assert "embedding" in b["_source"]["excludes"] and "rows" in b["_source"]["excludes"]
    # The best table row adds its score; it never decides alone what matches.
    nested = b["query"]["bool"]["should"][0]["nested"]
    assert nested["path"] == "rows" and nested["score_mode"] == "max"
    assert nested["ignore_unmapped"] is True
    assert nested["query"]["multi_match"]["fields"] == [
        "rows.text_en",
        "rows.text_de^2",
        "rows.text",
    ]
    k = knn_query([0.5, 0.5], 7)
    assert k["query"]["knn"]["embedding"]["k"] == 7
    assert k["query"]["knn"]["embedding"]["filter"]["bool"]["filter"] == [
        {"terms": {"state": ["pending", "live"]}}
    ]
    h = hybrid_query("q", [0.1], 3, SearchFilters(kinds=("table",)))
    subs = h["query"]["hybrid"]["queries"]
    assert len(subs) == 2 and "knn" in subs[1]
    assert {"terms": {"kind": ["table"]}} in subs[0]["bool"]["filter"]
    assert subs[0]["bool"]["should"][0]["nested"]["path"] == "rows"
    p = rrf_pipeline_body()
    proc = p["phase_results_processors"][0]["score-ranker-processor"]
    assert proc["combination"] == {"technique": "rrf", "parameters": {"rank_constant": 60}}


def test_guess_query_lang() -> None:
    assert guess_query_lang("Kündigungsfrist") == "de"
    assert guess_query_lang("wie ist die Frist") == "de"
    assert guess_query_lang("what is the deadline") == "en"
    assert guess_query_lang("GmbH") is None


def test_rrf_formula() -> None:
    s = rrf_scores([["a", "b", "c"], ["c", "a"]], RRF_K)
    assert s["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert s["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert s["b"] == pytest.approx(1 / 62)
    assert RRF_K == 60


@given(st.lists(st.lists(st.sampled_from("abcdefg"), unique=True, max_size=7), max_size=4))
def test_rrf_properties(lists: list[list[str]]) -> None:
    s = rrf_scores(lists, RRF_K)
    assert set(s) == {d for lst in lists for d in lst}
    for v in s.values():
        assert 0 < v <= len(lists) / (RRF_K + 1) + 1e-6  # float32 sums, as the cluster's


def test_fuse_client_side_breakdown() -> None:
    a = _raw("a", 9.0, _src("d1", "r1", "2025-01-01T00:00:00Z", 0, 10))
    b = _raw("b", 5.0, _src("d2", "r1", "2025-01-01T00:00:00Z", 0, 10))
    c = _raw("c", 0.9, _src("d3", "r1", "2025-01-01T00:00:00Z", 0, 10))
    hits = fuse_client_side([a, b], [c, a], RRF60)
    assert [h.id for h in hits] == ["a", "c", "b"]
    top = hits[0].score
    assert top.bm25_rank == 1 and top.knn_rank == 2 and top.fusion == "rrf-client"
    assert top.fused == pytest.approx(1 / 61 + 1 / 62)
    assert hits[1].score.bm25 is None and hits[1].score.knn == pytest.approx(0.9)
    cit = hits[0].citation
    assert cit.key == "key/d1" and cit.revision == "r1" and (cit.start, cit.end) == (0, 10)
    assert cit.heading_path == ["H1", "H2"] and cit.page_start == 1
    assert "key/d1 @ r1 pp.1-2 [0, 10)" in format_hit(hits[0], 1)


def test_keep_newest_revision_never_mixes_revisions() -> None:
    old = _raw("o", 10.0, _src("d1", "r1", "2025-01-01T00:00:00Z", 0, 10))
    new = _raw("n", 1.0, _src("d1", "r2", "2025-01-02T00:00:00Z", 0, 10, i=1))
    other = _raw("x", 5.0, _src("d2", "r9", "2024-01-01T00:00:00Z", 0, 10))
    hits = hits_from_response({"hits": {"hits": [old, other, new]}}, "rrf-server")
    kept = keep_newest_revision(hits)
    assert [h.id for h in kept] == ["x", "n"]
    # same last-modified: version id decides
    t = "2025-01-01T00:00:00Z"
    tie = hits_from_response(
        {
            "hits": {
                "hits": [
                    _raw("p", 1, _src("d", "a", t, 0, 1)),
                    _raw("q", 1, _src("d", "b", t, 2, 3)),
                ]
            }
        },
        "bm25",
    )
    assert [h.id for h in keep_newest_revision(tie)] == ["q"]


def test_dedupe_overlapping_spans_keeps_best_ranked() -> None:
    lm = "2025-01-01T00:00:00Z"
    hits = hits_from_response(
        {
            "hits": {
                "hits": [
                    _raw("a", 3, _src("d", "r", lm, 0, 100)),
                    _raw("b", 2, _src("d", "r", lm, 50, 150)),
                    _raw("c", 1, _src("d", "r", lm, 100, 200)),
                    _raw("e", 1, _src("e", "r", lm, 0, 100)),
                    # shares only 10 chars (an overlap prefix) with "c": a different passage
                    _raw("f", 1, _src("d", "r", lm, 190, 300)),
                ]
            }
        },
        "knn",
    )
    assert [h.id for h in dedupe_overlapping(hits)] == ["a", "c", "e", "f"]
    assert [h.id for h in postprocess(hits, 2)] == ["a", "c"]
    assert hits[0].score.knn_rank == 1


@given(
    st.lists(
        st.tuples(st.sampled_from(["d1", "d2", "d3"]), st.integers(0, 3), st.integers(0, 50)),
        max_size=30,
    )
)
def test_postprocess_invariants(items: list[tuple[str, int, int]]) -> None:
    raws = [
        _raw(f"{d}:{r}:{i}", 1.0, _src(d, f"r{r}", f"2025-01-0{r + 1}T00:00:00Z", s, s + 10, i=i))
        for i, (d, r, s) in enumerate(items)
    ]
    out = postprocess(hits_from_response({"hits": {"hits": raws}}, "bm25"), 100)
    revs: dict[str, set[str]] = {}
    for h in out:
        revs.setdefault(h.doc_id, set()).add(h.revision)
    assert all(len(v) == 1 for v in revs.values())
    spans: dict[str, list[tuple[int, int]]] = {}
    for h in out:
        for s, e in spans.get(h.doc_id, []):
            shared = min(e, h.citation.end) - max(s, h.citation.start)
            assert shared < DUPLICATE_SPAN_SHARE * 10, "a near-duplicate span survived"
        spans.setdefault(h.doc_id, []).append((h.citation.start, h.citation.end))


def _rejections() -> list[Exception]:
    from opensearchpy.exceptions import RequestError, TransportError

    too_many = TransportError(
        500,
        "search_phase_execution_exception",
        {
            "error": {
                "root_cause": [
                    {"type": "too_many_nested_clauses", "reason": "maxClauseCount is set to 1024"}
                ]
            }
        },
    )
    return [too_many, RequestError(400, "parsing_exception", {"error": {"type": "x"}})]


@pytest.mark.parametrize("exc", _rejections())
def test_clause_limit_and_400_are_rejected_queries_not_retried(exc: Exception) -> None:
    from chunkwise.adapters.opensearch.retries import RetryPolicy
    from chunkwise.adapters.opensearch.search import Searcher
    from chunkwise.errors import QueryRejected
    from chunkwise.search.hybrid import SearchFilters

    calls: list[int] = []

    class Client:
        def create_pit(self, **kwargs: Any) -> Any:
            return {"pit_id": "pit", "_shards": {"total": 1, "successful": 1, "failed": 0}}

        def delete_pit(self, **kwargs: Any) -> Any:
            return {}

        def search(self, **kwargs: Any) -> Any:
            calls.append(1)
            raise exc

    class Lexical:
        dimension = 4
        name = "fake"
        languages = ("xx",)  # a German query skips the vector: one lexical search

    searcher = Searcher(
        Client(),  # type: ignore[arg-type]
        Lexical(),  # type: ignore[arg-type]
        fusion="client",
        policy=RetryPolicy(attempts=3, initial=0.0, maximum=0.0, jitter=0.0),
    )
    with pytest.raises(QueryRejected):
        searcher.search("wort", 3, SearchFilters(), lang="de")
    assert calls == [1]


def test_server_fused_ties_come_back_in_one_order_whatever_the_engine_returned() -> None:
    """RRF gives (1, 2) and (2, 1) the same score; the order must not depend on
    the engine's internal document numbers (it changed between two ingests of
    the same corpus and moved the evaluation's hit@1)."""
    lm = "2025-01-01T00:00:00Z"
    tied = 1 / 61 + 1 / 62
    first = _raw("d:r2:0", tied, _src("d", "r2", lm, 0, 10, i=0))
    second = _raw("d:r2:1", tied, _src("d", "r2", lm, 10, 20, i=1))
    best = _raw("e:r1:3", 2 / 61, _src("e", "r1", lm, 30, 40, i=3))
    orders = [
        [h.id for h in hits_from_response({"hits": {"hits": raw}}, "rrf-server")]
        for raw in ([best, first, second], [best, second, first], [second, first, best])
    ]
    assert orders == [["e:r1:3", "d:r2:0", "d:r2:1"]] * 3
    bm25 = hits_from_response({"hits": {"hits": [second, first]}}, "bm25")
    assert [(h.id, h.score.bm25_rank) for h in bm25] == [("d:r2:0", 1), ("d:r2:1", 2)]


def test_client_and_server_fusion_break_ties_the_same_way() -> None:
    """Two chunks of one document, ranked (1, 2) and (2, 1) by BM25 and k-NN, tie in
    RRF. Fused client-side (the cluster lacks neural-search) or by the cluster's
    pipeline, they must come back in the same order: the earlier chunk first, even
    where the ids sort the other way."""
    lm = "2025-01-01T00:00:00Z"
    later = _raw("a", 7.0, _src("d", "r", lm, 10, 20, i=1))  # id sorts first
    earlier = _raw("b", 6.0, _src("d", "r", lm, 0, 10, i=0))
    client = fuse_client_side([later, earlier], [earlier, later], RRF60)
    assert client[0].score.fused == client[1].score.fused  # a real tie
    tied = client[0].score.fused
    server = hits_from_response(
        {"hits": {"hits": [{**later, "_score": tied}, {**earlier, "_score": tied}]}},
        "rrf-server",
    )
    assert [h.id for h in client] == [h.id for h in server] == ["b", "a"]


def test_a_table_hit_carries_its_table_header() -> None:
    """A row chunk's header (stored with the chunk, not part of the cited body) comes
    back with the hit, so a caller can show which column a cell is in."""
    from chunkwise.search.hybrid import build_hit

    header = "| Teilenummer | Preis netto |\n| --- | --- |"
    src = {"doc_id": "d", "chunk_index": 10, "kind": "table", "body": "| GD-4711 | 248,90 € |",
           "table_header": header, "source_key": "k", "revision": "r"}  # fmt: skip
    assert build_hit({"_id": "x", "_source": src}, 1.0, "bm25").table_header == header
    src.pop("table_header")
    assert build_hit({"_id": "y", "_source": src}, 1.0, "bm25").table_header == ""
