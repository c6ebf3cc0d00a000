"""The index layout of metadata: the mapping fragment, each chunk's fields, date values."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from chunkwise.metadata import (
    NO_READERS,
    AttributeType,
    AttributeValue,
    DocumentMetadata,
    document_fields,
    metadata_mapping,
    parse_sidecar,
)
from chunkwise.metadata.dates import canonical_date, epoch_millis, iso_instant
from chunkwise.metadata.model import group_refusal


def test_the_mapping_is_typed_per_sub_object_and_nothing_else_is_dynamic() -> None:
    mapping = metadata_mapping()
    templates = {
        name: spec for entry in mapping["dynamic_templates"] for name, spec in entry.items()
    }
    types = {spec["path_match"]: spec["mapping"]["type"] for spec in templates.values()}
    assert types == {
        "meta.s.*": "keyword",
        "meta.n.*": "double",
        "meta.b.*": "boolean",
        "meta.l.*": "keyword",
        "meta.d.*": "date",
    }
    # No template may match by JSON type: date detection must not decide a key's type.
    assert all("match_mapping_type" not in spec for spec in templates.values())
    props = mapping["properties"]
    assert props["meta"]["dynamic"] == "strict"
    assert {sub: spec["dynamic"] for sub, spec in props["meta"]["properties"].items()} == {
        sub: "strict_allow_templates" for sub in "snbld"
    }
    assert props["readers"] == {"type": "keyword", "ignore_above": 256}
    assert props["metadata_version"] == {"type": "keyword"}
    assert set(props) == {"meta", "readers", "metadata_version"}


def test_document_fields_put_each_type_in_its_place() -> None:
    meta = DocumentMetadata(
        {
            "dept": AttributeValue(AttributeType.STRING, "legal"),
            "signed": AttributeValue(AttributeType.STRING, "2024-05-31T08:30:00+02:00"),
            "year": AttributeValue(AttributeType.NUMBER, 2024.0),
            "draft": AttributeValue(AttributeType.BOOLEAN, False),
            "tags": AttributeValue(AttributeType.STRING_LIST, ("a", "b")),
        },
        readers=("legal", "auditors"),
    )
    fields = document_fields(meta)
    assert fields == {
        "meta": {
            "s": {"dept": "legal", "signed": "2024-05-31T08:30:00+02:00"},
            "n": {"year": 2024.0},
            "b": {"draft": False},
            "l": {"tags": ["a", "b"]},
            "d": {"signed": "2024-05-31T06:30:00.000Z"},
        },
        "readers": ["legal", "auditors"],
    }


def test_a_document_without_readers_gets_the_marker_that_no_group_can_be() -> None:
    for meta in (
        DocumentMetadata(),
        parse_sidecar(b'{"metadataAttributes": {"chunkwise_readers": []}}'),
    ):
        fields = document_fields(meta)
        assert fields["readers"] == [NO_READERS]
        assert fields["meta"] == {"s": {}, "n": {}, "b": {}, "l": {}, "d": {}}
    assert group_refusal(NO_READERS) is not None


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("2024-05-31", datetime(2024, 5, 31, tzinfo=UTC)),
        ("2024-05-31T08:30", datetime(2024, 5, 31, 8, 30, tzinfo=UTC)),
        ("2024-05-31T08:30:15Z", datetime(2024, 5, 31, 8, 30, 15, tzinfo=UTC)),
        ("2024-05-31T08:30:15.1234567+02:00", datetime(2024, 5, 31, 6, 30, 15, 123000, tzinfo=UTC)),
        ("2024-01-01T00:30:00-01:30", datetime(2024, 1, 1, 2, 0, tzinfo=UTC)),
        ("0001-01-01", datetime(1, 1, 1, tzinfo=UTC)),
        ("2024-02-29", datetime(2024, 2, 29, tzinfo=UTC)),
    ],
)
def test_strict_iso_dates_name_an_instant(text: str, instant: datetime) -> None:
    assert iso_instant(text) == instant


@pytest.mark.parametrize(
    "text",
    [
        "2023-02-29", "2024-13-01", "2024-5-31", "31.05.2024", "2024-05-31T24:00",
        "2024-05-31T08:30:60", "2024-05-31 08:30", "20240531", "2024-W22-5", "2024-05-31Z",
        "2024-05-31T08:30+25:00", "0001-01-01T00:00+01:00", "legal", "2024",
    ],
)  # fmt: skip
def test_anything_else_is_text_only(text: str) -> None:
    assert iso_instant(text) is None
    assert canonical_date(text) is None and epoch_millis(text) is None


def test_the_canonical_form_and_epoch_millis_agree() -> None:
    assert canonical_date("1970-01-01T00:00:00.001Z") == "1970-01-01T00:00:00.001Z"
    assert epoch_millis("1970-01-01T00:00:00.001Z") == 1
    assert epoch_millis("1969-12-31T23:59:59.999Z") == -1
    assert canonical_date("0999-12-31") == "0999-12-31T00:00:00.000Z"
    assert epoch_millis("2024-05-31T08:30:00+02:00") == 1717137000000
