"""How Searcher picks the fusion path from the cluster's plugins (fake client, no I/O)."""

from __future__ import annotations

from typing import Any

import pytest
from opensearchpy.exceptions import AuthorizationException, NotFoundError, RequestError

from chunkwise.adapters.opensearch.generations import GenerationError
from chunkwise.adapters.opensearch.search import Searcher, detect_caps, ensure_search_pipelines
from chunkwise.search.fusion import DEFAULT_FUSION, parse_fusion
from tests.fakes.embedder import FixedEmbedder


class _Cat:
    def __init__(self, plugins: list[str]) -> None:
        self._plugins = plugins

    def plugins(self, format: str) -> list[dict[str, str]]:
        return [{"component": p} for p in self._plugins]


class _Transport:
    """Search pipelines: PUT creates one (RRF only where the plugin accepts it), GET
    reads it; ``read_only`` refuses every PUT as the query role's domain would."""

    def __init__(self, rrf_ok: bool, read_only: bool = False) -> None:
        self.rrf_ok = rrf_ok
        self.read_only = read_only
        self.pipelines: set[str] = set()
        self.puts: list[str] = []
        self.gets: list[str] = []

    def perform_request(self, method: str, path: str, body: Any = None) -> Any:
        name = path.rsplit("/", 1)[-1]
        if method == "GET":
            self.gets.append(path)
            if name not in self.pipelines:
                raise NotFoundError(404, "resource_not_found_exception", {})
            return {name: body}
        self.puts.append(path)
        if self.read_only:
            raise AuthorizationException(403, "not authorized to perform: es:ESHttpPut", {})
        if "score-ranker-processor" in str(body) and not self.rrf_ok:
            raise RequestError(400, "unknown processor [score-ranker-processor]", {})
        self.pipelines.add(name)
        return {"acknowledged": True}


def _src(i: int) -> dict[str, Any]:
    return {
        "doc_id": f"d{i}",
        "source_key": f"k{i}",
        "revision": "r",
        "start": 0,
        "end": 1,
        "body": f"passage {i}",  # distinct texts: copies would be collapsed
        "state": "live",  # no head record: a document of the older protocol
    }


class _Indices:
    """The generation metadata the searcher checks its model against."""

    def __init__(self, meta: dict[str, Any]) -> None:
        self.meta = meta

    def get_mapping(self, index: str) -> dict[str, Any]:
        return {"chunks-g1": {"mappings": {"_meta": self.meta}}}


class _Client:
    def __init__(
        self,
        plugins: list[str],
        rrf_ok: bool = True,
        meta: dict[str, Any] | None = None,
        read_only: bool = False,
    ) -> None:
        self.cat = _Cat(plugins)
        self.indices = _Indices(meta or {"embedder": "fake", "dimension": 3})
        self.transport = _Transport(rrf_ok, read_only)
        self.searches: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.head_searches: list[dict[str, Any]] = []
        self.pits: list[str] = []  # the PIT of each search call: candidates and heads alike
        self.indexes: list[str | None] = []  # the index each search names (none in a PIT)
        self.created: list[tuple[str, dict[str, Any]]] = []  # create_pit calls
        self.deleted: list[str] = []  # PITs deleted

    def info(self) -> dict[str, Any]:
        return {"version": {"number": "2.19.1"}}

    def create_pit(self, index: str, params: dict[str, Any]) -> Any:
        self.created.append((index, dict(params)))
        pit = f"pit-{len(self.created)}"
        return {"pit_id": pit, "_shards": {"total": 3, "successful": 3, "failed": 0}}

    def delete_pit(self, body: dict[str, Any]) -> Any:
        self.deleted += body["pit_id"]
        return {"pits": [{"successful": True, "pit_id": p} for p in body["pit_id"]]}

    def search(self, body: dict[str, Any], params: dict[str, Any], index: str | None = None) -> Any:
        params = dict(params)
        assert "preference" not in params or "pit" not in body  # OpenSearch refuses both
        self.pits.append(body.get("pit", {}).get("id", ""))
        self.indexes.append(index)
        body = {k: v for k, v in body.items() if k != "pit"}
        # every search asks for a whole answer (tests/unit/test_whole_answers.py)
        assert params.pop("allow_partial_search_results") == "false"
        if "ids" in body.get("query", {}):  # the reader's look-up of heads: none here
            self.head_searches.append(body)
            return {"hits": {"hits": []}}
        self.searches.append((body, params))
        hits = [{"_id": f"id{i}", "_score": 1.0 / (i + 1), "_source": _src(i)} for i in range(3)]
        return {"hits": {"hits": hits}}


