"""Sidecars through the ingest pipeline, over the port fakes: a document's revision state
is (object version, sidecar version); a sidecar-only change is restamped from the index
without extracting or embedding; a bad sidecar fails its document alone (fail closed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chunkwise.errors import PermanentError
from chunkwise.index.names import make_doc_id
from chunkwise.index.states import State
from chunkwise.index.versions import ObjectVersion, revision_key
from chunkwise.ingest.maintenance import apply_retention, sweep, verify_generation
from chunkwise.ingest.messages import ObjectChange, parse_message
from chunkwise.ingest.sidecars import document_key, fold_sidecars
from chunkwise.metadata import NO_READERS, MetadataError
from tests.fakes.bucket import FakeBucket
from tests.fakes.pipeline import BUCKET, DATA, FakeLiveSet, FakeQueue, Rig, make_rig

MANUAL = (DATA / "manual_en.md").read_bytes()
DOC = "incoming/manual_en.md"
SIDECAR = DOC + ".metadata.json"
DOC_ID = make_doc_id(BUCKET, DOC)


def change(key: str) -> ObjectChange:
    return ObjectChange(BUCKET, key, raw_key=key)


def sidecar(attributes: dict[str, Any]) -> bytes:
    return json.dumps({"metadataAttributes": attributes}).encode()


def live_fields(rig: Rig, doc_id: str = DOC_ID) -> list[dict[str, Any]]:
    return rig.index.fields_of(doc_id, State.LIVE)


def live_vectors(rig: Rig, doc_id: str = DOC_ID) -> list[list[float]]:
    rows = rig.index.docs[doc_id]
    return [rig.index.stored[i][1] for i, r in sorted(rows.items()) if r[2] is State.LIVE]


@pytest.fixture
def rig(counter: object) -> Rig:
    return make_rig(counter)


def refuse_extraction(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call of the extractor from here on, recorded and refused."""
    calls: list[str] = []

    def refuse(data: bytes, *, filename: str = "", **_kw: Any) -> Any:
        calls.append(filename)
        raise AssertionError(f"{filename} extracted again")

    monkeypatch.setattr("chunkwise.extract.extract", refuse)
    return calls


# --------------------------------------------------------------------------- pure


def test_a_sidecar_key_names_its_document_and_a_listing_folds_it_in() -> None:
    assert document_key(SIDECAR) == DOC and document_key(DOC) == DOC
    assert document_key(SIDECAR + ".metadata.json") is None  # a sidecar's sidecar
    s3 = FakeBucket(BUCKET)
    doc = s3.put(DOC, b"x")
    side = s3.put(SIDECAR, b"{}")
    s3.put("incoming/orphan.md.metadata.json", b"{}")  # no document: nothing to index
    s3.put("incoming/other.md", b"y")
    folded = {v.key: v for v in fold_sidecars(s3.list_current())}
    assert sorted(folded) == [DOC, "incoming/other.md"]
    assert folded[DOC].metadata_version == side.revision
    assert folded[DOC].revision_key == f"{doc.revision}|{side.revision}"
    assert folded["incoming/other.md"].revision_key == folded["incoming/other.md"].revision


def test_the_revision_key_is_the_bare_revision_without_metadata() -> None:
    v = ObjectVersion("2026-01-01T00:00:00Z", "abc+/=", key=DOC)
    assert v.revision_key == "abc+/=" == revision_key("abc+/=", "")
    side = ObjectVersion("2026-01-01T00:00:00Z", "null", key=SIDECAR, etag='"f00"')
    assert v.with_sidecar(side).revision_key == "abc+/=|etag-f00"
    assert v.with_sidecar(side) != v and v.with_sidecar(side).with_sidecar(None) == v


# --------------------------------------------------------------------------- full loads


def test_a_document_is_stamped_with_its_sidecar_and_user_metadata(rig: Rig) -> None:
    rig.store.put(DOC, MANUAL, metadata={"team": "ops", "origin": "scanner"})
    side = rig.store.put(
        SIDECAR,
        sidecar({"team": "legal", "year": 2024, "lang": "en", "chunkwise_readers": ["hr", "a"]}),
    )
    res = rig.pipeline.ingest(change(DOC))
    assert res.status == "indexed" and not res.metadata_only
    assert res.metadata_version == side.revision and res.extractions == 1
    assert res.embedding_calls == len(rig.embedder.calls) >= 1
    assert res.readers == 2 and res.metadata_attributes == 4
    fields = live_fields(rig)
    assert len(fields) == res.chunks > 0
    assert all(f == fields[0] for f in fields)  # the same metadata on every chunk
    assert fields[0]["meta"]["s"] == {"team": "legal", "origin": "scanner", "lang": "en"}
    assert fields[0]["meta"]["n"] == {"year": 2024.0}
    assert fields[0]["readers"] == ["a", "hr"] and fields[0]["metadata_version"] == side.revision
    head = rig.index.heads[DOC_ID]
    assert head.metadata_version == side.revision
    assert rig.index.live(DOC_ID) == {head.revision_key}


