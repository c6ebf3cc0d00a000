"""Pure index code: names, mapping, documents, bulk actions, revision planning, reconcile."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chunkwise.errors import ConfigError
from chunkwise.index.documents import bulk_actions, chunk_document, lang_fields
from chunkwise.index.mapping import MAPPING_REVISION, ROWS_FIELD, index_body, missing_properties
from chunkwise.index.names import IndexNames, make_doc_id, new_generation_id, swap_actions
from chunkwise.index.revision_queries import (
    parse_duration_seconds,
    parse_revision_states,
    sweep_body,
)
from chunkwise.index.states import State
from chunkwise.index.versions import ObjectVersion, revision_sort_key
from chunkwise.schema import ChunkKind
from tests.fakes.index import make_chunks


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


def test_revision_order_is_last_modified_then_version() -> None:
    a = revision_sort_key("2025-01-01T00:00:00Z", "zzz")
    b = revision_sort_key("2025-01-01T00:00:01+00:00", "aaa")
    assert b > a
    assert revision_sort_key("2025-01-01T00:00:00.000Z", "b") > revision_sort_key(
        "2025-01-01T00:00:00+00:00", "a"
    )


def test_index_template_covers_the_prefix_without_a_vector_dimension() -> None:
    from chunkwise.index.mapping import index_template_body
    from chunkwise.index.names import template_name

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