def test_without_neural_search_fuses_client_side() -> None:
    client = _Client(["opensearch-knn"])
    s = Searcher(client, FixedEmbedder())  # type: ignore[arg-type]
    assert s.fusion == "client"
    hits = s.search("q", k=2)
    assert len(hits) == 2 and hits[0].score.fusion == "norm-client"  # minmax:0.7, the default
    assert len(client.searches) == 2  # one BM25, one k-NN request
    assert "multi_match" in str(client.searches[0][0]) and "knn" in str(client.searches[1][0])
    with pytest.raises(RuntimeError, match="neural-search"):
        _ = Searcher(client, FixedEmbedder(), fusion="server").fusion  # type: ignore[arg-type]


def test_with_neural_search_uses_the_default_fusion_pipeline() -> None:
    client = _Client(["opensearch-knn", "opensearch-neural-search"])
    default = "chunkwise-fusion-minmax-0-7"
    assert DEFAULT_FUSION.pipeline_name == default
    assert ensure_search_pipelines(client) == default  # type: ignore[arg-type]
    s = Searcher(client, FixedEmbedder())  # type: ignore[arg-type]
    assert s.fusion == "server"
    hits = s.search("q", k=3)
    assert hits[0].score.fusion == "norm-server"
    body, params = client.searches[0]
    assert params == {"search_pipeline": default} and "hybrid" in body["query"]
    # forcing the client path still works on such a cluster
    assert Searcher(client, FixedEmbedder(), fusion="client").fusion == "client"  # type: ignore[arg-type]


def test_rrf_stays_selectable_with_its_own_pipeline() -> None:
    client = _Client(["opensearch-neural-search"])
    rrf = parse_fusion("rrf:60")
    assert ensure_search_pipelines(client, spec=rrf) == "chunkwise-fusion-rrf-60"  # type: ignore[arg-type]
    caps = detect_caps(client, spec=rrf)  # type: ignore[arg-type]
    assert caps.server_pipeline == "chunkwise-fusion-rrf-60"
    # the default's pipeline was not written: a default searcher fuses client-side
    assert detect_caps(client).server_pipeline is None  # type: ignore[arg-type]
    s = Searcher(client, FixedEmbedder(), spec=rrf)  # type: ignore[arg-type]
    assert s.search("q", k=1)[0].score.fusion == "rrf-server"
    assert client.searches[-1][1] == {"search_pipeline": "chunkwise-fusion-rrf-60"}


def test_neural_search_without_rrf_fuses_rrf_client_side() -> None:
    client = _Client(["opensearch-neural-search"], rrf_ok=False)
    rrf = parse_fusion("rrf:60")
    assert ensure_search_pipelines(client, spec=rrf) == ""  # type: ignore[arg-type]
    s = Searcher(client, FixedEmbedder(), spec=rrf)  # type: ignore[arg-type]
    assert s.search("q", k=1)[0].score.fusion == "rrf-client"


def test_search_never_writes_and_detects_the_cluster_once() -> None:
    client = _Client(["opensearch-knn", "opensearch-neural-search"], read_only=True)
    s = Searcher(client, FixedEmbedder())  # type: ignore[arg-type]
    for _ in range(3):
        assert len(s.search("q", k=2)) == 2
    assert client.transport.puts == []  # the query role may not PUT
    # no pipeline was created at deploy time: client-side fusion, asked about once
    assert s.fusion == "client" and len(client.transport.gets) == 1


def test_pipelines_created_at_deploy_time_are_used_by_a_read_only_searcher() -> None:
    client = _Client(["opensearch-knn", "opensearch-neural-search"])
    ensure_search_pipelines(client)  # type: ignore[arg-type]
    client.transport.read_only = True
    puts = list(client.transport.puts)
    s = Searcher(client, FixedEmbedder())  # type: ignore[arg-type]
    assert s.search("q", k=1)[0].score.fusion == "norm-server"
    assert client.transport.puts == puts


def test_unreadable_capabilities_are_cached_as_client_fusion() -> None:
    client = _Client(["opensearch-neural-search"])
    calls: list[int] = []

    def refuse(format: str) -> list[dict[str, str]]:
        calls.append(1)
        raise AuthorizationException(403, "not authorized", {})

    client.cat.plugins = refuse  # type: ignore[method-assign]
    s = Searcher(client, FixedEmbedder())  # type: ignore[arg-type]
    for _ in range(3):
        assert s.search("q", k=1)[0].score.fusion == "norm-client"
    assert calls == [1]


class _EnglishOnlyEmbedder(FixedEmbedder):
    languages = frozenset({"en"})

    def embed_query(self, text: str) -> list[float]:
        raise AssertionError("a German query must not be embedded by an English-only model")