def test_a_document_without_sidecar_has_no_readers_and_its_plain_revision_key(rig: Rig) -> None:
    v = rig.store.put(DOC, MANUAL)
    res = rig.pipeline.ingest(change(DOC))
    assert res.metadata_version == "" and rig.index.live(DOC_ID) == {v.revision}
    assert {f["readers"][0] for f in live_fields(rig)} == {NO_READERS}


def test_object_and_sidecar_changed_together_are_loaded_once_with_the_new_metadata(
    rig: Rig,
) -> None:
    rig.store.put(DOC, MANUAL)
    rig.store.put(SIDECAR, sidecar({"team": "a"}))
    rig.pipeline.ingest(change(DOC))
    v2 = rig.store.put(DOC, MANUAL + b"\n\nA new closing paragraph.\n")
    m2 = rig.store.put(SIDECAR, sidecar({"team": "b"}))
    res = rig.pipeline.ingest(change(SIDECAR))  # either event: the state is the pair
    assert res.extractions == 1 and not res.metadata_only
    assert rig.index.live(DOC_ID) == {revision_key(v2.revision, m2.revision)}
    assert {f["meta"]["s"]["team"] for f in live_fields(rig)} == {"b"}


# --------------------------------------------------------------------------- restamps


def test_a_new_sidecar_restamps_the_chunks_without_extracting_or_embedding(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    v = rig.store.put(DOC, MANUAL)
    first = rig.pipeline.ingest(change(DOC))
    vectors, calls = live_vectors(rig), len(rig.embedder.calls)
    no_extraction = refuse_extraction(monkeypatch)
    gets = len(rig.store.gets)
    m1 = rig.store.put(SIDECAR, sidecar({"team": "legal", "chunkwise_readers": ["legal"]}))
    res = rig.pipeline.ingest(change(SIDECAR))
    assert res.key == DOC and res.status == "indexed" and res.metadata_only
    assert (res.extractions, res.embedding_calls) == (0, 0)
    assert no_extraction == [] and len(rig.embedder.calls) == calls  # nothing called
    assert rig.store.gets[gets:] == [(SIDECAR, m1.version_id)]  # the sidecar only
    assert res.chunks == first.chunks and "restamp" in res.stages
    assert rig.index.live(DOC_ID) == {revision_key(v.revision, m1.revision)}
    assert live_vectors(rig) == vectors  # the same vectors, copied
    assert {f["readers"][0] for f in live_fields(rig)} == {"legal"}
    superseded = rig.index.fields_of(DOC_ID, State.SUPERSEDED)
    assert len(superseded) == first.chunks and superseded[0]["readers"] == [NO_READERS]


def test_a_changed_sidecar_replaces_the_metadata_and_drops_what_is_gone(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig.store.put(DOC, MANUAL)
    rig.store.put(SIDECAR, sidecar({"team": "legal", "draft": True}))
    rig.pipeline.ingest(change(DOC))
    no_extraction = refuse_extraction(monkeypatch)
    m2 = rig.store.put(SIDECAR, sidecar({"team": "ops"}))
    res = rig.pipeline.ingest(change(SIDECAR))
    assert res.metadata_only and res.metadata_version == m2.revision
    fields = live_fields(rig)
    assert {f["meta"]["s"]["team"] for f in fields} == {"ops"}
    assert all(f["meta"]["b"] == {} for f in fields)  # draft is gone, not merged
    assert no_extraction == []


def test_a_deleted_sidecar_restamps_back_to_the_bare_state(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    v = rig.store.put(DOC, MANUAL)
    first = rig.pipeline.ingest(change(DOC))  # state v (bare)
    rig.store.put(SIDECAR, sidecar({"chunkwise_readers": ["legal"]}))
    rig.pipeline.ingest(change(SIDECAR))  # state v|m1
    no_extraction = refuse_extraction(monkeypatch)
    rig.store.delete(SIDECAR)
    res = rig.pipeline.ingest(change(SIDECAR))
    assert res.metadata_only and res.metadata_version == ""
    # the bare state's chunk ids repeat: its superseded chunks are written over and live
    assert rig.index.live(DOC_ID) == {v.revision}
    fields = live_fields(rig)
    assert len(fields) == first.chunks and {f["readers"][0] for f in fields} == {NO_READERS}
    assert no_extraction == []


def test_a_restamp_whose_chunks_are_gone_falls_back_to_a_full_load(rig: Rig) -> None:
    rig.store.put(DOC, MANUAL)
    rig.pipeline.ingest(change(DOC))
    head = rig.index.heads[DOC_ID]
    victim = next(iter(rig.index.docs[DOC_ID]))
    del rig.index.docs[DOC_ID][victim]  # erased behind the switch's back
    rig.store.put(SIDECAR, sidecar({"team": "x"}))
    res = rig.pipeline.ingest(change(SIDECAR))
    assert rig.index.reads == [(DOC_ID, head.revision_key)]
    assert res.status == "indexed" and not res.metadata_only and res.extractions == 1


def test_a_sidecar_before_its_document_is_nothing_to_index(rig: Rig) -> None:
    rig.store.put(SIDECAR, sidecar({"team": "legal"}))
    res = rig.pipeline.ingest(change(SIDECAR))
    assert res.key == DOC and res.status == "retired" and res.error is None
    assert rig.index.docs == {} and rig.index.failures == {} and rig.embedder.calls == []
    rig.store.put(DOC, MANUAL)
    res = rig.pipeline.ingest(change(DOC))
    assert res.status == "indexed" and {f["meta"]["s"]["team"] for f in live_fields(rig)} == {
        "legal"
    }


def test_the_event_of_a_sidecar_is_a_change_of_its_document(rig: Rig) -> None:
    body = json.dumps(
        {
            "Records": [
                {
                    "eventName": "ObjectCreated:Put",
                    "s3": {
                        "bucket": {"name": BUCKET},
                        "object": {"key": "incoming/price+list+%28A%2BB%29.txt.metadata.json"},
                    },
                }
            ]
        }
    )
    (c,) = parse_message(body)
    rig.store.put("incoming/price list (A+B).txt", b"Prices\n\nA list of prices.\n")
    (res,) = rig.pipeline.ingest_batch([c])
    assert res.key == "incoming/price list (A+B).txt" and res.status == "indexed"
    assert res.doc_id == make_doc_id(BUCKET, "incoming/price list (A+B).txt")


# --------------------------------------------------------------------------- bad sidecars


def test_a_bad_sidecar_fails_its_document_alone_and_closed(rig: Rig) -> None:
    rig.store.put(DOC, MANUAL)
    rig.store.put(SIDECAR, sidecar({"chunkwise_readers": ["legal"]}))
    rig.pipeline.ingest(change(DOC))
    other = "incoming/handbuch_de.md"
    rig.store.put(other, (DATA / "handbuch_de.md").read_bytes())
    bad = rig.store.put(SIDECAR, sidecar({"chunkwise_readers": ["legal"], "year": [1, 2]}))
    results = rig.pipeline.ingest_batch([change(SIDECAR), change(other)])
    failed, good = results
    assert failed.status == "failed" and isinstance(failed.error, MetadataError)
    assert isinstance(failed.error, PermanentError)  # the DLQ after the queue's retries
    assert failed.error.field == "metadataAttributes.year[0]"
    assert good.status == "indexed" and good.error is None
    # fail closed: the older state (with its readers) is no longer served
    assert rig.index.live(DOC_ID) == set()
    head = rig.index.heads[DOC_ID]
    assert head.failed and head.metadata_version == bad.revision
    assert set(rig.index.failures[DOC_ID]) == {head.revision_key}
    # redelivered: fails again from the head alone, nothing fetched or extracted
    gets = len(rig.store.gets)
    again = rig.pipeline.ingest_batch([change(DOC)])[0]
    assert isinstance(again.error, PermanentError) and rig.store.gets[gets:] == []
    # fixed: indexed again
    rig.store.put(SIDECAR, sidecar({"chunkwise_readers": ["legal"], "year": 2024}))
    assert rig.pipeline.ingest(change(SIDECAR)).status == "indexed"
    assert len(rig.index.live(DOC_ID)) == 1


def test_an_oversized_sidecar_is_refused_before_it_is_read(rig: Rig) -> None:
    rig.store.put(DOC, MANUAL)
    rig.store.put(SIDECAR, b" " * 20_000)
    with pytest.raises(MetadataError, match="larger than 10240 bytes"):
        rig.pipeline.ingest(change(DOC))
    assert SIDECAR not in {k for k, _v in rig.store.gets}
    assert DOC not in {k for k, _v in rig.store.gets}  # nor the document fetched


def test_readers_from_user_metadata_are_refused(rig: Rig) -> None:
    rig.store.put(DOC, MANUAL, metadata={"chunkwise_readers": "everyone"})
    with pytest.raises(MetadataError, match="readers come from the sidecar only"):
        rig.pipeline.ingest(change(DOC))


# --------------------------------------------------------------------------- maintenance


def _live_set(rig: Rig) -> FakeLiveSet:
    keys = {make_doc_id(BUCKET, k): k for k in rig.store.objects}
    return FakeLiveSet(rig.index, keys)


def test_the_sweep_repairs_metadata_drift_by_restamping(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig.store.put(DOC, MANUAL)
    rig.pipeline.ingest(change(DOC))
    no_extraction = refuse_extraction(monkeypatch)
    m1 = rig.store.put(SIDECAR, sidecar({"team": "legal"}))  # its event is lost
    rig.store.put("incoming/orphan.md.metadata.json", sidecar({"team": "x"}))  # no document
    config = rig.pipeline.config
    queue = FakeQueue()
    enqueued = sweep(config, rig.store, _live_set(rig), queue=queue)
    assert enqueued.drifted == [DOC] and enqueued.bucket_keys == 1
    assert [parse_message(b)[0].key for b in queue.bodies] == [DOC]  # the document's key
    res = sweep(config, rig.store, _live_set(rig), pipeline=rig.pipeline)
    assert res.repaired == [DOC] and no_extraction == []
    assert {f["metadata_version"] for f in live_fields(rig)} == {m1.revision}
    assert sweep(config, rig.store, _live_set(rig), pipeline=rig.pipeline).drifted == []


def test_a_generation_is_complete_only_with_the_current_metadata(rig: Rig) -> None:
    rig.store.put(DOC, MANUAL)
    rig.pipeline.ingest(change(DOC))
    config = rig.pipeline.config
    assert verify_generation(config, rig.store, _live_set(rig), "g1").complete
    rig.store.put(SIDECAR, sidecar({"team": "legal"}))
    check = verify_generation(config, rig.store, _live_set(rig), "g1")
    assert not check.complete and check.missing == (DOC,) and check.bucket_keys == 1


def test_a_known_bad_sidecar_is_not_re_enqueued_by_the_sweep(rig: Rig) -> None:
    rig.store.put(DOC, MANUAL)
    rig.store.put(SIDECAR, b"not json")
    assert rig.pipeline.ingest_batch([change(DOC)])[0].status == "failed"
    res = sweep(rig.pipeline.config, rig.store, _live_set(rig), queue=FakeQueue())
    assert res.drifted == [] and list(res.known_failures) == [DOC]
    assert "sidecar: not valid JSON" in res.known_failures[DOC]


def test_retention_keeps_the_artifacts_a_restamped_state_shares(rig: Rig) -> None:
    v1 = rig.store.put(DOC, MANUAL)
    rig.pipeline.ingest(change(DOC))
    rig.store.put(SIDECAR, sidecar({"team": "a"}))
    rig.pipeline.ingest(change(SIDECAR))  # v1 superseded by v1|m1: same artifacts
    config = rig.pipeline.config
    md = config.artifact_key(DOC_ID, v1.revision, ".md")
    kept = apply_retention(config, rig.index, rig.artifacts, 0)
    assert kept.expired_revisions == 1 and kept.deleted_chunks > 0
    assert kept.deleted_artifacts == 0 and md in rig.artifacts.files
    v2 = rig.store.put(DOC, MANUAL + b"\n\nv2\n")
    rig.pipeline.ingest(change(DOC))  # v1|m1 superseded by v2|m1: v1 is gone
    erased = apply_retention(config, rig.index, rig.artifacts, 0)
    assert erased.deleted_artifacts == 2 and md not in rig.artifacts.files
    assert config.artifact_key(DOC_ID, v2.revision, ".md") in rig.artifacts.files
