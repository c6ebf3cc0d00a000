"""Pure index code: names, mapping, documents, bulk actions, revision planning, reconcile."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkwise.errors import ConfigError, PermanentError
from chunkwise.index.bodies import (
    MAPPING_REVISION,
    ROWS_FIELD,
    Action,
    IndexNames,
    ModelMismatchError,
    ObjectVersion,
    RevisionState,
    State,
    bulk_actions,
    chunk_document,
    flip_live_body,
    index_body,
    is_converged,
    keys_to_reconcile,
    lang_fields,
    make_doc_id,
    missing_properties,
    new_generation_id,
    parse_duration_seconds,
    parse_revision_states,
    plan_reconcile,
    reconcile,
    reconcile_sweep,
    revision_sort_key,
    supersede_body,
    swap_actions,
    sweep_body,
    visible_keys_query,
)
from chunkwise.schema import ChunkKind
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import FakeIndex, make_chunks


def _embed(texts: object) -> list[list[float]]:
    return [[0.1, 0.2, 0.3] for _ in texts]  # type: ignore[attr-defined]


def test_names_and_validation() -> None:
    n = IndexNames("t1")
    assert n.index("g1") == "t1-g1"
    assert n.read_alias == "t1" and n.write_alias == "t1-write"
    assert n.generation_of("t1-g1") == "g1" and n.generation_of("other-g1") is None
    with pytest.raises(ConfigError, match="generation"):
        n.index("write")
    with pytest.raises(ConfigError, match="generation"):
        n.index("G1")
    with pytest.raises(ConfigError, match="prefix"):
        IndexNames("Bad Prefix")
    assert new_generation_id().startswith("g")
    assert make_doc_id("b", "k") == make_doc_id("b", "k") != make_doc_id("b", "k2")
    assert len(make_doc_id("b", "ä/ö 🎉")) == 32


def test_mapping_has_language_fields_knn_and_keywords() -> None:
    body = index_body(384, embedder_name="m", generation="g1")
    props = body["mappings"]["properties"]
    assert body["mappings"]["dynamic"] == "strict"
    assert body["settings"]["index"]["knn"] is True
    assert props["text_en"]["analyzer"] == "english"
    assert props["text_de"]["analyzer"] == "german"
    assert props["text"]["analyzer"] == "standard"
    emb = props["embedding"]
    assert emb["dimension"] == 384
    assert emb["method"]["engine"] == "lucene" and emb["method"]["space_type"] == "cosinesimil"
    for kw in ("doc_id", "source_key", "revision", "kind", "lang", "heading_path", "state"):
        assert props[kw]["type"] == "keyword"
    for i in ("page_start", "page_end", "start", "end"):
        assert props[i]["type"] == "integer"
    assert props["superseded_at"]["type"] == "date"
    with pytest.raises(ConfigError, match="dimension"):
        index_body(0)


def test_language_decides_bm25_fields() -> None:
    assert lang_fields("en") == ["text_en"]
    assert lang_fields("de-AT") == ["text_de"]
    assert lang_fields("und") == ["text_en", "text_de"]
    v = ObjectVersion("2025-01-01T00:00:00Z", "v1", key="k")
    de = make_chunks("d", v, 1, lang="de")[0]
    doc = chunk_document(de, [0.0], revision_chunks=1, now="2025-01-01T00:00:00Z")
    assert doc["text_de"] == de.text and "text_en" not in doc
    assert doc["text"] == de.text and doc["state"] == "pending"
    und = make_chunks("d", v, 1, lang="und")[0]
    doc = chunk_document(und, [0.0], revision_chunks=1)
    assert doc["text_en"] == doc["text_de"] == und.text
    assert "rows" not in doc  # prose: no table rows


def test_table_rows_are_indexed_nested_with_their_column_names() -> None:
    props = index_body(3)["mappings"]["properties"]
    rows = props["rows"]
    assert rows["type"] == "nested" and rows["dynamic"] == "strict"
    assert rows["properties"]["text_de"]["analyzer"] == "german"
    assert rows["properties"]["text"]["analyzer"] == "standard"
    v = ObjectVersion("2025-01-01T00:00:00Z", "v1", key="k")
    base = make_chunks("d", v, 1, lang="de")[0]
    header = "| Tarif | Jahrespreis |\n| --- | --- |"
    body = "| Starter | 60 € |\n| Team | 140 € |"
    chunk = base.model_copy(
        update={
            "body": body,
            "end": base.start + len(body),
            "table_header": header,
            "text": header + "\n" + body,
            "kind": ChunkKind.TABLE,
        }
    )
    doc = chunk_document(chunk, [0.0], revision_chunks=1)
    assert doc["rows"] == [
        {
            "text": "Tarif: Starter; Jahrespreis: 60 €",
            "text_de": "Tarif: Starter; Jahrespreis: 60 €",
        },
        {"text": "Tarif: Team; Jahrespreis: 140 €", "text_de": "Tarif: Team; Jahrespreis: 140 €"},
    ]
    assert doc["text"] == chunk.text  # the indexed text itself is unchanged


def test_bulk_actions_ids_routing_and_counts() -> None:
    v = ObjectVersion("2025-01-01T00:00:00Z", "v1", key="k")
    chunks = make_chunks("doc", v, 3)
    acts = list(bulk_actions(chunks, [[0.0]] * 3, index="t-write"))
    assert [a["_id"] for a in acts] == ["doc:v1:0", "doc:v1:1", "doc:v1:2"]
    assert {a["_routing"] for a in acts} == {"doc"}
    assert {a["_source"]["revision_chunks"] for a in acts} == {3}
    with pytest.raises(ValueError, match="embeddings"):
        list(bulk_actions(chunks, [[0.0]], index="x"))


def test_empty_last_modified_is_null_not_empty_date() -> None:
    v = ObjectVersion("", "v1", key="k")
    doc = chunk_document(make_chunks("d", v, 1)[0], [0.0], revision_chunks=1)
    assert doc["last_modified"] is None


def test_swap_is_one_atomic_body_with_filtered_read_alias() -> None:
    n = IndexNames("t")
    body = swap_actions(n, "t-g2", current_write=["t-g1"], current_read=["t-g1"])
    acts = body["actions"]
    assert {"remove": {"index": "t-g1", "alias": "t-write"}} in acts
    assert {"remove": {"index": "t-g1", "alias": "t"}} in acts
    add_read = next(a["add"] for a in acts if "add" in a and a["add"]["alias"] == "t")
    assert add_read["filter"] == {"term": {"state": "live"}}
    add_write = next(a["add"] for a in acts if "add" in a and a["add"]["alias"] == "t-write")
    assert add_write["is_write_index"] is True
    # idempotent re-swap onto the same index removes nothing
    again = swap_actions(n, "t-g2", current_write=["t-g2"], current_read=["t-g2"])
    assert all("remove" not in a for a in again["actions"])


def test_state_bodies() -> None:
    flip = flip_live_body("d", "r2", "now")
    assert {"term": {"state": "pending"}} in flip["query"]["bool"]["filter"]
    sup = supersede_body("d", "r2", "now")
    assert sup["query"]["bool"]["must_not"] == [{"term": {"revision": "r2"}}]
    assert sup["script"]["params"]["state"] == "superseded"
    retire = supersede_body("d", None, "now", state=State.DELETED)
    assert "must_not" not in retire["query"]["bool"]
    assert sweep_body("2025-01-01")["query"]["bool"]["filter"][1] == {
        "range": {"superseded_at": {"lt": "2025-01-01"}}
    }
    assert parse_duration_seconds("30d") == 30 * 86400
    with pytest.raises(ConfigError, match="older-than"):
        parse_duration_seconds("soon")


def test_parse_revision_states() -> None:
    resp = {
        "aggregations": {
            "revisions": {
                "buckets": [
                    {
                        "key": "r1",
                        "states": {"buckets": [{"key": "live", "doc_count": 3}]},
                        "expected": {"value": 3.0},
                    }
                ]
            }
        }
    }
    s = parse_revision_states(resp)
    assert s["r1"].complete_live and s["r1"].n(State.LIVE) == 3


def _rs(rev: str, exp: int, **counts: int) -> RevisionState:
    return RevisionState(rev, counts, exp)


def test_plan_reconcile_decisions() -> None:
    cur = ObjectVersion("2025-01-02T00:00:00Z", "r2", key="k")
    assert plan_reconcile(cur, {}).action is Action.INDEX
    assert plan_reconcile(cur, {"r2": _rs("r2", 3, live=3)}).action is Action.KEEP
    assert plan_reconcile(cur, {"r2": _rs("r2", 3, live=1, pending=2)}).action is Action.FLIP
    assert plan_reconcile(cur, {"r2": _rs("r2", 3, pending=1)}).action is Action.INDEX
    # a superseded current revision (e.g. a newer version was deleted) is re-indexed
    assert plan_reconcile(cur, {"r2": _rs("r2", 3, superseded=3)}).action is Action.INDEX
    p = plan_reconcile(cur, {"r1": _rs("r1", 2, live=2), "r2": _rs("r2", 3, live=3)})
    assert p.supersede == ("r1",)
    gone = plan_reconcile(None, {"r1": _rs("r1", 2, live=2)})
    assert gone.action is Action.RETIRE and gone.supersede == ("r1",)
    assert is_converged(None, {"r1": _rs("r1", 2, deleted=2)})
    assert not is_converged(cur, {"r1": _rs("r1", 2, live=2), "r2": _rs("r2", 3, live=3)})


def test_revision_order_is_last_modified_then_version() -> None:
    a = revision_sort_key("2025-01-01T00:00:00Z", "zzz")
    b = revision_sort_key("2025-01-01T00:00:01+00:00", "aaa")
    assert b > a
    assert revision_sort_key("2025-01-01T00:00:00.000Z", "b") > revision_sort_key(
        "2025-01-01T00:00:00+00:00", "a"
    )


def _setup() -> tuple[FakeBucket, FakeIndex, str]:
    return FakeBucket(), FakeIndex(), make_doc_id("bucket", "docs/a.md")


def _run(s3: FakeBucket, idx: FakeIndex, doc: str, key: str = "docs/a.md") -> object:
    return reconcile(
        key,
        doc,
        s3=s3,
        index=idx,
        load_chunks=lambda v: make_chunks(doc, v, 3),
        embed=_embed,
    )


def test_reconcile_new_revision_supersedes_old_and_delete_retires() -> None:
    s3, idx, doc = _setup()
    s3.put_version("docs/a.md", "r1", "2025-01-01T00:00:00Z")
    _run(s3, idx, doc)
    assert idx.live(doc) == {"r1"}
    s3.put_version("docs/a.md", "r2", "2025-01-02T00:00:00Z")
    _run(s3, idx, doc)
    assert idx.live(doc) == {"r2"}
    # replay of the old event changes nothing: S3 says r2
    res = _run(s3, idx, doc)
    assert idx.live(doc) == {"r2"} and res.actions == [Action.KEEP]  # type: ignore[attr-defined]
    s3.delete("docs/a.md")
    _run(s3, idx, doc)
    assert idx.live(doc) == set()


def test_rejected_revision_never_goes_live() -> None:
    s3, idx, doc = _setup()
    s3.put_version("docs/a.md", "r1", "2025-01-01T00:00:00Z")
    _run(s3, idx, doc)
    s3.put_version("docs/a.md", "bad", "2025-01-02T00:00:00Z")
    idx.fail_revisions.add("bad")
    with pytest.raises(PermanentError):
        _run(s3, idx, doc)
    # nothing half-live, and the old revision is no longer served: it is not S3's
    assert idx.live(doc) == set()
    assert not any(st == State.LIVE for _r, _i, st, _e in idx.docs[doc].values())


def test_a_generation_of_another_model_leaves_what_is_live_alone() -> None:
    s3, idx, doc = _setup()
    s3.put_version("docs/a.md", "r1", "2025-01-01T00:00:00Z")
    _run(s3, idx, doc)

    def refuse(chunks: object, embeddings: object) -> None:
        raise ModelMismatchError("generation g1 was built with the model m1")

    idx.write_revision = refuse  # type: ignore[method-assign,assignment]
    s3.put_version("docs/a.md", "r2", "2025-01-02T00:00:00Z")
    with pytest.raises(ModelMismatchError):
        _run(s3, idx, doc)
    # Not the document's fault: r1 stays searchable until the deployment moves over.
    assert idx.live(doc) == {"r1"}


@settings(max_examples=60, deadline=None)
@given(
    ops=st.lists(st.sampled_from(["put", "delete"]), min_size=1, max_size=5),
    events=st.data(),
)
def test_any_event_order_converges_on_s3_current(ops: list[str], events: st.DataObject) -> None:
    s3, idx, doc = _setup()
    for i, op in enumerate(ops):
        if op == "put":
            s3.put_version("docs/a.md", f"v{i}", f"2025-01-01T00:00:{i:02d}Z")
        else:
            s3.delete("docs/a.md")
    # events: each change produces an event; they may be duplicated, dropped, reordered
    n = events.draw(st.integers(min_value=1, max_value=2 * len(ops)))
    for _ in range(n):
        _run(s3, idx, doc)
    cur = s3.head_current("docs/a.md")
    assert idx.live(doc) == ({cur.revision} if cur else set())


def test_concurrent_writers_converge_with_fakes() -> None:
    s3, idx, doc = _setup()
    s3.put_version("docs/a.md", "r1", "2025-01-01T00:00:00Z")
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            if i == 3:
                s3.put_version("docs/a.md", "r2", "2025-01-02T00:00:00Z")
            _run(s3, idx, doc)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _run(s3, idx, doc)
    assert not errors
    assert idx.live(doc) == {"r2"}


def test_reconcile_sweep_repairs_dropped_events() -> None:
    s3, idx = FakeBucket(), FakeIndex()
    s3.put_version("a", "r1", "2025-01-01T00:00:00Z")
    s3.put_version("b", "r1", "2025-01-01T00:00:00Z")
    for key in ("a", "b"):
        reconcile(
            key,
            make_doc_id("bucket", key),
            s3=s3,
            index=idx,
            load_chunks=lambda v: make_chunks(make_doc_id("bucket", v.key), v, 2),
            embed=_embed,
        )
    # events lost: a got r2, b was deleted, c appeared
    s3.put_version("a", "r2", "2025-01-02T00:00:00Z")
    s3.delete("b")
    s3.put_version("c", "r1", "2025-01-03T00:00:00Z")
    assert keys_to_reconcile(["a", "c"], ["a", "b"]) == ["a", "b", "c"]
    reconcile_sweep(
        "bucket",
        ["a", "c"],
        ["a", "b"],
        s3=s3,
        index=idx,
        load_chunks=lambda v: make_chunks(make_doc_id("bucket", v.key), v, 2),
        embed=_embed,
    )
    assert idx.live(make_doc_id("bucket", "a")) == {"r2"}
    assert idx.live(make_doc_id("bucket", "b")) == set()
    assert idx.live(make_doc_id("bucket", "c")) == {"r1"}
    q = visible_keys_query({"key": "a"})
    assert q["aggs"]["keys"]["composite"]["after"] == {"key": "a"}


def test_revision_without_chunks_retires_older_ones_and_converges() -> None:
    s3, idx, doc = _setup()
    s3.put_version("docs/a.md", "r1", "2025-01-01T00:00:00Z")
    _run(s3, idx, doc)
    s3.put_version("docs/a.md", "empty", "2025-01-02T00:00:00Z")
    res = reconcile(
        "docs/a.md",
        doc,
        s3=s3,
        index=idx,
        load_chunks=lambda v: [] if v.version_id == "empty" else make_chunks(doc, v, 3),
        embed=_embed,
    )
    assert res.revision is None and res.rounds == 1
    assert idx.live(doc) == set()


def test_index_template_covers_the_prefix_without_a_vector_dimension() -> None:
    from chunkwise.index.bodies import index_template_body, template_name

    names = IndexNames("docs")
    body = index_template_body(names)
    assert template_name(names) == "docs-chunks"
    assert body["index_patterns"] == ["docs-*"]
    props = body["template"]["mappings"]["properties"]
    assert "embedding" not in props and props["doc_id"] == {"type": "keyword"}
    assert body["template"]["mappings"]["dynamic"] == "strict"
    assert body["template"]["settings"]["index"]["knn"] is True


def test_missing_properties_are_only_the_new_fields() -> None:
    wanted = index_body(8)["mappings"]["properties"]
    older = {name: spec for name, spec in wanted.items() if name != ROWS_FIELD}
    assert missing_properties(older, wanted) == {ROWS_FIELD: wanted[ROWS_FIELD]}
    assert missing_properties(wanted, wanted) == {}
    # A field the live index has is never re-sent, even if its definition differs:
    # OpenSearch refuses changes to existing fields.
    changed = {**wanted, "text": {"type": "keyword"}}
    assert missing_properties(changed, wanted) == {}


def test_deploy_reruns_index_setup_when_the_mapping_revision_changes() -> None:
    template = (Path(__file__).parents[2] / "template.yaml").read_text(encoding="utf-8")
    match = re.search(r'^\s+MappingRevision: "(\d+)"$', template, re.MULTILINE)
    assert match is not None, "the index custom resource must carry MappingRevision"
    assert int(match.group(1)) == MAPPING_REVISION