def test_query_in_a_language_the_model_cannot_read_is_answered_lexically() -> None:
    client = _Client(["opensearch-knn", "opensearch-neural-search"])
    s = Searcher(client, _EnglishOnlyEmbedder())  # type: ignore[arg-type]
    hits = s.search("Was kostet der Jahrespreis für den Tarif?", k=2)
    assert len(hits) == 2 and hits[0].score.fusion == "bm25"
    assert hits[0].score.bm25_rank == 1 and hits[0].score.knn_rank is None
    assert len(client.searches) == 1 and "multi_match" in str(client.searches[0][0])
    assert "knn" not in str(client.searches[0][0]) and client.searches[0][1] == {}


def test_english_or_unknown_query_still_uses_both_retrievers() -> None:
    client = _Client(["opensearch-knn", "opensearch-neural-search"])
    s = Searcher(client, _EnglishOnlyEmbedder.__mro__[1]())  # type: ignore[arg-type]
    assert s.embedder_reads("de") and s.embedder_reads(None)
    english = Searcher(client, _EnglishOnlyEmbedder())  # type: ignore[arg-type]
    assert english.embedder_reads("en") and english.embedder_reads(None)
    assert not english.embedder_reads("de")


@pytest.mark.parametrize(
    "meta",
    [
        {"embedder": "sentence-transformers/all-MiniLM-L6-v2", "dimension": 3},
        {"embedder": "fake", "dimension": 384},
    ],
)
def test_a_generation_of_another_model_is_refused_before_any_vector_query(
    meta: dict[str, Any],
) -> None:
    client = _Client(["opensearch-knn"], meta=meta)
    s = Searcher(client, FixedEmbedder())  # type: ignore[arg-type]
    with pytest.raises(GenerationError, match=r"chunks-g1 was built with the model .* fake"):
        s.search("q", k=2)
    assert client.searches == []  # nothing was queried against the wrong vector space


class _NoQueryVectors(FixedEmbedder):
    def embed_query(self, text: str) -> list[float]:
        raise AssertionError("the cluster embeds the query: no vector may be computed here")


@pytest.mark.parametrize(("plugins", "requests"), [(["opensearch-neural-search"], 1), ([], 2)])
def test_cluster_embedding_sends_the_text_and_names_no_pipeline(
    plugins: list[str], requests: int
) -> None:
    client = _Client(plugins)
    s = Searcher(client, _NoQueryVectors(), query_embedding="cluster")  # type: ignore[arg-type]
    hits = s.search("Einlassfilter", k=2)
    assert len(hits) == 2 and len(client.searches) == requests
    neural = [str(body) for body, _ in client.searches if "neural" in str(body)]
    assert len(neural) == 1 and "'query_text': 'Einlassfilter'" in neural[0]
    assert "vector" not in neural[0]
    # The generation's default search pipeline fuses and names the model.
    assert all("search_pipeline" not in params for _, params in client.searches)


def test_a_query_over_the_models_token_cap_is_the_callers_input() -> None:
    from chunkwise.errors import QueryRejected

    class Capped(FixedEmbedder):
        def count_query_tokens(self, text: str) -> int:
            return len(text.split())

        def embed_query(self, text: str) -> list[float]:
            raise AssertionError("the model would refuse it with a PermanentError")

    client = _Client(["opensearch-knn"])
    s = Searcher(client, Capped())  # type: ignore[arg-type]
    with pytest.raises(QueryRejected) as e:
        s.search("eins zwei drei vier fünf sechs sieben acht neun zehn elf", k=2)  # 11 > 10
    assert "too long" in e.value.public and client.searches == []


@pytest.mark.parametrize("plugins", [["opensearch-knn"], ["opensearch-neural-search"]])
def test_one_answer_reads_candidates_and_heads_from_one_point_in_time(
    plugins: list[str],
) -> None:
    # Two searches with one preference are two snapshots: a refresh between them let
    # the heads name a revision the candidates held only in part, and replicas
    # refreshing on their own let a later read return an older revision (#27, the
    # 3-node fault run). One PIT on the primaries is one searcher per shard.
    client = _Client(plugins)
    if "opensearch-neural-search" in plugins:
        ensure_search_pipelines(client)  # type: ignore[arg-type]
    s = Searcher(client, FixedEmbedder())  # type: ignore[arg-type]
    s.search("q", k=2)
    s.search("q", k=2)
    assert [i for i, _ in client.created] == [s.index, s.index]
    for _, params in client.created:
        assert params["preference"] == "_primary_first"
        assert params["allow_partial_pit_creation"] == "false"
    first = client.pits[: len(client.pits) // 2]
    assert client.head_searches and len(set(first)) == 1 and first[0] == "pit-1"
    assert set(client.pits) == {"pit-1", "pit-2"}  # each answer its own, every search in one
    assert set(client.indexes) == {None}  # a search in a PIT names no index
    assert client.deleted == ["pit-1", "pit-2"]
