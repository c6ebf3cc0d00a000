"""The Bedrock-format sidecar: what it may say, what is refused (and named), and how it
meets S3 tags and user metadata."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chunkwise.errors import PermanentError
from chunkwise.metadata import (
    AttributeType,
    AttributeValue,
    DocumentMetadata,
    MetadataError,
    is_sidecar_key,
    merge_sources,
    parse_sidecar,
    sidecar_key,
)
from chunkwise.metadata.model import MAX_SIDECAR_BYTES


def sidecar(attributes: Any, **top: Any) -> bytes:
    return json.dumps({"metadataAttributes": attributes, **top}).encode()


def refused(data: bytes, **kwargs: Any) -> MetadataError:
    with pytest.raises(MetadataError) as info:
        parse_sidecar(data, **kwargs)
    return info.value


# --------------------------------------------------------------------------- accepted


def test_plain_values_get_their_bedrock_types() -> None:
    meta = parse_sidecar(
        sidecar({"department": "legal", "year": 2024, "score": 0.5, "draft": False,
                 "tags": ["contract", "de"]})
    )  # fmt: skip
    assert meta.attributes == {
        "department": AttributeValue(AttributeType.STRING, "legal"),
        "year": AttributeValue(AttributeType.NUMBER, 2024.0),
        "score": AttributeValue(AttributeType.NUMBER, 0.5),
        "draft": AttributeValue(AttributeType.BOOLEAN, False),
        "tags": AttributeValue(AttributeType.STRING_LIST, ("contract", "de")),
    }
    assert meta.readers is None and meta.notes == ()


def test_the_typed_form_of_every_type() -> None:
    def typed(kind: str, member: str, value: Any, embed: bool = True) -> dict[str, Any]:
        return {"value": {"type": kind, member: value}, "includeForEmbedding": embed}

    meta = parse_sidecar(
        sidecar(
            {
                "owner": typed("STRING", "stringValue", "ops"),
                "year": typed("NUMBER", "numberValue", 1989, embed=False),
                "public": typed("BOOLEAN", "booleanValue", True),
                "animals": typed("STRING_LIST", "stringListValue", ["cat", "dog"]),
                "bare": {"value": {"type": "STRING", "stringValue": "x"}},
            }
        )
    )
    assert meta.attributes["owner"] == AttributeValue(AttributeType.STRING, "ops", True)
    assert meta.attributes["year"] == AttributeValue(AttributeType.NUMBER, 1989.0, False)
    assert meta.attributes["public"] == AttributeValue(AttributeType.BOOLEAN, True, True)
    assert meta.attributes["animals"].value == ("cat", "dog")
    assert meta.attributes["bare"].include_for_embedding is False


def test_readers_come_from_the_reserved_key_sorted_and_unique() -> None:
    meta = parse_sidecar(sidecar({"chunkwise_readers": ["b", "a", "b"], "x": "y"}))
    assert meta.readers == ("a", "b")
    assert "chunkwise_readers" not in meta.attributes
    explicit_none = parse_sidecar(sidecar({"chunkwise_readers": []}))
    assert explicit_none.readers == ()
    typed = {"value": {"type": "STRING_LIST", "stringListValue": ["legal"]}}
    assert parse_sidecar(sidecar({"chunkwise_readers": typed})).readers == ("legal",)


def test_the_readers_key_is_configurable_and_then_the_default_is_an_ordinary_reserved_key() -> None:
    meta = parse_sidecar(sidecar({"allowed_groups": ["hr"]}), readers_key="allowed_groups")
    assert meta.readers == ("hr",) and meta.attributes == {}
    error = refused(sidecar({"chunkwise_readers": ["hr"]}), readers_key="allowed_groups")
    assert error.field == "metadataAttributes.chunkwise_readers"
    with pytest.raises(MetadataError, match="readers_key"):
        parse_sidecar(sidecar({}), readers_key="bad.key")


def test_readers_may_list_up_to_100_groups_more_than_a_string_list() -> None:
    groups = [f"g{i}" for i in range(100)]
    assert len(parse_sidecar(sidecar({"chunkwise_readers": groups})).readers or ()) == 100
    error = refused(sidecar({"chunkwise_readers": [*groups, "g100"]}))
    assert error.field == "metadataAttributes.chunkwise_readers" and "100" in error.reason


def test_other_top_level_fields_are_ignored_with_a_note_and_a_bom_is_accepted() -> None:
    structure = {"type": "RECORD_BASED_STRUCTURE_METADATA"}
    data = sidecar({"a": "b"}, documentStructureConfiguration=structure)
    meta = parse_sidecar(b"\xef\xbb\xbf" + data)
    assert meta.attributes["a"].value == "b"
    assert meta.notes == ("documentStructureConfiguration: ignored (not used by chunkwise)",)


def test_the_version_follows_the_content_not_the_formatting() -> None:
    a = parse_sidecar(b'{"metadataAttributes": {"x": "1", "y": [ "a" ]}}')
    b = parse_sidecar(b'{ "metadataAttributes" : { "y" : ["a"], "x" : "1" } }')
    c = parse_sidecar(b'{"metadataAttributes": {"x": "2", "y": ["a"]}}')
    d = parse_sidecar(b'{"metadataAttributes": {"x": "1", "y": ["a"], "chunkwise_readers": []}}')
    assert a.version == b.version
    assert len({a.version, c.version, d.version}) == 3


def test_metadata_is_immutable() -> None:
    meta = parse_sidecar(sidecar({"a": "b"}))
    with pytest.raises(TypeError):
        meta.attributes["a"] = AttributeValue(AttributeType.STRING, "c")  # type: ignore[index]


def test_sidecar_keys() -> None:
    assert sidecar_key("docs/a.pdf") == "docs/a.pdf.metadata.json"
    assert is_sidecar_key("docs/a.pdf.metadata.json")
    assert not is_sidecar_key("docs/a.pdf") and not is_sidecar_key(".metadata.json")


# --------------------------------------------------------------------------- refused


@pytest.mark.parametrize(
    ("attributes", "field", "reason"),
    [
        ({"a.b": "x"}, "metadataAttributes.'a.b'", "key refused"),
        ({"-a": "x"}, "metadataAttributes.'-a'", "key refused"),
        ({"k" * 101: "x"}, "metadataAttributes.'" + "k" * 40 + "'...", "key refused"),
        ({"x-amz-bedrock-kb-source-uri": "s3://b/k"}, None, "Bedrock's own"),
        ({"chunkwise_owner": "x"}, "metadataAttributes.chunkwise_owner", "reserved for chunkwise"),
        ({"a": None}, "metadataAttributes.a", "null"),
        ({"a": ""}, "metadataAttributes.a", "empty"),
        ({"a": "x" * 2049}, "metadataAttributes.a", "2048"),
        ({"a": "\ud800"}, "metadataAttributes.a", "surrogate"),
        ({"a": []}, "metadataAttributes.a", "1 to 10"),
        ({"a": [str(i) for i in range(11)]}, "metadataAttributes.a", "at most 10"),
        ({"a": ["x", 1]}, "metadataAttributes.a[1]", "strings only"),
        ({"a": [["x"]]}, "metadataAttributes.a[0]", "strings only"),
        ({"a": {"nested": 1}}, "metadataAttributes.a", "nested objects"),
        ({"a": 10**400}, "metadataAttributes.a", "finite"),
        ({"chunkwise_readers": "legal"}, "metadataAttributes.chunkwise_readers", "group names"),
        ({"chunkwise_readers": ["ok", "bad\tname"]}, "metadataAttributes.chunkwise_readers[1]",
         "control"),
        ({"chunkwise_readers": ["g" * 257]}, "metadataAttributes.chunkwise_readers[0]", "1-256"),
    ],
)  # fmt: skip
def test_each_bound_is_refused_with_its_field_named(
    attributes: dict[str, Any], field: str | None, reason: str
) -> None:
    error = refused(sidecar(attributes))
    assert isinstance(error, PermanentError)
    if field is not None:
        assert error.field == field
    assert reason in error.reason


@pytest.mark.parametrize(
    ("typed", "field", "reason"),
    [
        ({"value": {"type": "STRING", "numberValue": 1}}, "metadataAttributes.a.value",
         "exactly one stringValue"),
        ({"value": {"type": "STRING", "stringValue": "x", "numberValue": 1}},
         "metadataAttributes.a.value", "exactly one stringValue"),
        ({"value": {"type": "DATE", "stringValue": "x"}}, "metadataAttributes.a.value.type",
         "STRING"),
        ({"value": {"type": "NUMBER", "numberValue": "1"}},
         "metadataAttributes.a.value.numberValue", "number"),
        ({"value": {"type": "NUMBER", "numberValue": True}},
         "metadataAttributes.a.value.numberValue", "number"),
        ({"value": {"type": "BOOLEAN", "booleanValue": "true"}},
         "metadataAttributes.a.value.booleanValue", "boolean"),
        ({"value": {"type": "STRING_LIST", "stringListValue": []}},
         "metadataAttributes.a.value.stringListValue", "1 to 10"),
        ({"value": {"type": "STRING", "stringValue": ""}},
         "metadataAttributes.a.value.stringValue", "empty"),
        ({"value": {"type": "STRING", "stringValue": "x"}, "includeForEmbedding": "yes"},
         "metadataAttributes.a.includeForEmbedding", "boolean"),
        ({"value": {"type": "STRING", "stringValue": "x"}, "extra": 1},
         "metadataAttributes.a.extra", "Extra"),
    ],
)  # fmt: skip
def test_the_typed_form_is_checked_member_by_member(
    typed: dict[str, Any], field: str, reason: str
) -> None:
    error = refused(sidecar({"a": typed}))
    assert error.field == field and reason in error.reason


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xff\xfe{}", "UTF-8"),
        (b'{"metadataAttributes": {', "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"metadataAttributes": {"a": NaN}}', "NaN"),
        (b'{"metadataAttributes": {"a": "x", "a": "y"}}', "twice"),
        (b'{"metadataAttributes": {"a": 1}, "metadataAttributes": {}}', "twice"),
        (b"[" * 100_000 + b"]" * 100_000, "larger than"),
        (b'{"metadataAttributes": ' + b"[" * 5000 + b"]" * 5000 + b"}", "not valid JSON"),
        (b'{"attributes": {}}', "required"),
        (b'{"metadataAttributes": ["a"]}', "object"),
    ],
)
def test_a_broken_sidecar_is_refused_whole(data: bytes, reason: str) -> None:
    assert reason in str(refused(data))


def test_a_number_beyond_a_double_is_refused_not_made_infinite() -> None:
    error = refused(b'{"metadataAttributes": {"big": 1e400}}')
    assert error.field == "metadataAttributes.big" and "finite" in error.reason
    assert "Infinity" in str(refused(b'{"metadataAttributes": {"big": Infinity}}'))
    negative_zero = parse_sidecar(b'{"metadataAttributes": {"z": -0.0}}')
    assert str(negative_zero.attributes["z"].value) == "0.0"


def test_the_size_bound_is_bedrocks_10_kb() -> None:
    filler = "x" * 2000
    attributes = {f"k{i}": filler for i in range(5)}
    data = sidecar(attributes)
    assert len(data) < MAX_SIDECAR_BYTES
    assert len(parse_sidecar(data).attributes) == 5
    padded = data[:-1] + b" " * (MAX_SIDECAR_BYTES - len(data) + 1) + b"}"
    assert "larger than 10240 bytes" in str(refused(padded))


def test_at_most_50_attributes() -> None:
    assert len(parse_sidecar(sidecar({f"k{i}": i for i in range(50)})).attributes) == 50
    assert "at most 50" in refused(sidecar({f"k{i}": i for i in range(51)})).reason


def test_keys_named_like_chunkwise_fields_are_ordinary_metadata_keys() -> None:
    """A sidecar may say ``lang``, ``kind``, ``state`` or ``readers``: metadata lives
    under ``meta.<type>.<key>``, so no key can shadow a top-level chunk field."""
    from chunkwise.index.mapping import index_body
    from chunkwise.metadata.fields import document_fields

    own = sorted(index_body(8)["mappings"]["properties"])
    parsed = parse_sidecar(sidecar({name: "x" for name in own[:50]}))
    assert sorted(parsed.attributes) == own[:50] and parsed.readers is None
    fields = document_fields(parsed)
    assert set(fields) == {"meta", "readers"}  # nothing but the metadata fields
    assert sorted(fields["meta"]["s"]) == own[:50]


# --------------------------------------------------------------------------- sources


def test_sidecar_wins_over_tags_and_tags_over_user_metadata() -> None:
    side = parse_sidecar(sidecar({"team": "legal", "chunkwise_readers": ["legal"]}))
    merged = merge_sources(
        side,
        tags={"team": "ops", "region": "eu", "aws:cloudformation:stack-name": "s"},
        user_metadata={"team": "hr", "region": "us", "x-amz-meta-origin": "scanner"},
    )
    values = {k: v.value for k, v in merged.attributes.items()}
    assert values == {"team": "legal", "region": "eu", "origin": "scanner"}
    assert all(v.type is AttributeType.STRING for v in merged.attributes.values())
    assert merged.readers == ("legal",)
    assert "tag:region: overrides user-metadata:region" in merged.notes
    assert (
        "metadataAttributes.team: overrides the tag/user metadata of the same key" in merged.notes
    )
    assert any("aws:cloudformation" in n and "skipped" in n for n in merged.notes)
    assert merged.version != side.version


def test_readers_never_come_from_tags_or_user_metadata() -> None:
    for source in ("tags", "user_metadata"):
        with pytest.raises(MetadataError, match="readers come from the sidecar only"):
            merge_sources(None, **{source: {"chunkwise_readers": "everyone"}})
    only_tags = merge_sources(None, tags={"team": "ops"})
    assert only_tags.readers is None  # deny by default: no sidecar, no readers


@pytest.mark.parametrize(
    ("tags", "field", "reason"),
    [
        ({"a/b": "x"}, "tag:'a/b'", "key refused"),
        ({"chunkwise_x": "x"}, "tag:chunkwise_x", "reserved"),
        ({"a": "x" * 2049}, "tag:a", "2048"),
    ],
)
def test_tags_follow_the_sidecars_key_and_value_rules(
    tags: dict[str, str], field: str, reason: str
) -> None:
    with pytest.raises(MetadataError) as info:
        merge_sources(None, tags=tags)
    assert info.value.field == field and reason in info.value.reason


def test_empty_tag_values_are_skipped_with_a_note_and_the_total_is_bounded() -> None:
    merged = merge_sources(None, tags={"flag": ""})
    assert merged.attributes == {} and merged.notes == ("tag:flag: skipped (empty value)",)
    side = DocumentMetadata({f"s{i}": AttributeValue(AttributeType.STRING, "v") for i in range(45)})
    with pytest.raises(MetadataError, match="at most 50 attributes from all sources"):
        merge_sources(side, tags={f"t{i}": "v" for i in range(6)})
