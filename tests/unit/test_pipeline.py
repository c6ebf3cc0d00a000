"""chunkwise.ingest.pipeline over fakes: events -> reconcile -> index, artifacts, sweep, rechunk."""

from __future__ import annotations

import json

import pytest

from chunkwise.errors import ConfigError, PermanentError
from chunkwise.extract import CorruptDocument, LimitExceeded, UnsupportedFormat
from chunkwise.index.names import make_doc_id
from chunkwise.index.states import State
from chunkwise.ingest.config import build_config
from chunkwise.ingest.maintenance import fan_out_rechunk, plan_sweep, sweep, verify_generation
from chunkwise.ingest.messages import MessageError, ObjectChange, change_message, parse_message
from chunkwise.stats import percentiles
from tests.fakes.pipeline import (
    BUCKET,
    DATA,
    FakeLiveSet,
    FakeQueue,
    load_event,
    make_rig,
)

MANUAL = (DATA / "manual_en.md").read_bytes()
HANDBUCH = (DATA / "handbuch_de.md").read_bytes()


def _body(event: str, i: int = 0) -> str:
    records = load_event(event)["Records"]
    assert isinstance(records, list)
    return str(records[i]["body"])


def change(key: str, **kw: object) -> ObjectChange:
    return ObjectChange(BUCKET, key, raw_key=key, **kw)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("event", "key", "source"),
    [
        ("sqs_s3_put.json", "incoming/manual_en.md", "s3"),
        ("sqs_s3_put_second_version.json", "incoming/manual_en.md", "s3"),
        ("sqs_s3_delete_marker.json", "incoming/manual_en.md", "s3"),
        ("sqs_s3_put_non_ascii_key.json", "incoming/Berichte/Übersicht März 2026.pdf", "s3"),
        ("sqs_s3_put_plus_key.json", "incoming/price list 2026 (A+B).txt", "s3"),
        ("sqs_eventbridge_object_created.json", "incoming/handbuch_de.md", "eventbridge"),
        ("sqs_eventbridge_object_deleted.json", "incoming/handbuch_de.md", "eventbridge"),
    ],
)
def test_parse_sample_events(event: str, key: str, source: str) -> None:
    (c,) = parse_message(_body(event))
    assert c.bucket == BUCKET
    assert c.key == key
    assert c.source == source
    assert c.kind == "changed"


def test_raw_key_is_kept_and_version_is_informative_only() -> None:
    (c,) = parse_message(_body("sqs_s3_put_non_ascii_key.json"))
    assert c.raw_key == "incoming/Berichte/%C3%9Cbersicht+M%C3%A4rz+2026.pdf"
    assert c.event_version == "Q7t3y0eXw1s2.DeVl8pUvKx_J9nB4mZa"


def test_test_event_is_skipped() -> None:
    assert parse_message(_body("sqs_s3_test_event.json")) == []


def test_direct_eventbridge_event() -> None:
    (c,) = parse_message(load_event("eventbridge_object_deleted.json"))
    assert c.key == "incoming/handbuch_de.md" and c.event_name == "Object Deleted"


def test_emulator_shape_without_version_and_sequencer() -> None:
    body = {
        "Records": [
            {
                "eventName": "ObjectCreated:Put",
                "s3": {
                    "bucket": {"name": BUCKET},
                    "object": {"key": "incoming/a%20b+c.txt", "size": 3},
                },
            }
        ]
    }
    (c,) = parse_message(json.dumps(body))
    assert c.key == "incoming/a b c.txt" and c.event_version is None


def test_sns_envelope_and_chunkwise_messages() -> None:
    inner = _body("sqs_s3_put.json")
    (c,) = parse_message(json.dumps({"Type": "Notification", "Message": inner}))
    assert c.key == "incoming/manual_en.md"
    (r,) = parse_message(change_message(BUCKET, "incoming/x ü.md", "rechunk", "g2"))
    assert (r.kind, r.key, r.generation) == ("rechunk", "incoming/x ü.md", "g2")


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[1, 2]",
        '{"hello": 1}',
        '{"chunkwise": "explode"}',
        '{"chunkwise": "reconcile"}',
        '{"Records": [{"x": 1}]}',
    ],
)
def test_bad_messages_are_permanent(body: str) -> None:
    with pytest.raises(MessageError) as err:
        parse_message(body)
    assert isinstance(err.value, PermanentError)


# --------------------------------------------------------------------------- config


def test_artifacts_where_the_trigger_listens_are_rejected() -> None:
    with pytest.raises(ConfigError, match="artifacts"):
        build_config(bucket="b-1", input_prefix="")
    with pytest.raises(ConfigError, match="artifacts"):
        build_config(bucket="b-1", input_prefix="docs/", artifacts_prefix="docs/extracted/")
    build_config(bucket="b-1", input_prefix="", artifacts_bucket="b-2")  # separate bucket: ok
    cfg = build_config(bucket="b-1", input_prefix="incoming/")
    assert cfg.watches("incoming/a.md")
    assert not cfg.watches("extracted/x/y.md")
    assert not cfg.watches("incoming/folder/")


# --------------------------------------------------------------------------- ingest


def test_new_document_is_indexed_with_artifacts(counter: object) -> None:
    rig = make_rig(counter)
    v = rig.store.put("incoming/manual_en.md", MANUAL)
    res = rig.pipeline.ingest(change("incoming/manual_en.md"))
    doc_id = make_doc_id(BUCKET, "incoming/manual_en.md")
    assert res.status == "indexed" and res.revision == v.version_id and res.doc_id == doc_id
    assert res.chunks > 0 and res.runts == 0
    assert rig.index.live(doc_id) == {v.version_id}
    assert rig.store.gets == [("incoming/manual_en.md", v.version_id)]  # exact version
    md, ctype = rig.artifacts.files[f"extracted/{doc_id}/{v.version_id}.md"]
    assert ctype.startswith("text/markdown")
    report = json.loads(rig.artifacts.files[f"extracted/{doc_id}/{v.version_id}.json"][0])
    assert report["key"] == "incoming/manual_en.md" and report["chunking"]["chunks"] == res.chunks
    assert report["extraction"]["format"] == "markdown"
    assert set(res.stages) >= {"fetch", "extract", "chunk", "embed", "artifacts", "total"}
    assert md.decode() and res.chunk_chars["p50"] > 0


def test_one_document_loads_into_one_value_and_its_result_is_built_from_it(
    counter: object,
) -> None:
    """The load returns what it learnt (chunks, tokens, extraction facts, timings); it
    writes the artifacts and nothing else; the result of the ingestion carries it."""
    from chunkwise.ingest.budget import DocumentBudget

    rig = make_rig(counter)
    v = rig.store.put("incoming/manual_en.md", MANUAL)
    doc_id = make_doc_id(BUCKET, v.key)
    load = rig.pipeline.documents.load(v, doc_id, DocumentBudget.unbounded())
    assert load.chunks and all(c.doc_id == doc_id and c.revision == v.revision for c in load.chunks)
    assert load.tokens == sum(c.token_count for c in load.chunks)
    assert load.chunking.chunks == len(load.chunks)
    report = json.loads(rig.artifacts.files[f"extracted/{doc_id}/{v.version_id}.json"][0])
    extraction = report["extraction"]
    assert load.extraction.format == extraction["format"] == "markdown"
    assert load.extraction.tables == len(extraction["tables"]) > 0
    assert load.extraction.warnings == len(extraction["warnings"])
    assert list(load.stages) == ["metadata", "fetch", "extract", "chunk", "artifacts"]
    assert rig.index.writes == [] and rig.embedder.calls == []  # nothing indexed or embedded
    result = rig.pipeline.ingest(change(v.key))
    assert (result.tokens, result.extraction) == (load.tokens, load.extraction)
    assert (result.chunks, result.chunk_chars) == (len(load.chunks), load.chunking.chars)
    again = rig.pipeline.ingest(change(v.key))  # unchanged: nothing loaded, nothing to report
    assert again.status == "unchanged" and again.tokens == 0 and again.extraction is None


def test_chunks_cite_the_stored_text(counter: object) -> None:
    rig = make_rig(counter)
    v = rig.store.put("incoming/handbuch_de.md", HANDBUCH)
    captured = []
    orig = rig.index.write_chunks

    def spy(loaded):  # type: ignore[no-untyped-def]
        for item in loaded:
            captured.extend(item.chunks)
        return orig(loaded)

    rig.index.write_chunks = spy  # type: ignore[method-assign]
    rig.pipeline.ingest(change("incoming/handbuch_de.md"))
    doc_id = make_doc_id(BUCKET, "incoming/handbuch_de.md")
    text = rig.artifacts.files[f"extracted/{doc_id}/{v.version_id}.md"][0].decode()
    assert captured
    for c in captured:
        assert text[c.start : c.end] == c.body
        assert (c.doc_id, c.source_key, c.revision) == (doc_id, v.key, v.version_id)
        assert c.last_modified == v.last_modified and c.source_etag == v.etag.strip('"')
        assert c.lang == "de"
    assert sum(rig.embedder.calls) == len(captured)  # one embed call per revision, batched


def test_second_version_replaces_first(counter: object) -> None:
    rig = make_rig(counter)
    rig.store.put("incoming/manual_en.md", MANUAL)
    rig.pipeline.ingest(change("incoming/manual_en.md"))
    v2 = rig.store.put("incoming/manual_en.md", MANUAL + b"\n\n## Appendix\n\nNew text here.\n")
    res = rig.pipeline.ingest(change("incoming/manual_en.md"))
    doc_id = make_doc_id(BUCKET, "incoming/manual_en.md")
    assert res.revision == v2.version_id
    assert rig.index.live(doc_id) == {v2.version_id}
    states = rig.index.revision_states(doc_id)
    assert states["v0001"].n(State.SUPERSEDED) == states["v0001"].expected


def test_late_event_of_old_version_keeps_new_one(counter: object) -> None:
    rig = make_rig(counter)
    rig.store.put("incoming/manual_en.md", MANUAL)
    v2 = rig.store.put("incoming/manual_en.md", MANUAL + b"\n\nMore.\n")
    for _ in range(2):  # both events arrive after both puts, one of them duplicated
        rig.pipeline.ingest(change("incoming/manual_en.md", event_version="v0001"))
    doc_id = make_doc_id(BUCKET, "incoming/manual_en.md")
    assert rig.index.live(doc_id) == {v2.version_id}
    assert [g[1] for g in rig.store.gets] == [v2.version_id]  # v1 never fetched
    res = rig.pipeline.ingest(change("incoming/manual_en.md"))
    assert res.status == "unchanged" and res.actions == ["unchanged"] and res.rounds == 1


def test_delete_retires_document(counter: object) -> None:
    rig = make_rig(counter)
    rig.store.put("incoming/manual_en.md", MANUAL)
    rig.pipeline.ingest(change("incoming/manual_en.md"))
    rig.store.delete("incoming/manual_en.md")
    res = rig.pipeline.ingest(change("incoming/manual_en.md"))
    doc_id = make_doc_id(BUCKET, "incoming/manual_en.md")
    assert res.status == "retired" and res.revision is None
    assert rig.index.live(doc_id) == set()
    assert rig.index.revision_states(doc_id)["v0001"].n(State.DELETED) > 0


def test_poison_document_is_permanent_and_hides_older_revision(counter: object) -> None:
    rig = make_rig(counter)
    rig.store.put("incoming/doc.pdf", (DATA / "manual_en.pdf").read_bytes())
    rig.pipeline.ingest(change("incoming/doc.pdf"))
    rig.store.put("incoming/doc.pdf", (DATA / "hostile" / "corrupt.pdf").read_bytes())
    with pytest.raises(CorruptDocument):
        rig.pipeline.ingest(change("incoming/doc.pdf"))
    assert rig.index.live(make_doc_id(BUCKET, "incoming/doc.pdf")) == set()


def test_size_limit_checked_before_download(counter: object) -> None:
    rig = make_rig(counter, max_object_bytes=100)
    rig.store.put("incoming/manual_en.md", MANUAL)
    with pytest.raises(LimitExceeded, match="max_object_bytes"):
        rig.pipeline.ingest(change("incoming/manual_en.md"))
    assert rig.store.gets == []


def test_type_limit(counter: object) -> None:
    rig = make_rig(counter)
    rig.store.put("incoming/photo.jpg", b"\xff\xd8\xff\xe0 not a document")
    with pytest.raises(UnsupportedFormat, match="suffix"):
        rig.pipeline.ingest(change("incoming/photo.jpg"))


def test_keys_outside_input_prefix_and_artifacts_are_ignored(counter: object) -> None:
    rig = make_rig(counter)
    rig.store.put("extracted/abc/v1.md", b"# derived\n\ntext\n")
    rig.store.put("elsewhere/x.md", MANUAL)
    assert rig.pipeline.ingest(change("extracted/abc/v1.md")).status == "ignored"
    assert rig.pipeline.ingest(change("elsewhere/x.md")).status == "ignored"
    assert rig.store.heads == 0


def test_other_bucket_is_rejected(counter: object) -> None:
    rig = make_rig(counter)
    with pytest.raises(PermanentError, match="bucket"):
        rig.pipeline.ingest(ObjectChange("someone-elses", "incoming/a.md"))


def test_undecoded_key_fallback(counter: object) -> None:
    """An emulator/EventBridge key that was not URL-encoded and has a literal '+'."""
    rig = make_rig(counter)
    v = rig.store.put("incoming/A+B.md", MANUAL)
    res = rig.pipeline.ingest(ObjectChange(BUCKET, "incoming/A B.md", raw_key="incoming/A+B.md"))
    assert res.key == "incoming/A+B.md" and res.revision == v.version_id


def test_non_ascii_key_roundtrip(counter: object) -> None:
    rig = make_rig(counter)
    key = "incoming/Berichte/Übersicht März 2026.pdf"
    rig.store.put(key, (DATA / "handbuch_de.pdf").read_bytes())
    (c,) = parse_message(_body("sqs_s3_put_non_ascii_key.json"))
    res = rig.pipeline.ingest(c)
    assert res.status == "indexed" and res.key == key


# --------------------------------------------------------------------------- sweep / rechunk


def _keys(rig: object) -> dict[str, str]:
    return {make_doc_id(BUCKET, k): k for k in rig.store.objects}  # type: ignore[attr-defined]


def test_plan_sweep() -> None:
    bucket = {"a": "1", "b": "2", "c": "3"}
    live = {"a": {"1"}, "b": {"1"}, "d": {"9"}, "c": {"3", "2"}}
    assert plan_sweep(bucket, live) == ["b", "c", "d"]
    assert plan_sweep({"a": "1"}, {"a": {"1"}}) == []


def test_sweep_repairs_lost_events_inline(counter: object) -> None:
    rig = make_rig(counter)
    rig.store.put("incoming/manual_en.md", MANUAL)
    rig.store.put("incoming/handbuch_de.md", HANDBUCH)
    rig.pipeline.ingest(change("incoming/manual_en.md"))
    rig.store.put("incoming/manual_en.md", MANUAL + b"\n\nv2\n")  # event lost
    rig.store.put("incoming/gone.md", b"# gone\n\nsoon deleted\n")
    rig.pipeline.ingest(change("incoming/gone.md"))
    rig.store.delete("incoming/gone.md")  # delete event lost
    live = FakeLiveSet(rig.index, _keys(rig))
    res = sweep(rig.pipeline.config, rig.store, live, pipeline=rig.pipeline)
    assert res.drifted == ["incoming/gone.md", "incoming/handbuch_de.md", "incoming/manual_en.md"]
    assert not res.failed and len(res.repaired) == 3
    assert sweep(rig.pipeline.config, rig.store, live, pipeline=rig.pipeline).drifted == []


def test_sweep_enqueues_one_message_per_drifted_key(counter: object) -> None:
    rig = make_rig(counter)
    rig.store.put("incoming/a ü.md", MANUAL)
    rig.store.put("incoming/b.md", MANUAL)
    q = FakeQueue()
    res = sweep(rig.pipeline.config, rig.store, FakeLiveSet(rig.index, _keys(rig)), queue=q)
    assert res.enqueued == 2
    assert [parse_message(b)[0].key for b in q.bodies] == ["incoming/a ü.md", "incoming/b.md"]


def test_sweep_isolates_failures(counter: object) -> None:
    rig = make_rig(counter)
    rig.store.put("incoming/bad.pdf", (DATA / "hostile" / "corrupt.pdf").read_bytes())
    rig.store.put("incoming/good.md", MANUAL)
    res = sweep(
        rig.pipeline.config, rig.store, FakeLiveSet(rig.index, _keys(rig)), pipeline=rig.pipeline
    )
    assert res.repaired == ["incoming/good.md"] and list(res.failed) == ["incoming/bad.pdf"]


def test_rechunk_fan_out_builds_new_generation(counter: object) -> None:
    rig = make_rig(counter)
    for k, d in (("incoming/manual_en.md", MANUAL), ("incoming/handbuch_de.md", HANDBUCH)):
        rig.store.put(k, d)
        rig.pipeline.ingest(change(k))
    q = FakeQueue()
    assert fan_out_rechunk(rig.pipeline.config, rig.store, q, "g2") == 2
    msgs = [parse_message(b)[0] for b in q.bodies]
    assert {m.kind for m in msgs} == {"rechunk"} and {m.generation for m in msgs} == {"g2"}
    live_g2 = FakeLiveSet(rig.indexes.setdefault("g2", type(rig.index)()), _keys(rig))
    check = verify_generation(rig.pipeline.config, rig.store, live_g2, "g2")
    assert not check.complete and len(check.missing) == 2
    for m in msgs:
        rig.pipeline.ingest(m)
    check = verify_generation(rig.pipeline.config, rig.store, live_g2, "g2")
    assert check.complete and check.bucket_keys == check.indexed_keys == 2
    # the live generation was not touched by the rebuild
    assert all(len(rig.index.live(d)) == 1 for d in rig.index.docs)


def test_reconcile_work_reports_progress_by_document(counter: object) -> None:
    from chunkwise import progress

    rig = make_rig(counter)
    for k in ("incoming/a.md", "incoming/b.md"):
        rig.store.put(k, MANUAL)
    steps: list[tuple[str, int, int | None]] = []
    with progress.reporting(lambda task, done, total: steps.append((task, done, total))):
        live = FakeLiveSet(rig.index, _keys(rig))
        sweep(rig.pipeline.config, rig.store, live, pipeline=rig.pipeline)
        fan_out_rechunk(rig.pipeline.config, rig.store, FakeQueue(), "g2")
        verify_generation(rig.pipeline.config, rig.store, live, "g2")
    assert ("reconcile: documents", 2, 2) in steps  # drifted keys, ingested inline
    assert ("rechunk: documents", 2, None) in steps  # the listing's length is not known
    assert ("finish: documents", 2, None) in steps


def test_percentiles() -> None:
    assert percentiles([]) == {}
    p = percentiles(list(range(1, 101)))
    assert p == {"p1": 1.0, "p5": 5.0, "p50": 50.0, "p95": 95.0}
    assert percentiles([7]) == {"p1": 7.0, "p5": 7.0, "p50": 7.0, "p95": 7.0}


def test_build_pipeline_wiring(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkwise.adapters.s3 import S3Bucket
    from chunkwise.adapters.textract import TextractOcr
    from chunkwise.settings import load_settings
    from chunkwise.wiring import build_pipeline
    from tests.fakes.pipeline import FakeEmbedder

    monkeypatch.setenv("CHUNKWISE_BUCKET", "docs-bucket")
    monkeypatch.setenv("CHUNKWISE_ARTIFACTS_BUCKET", "artifacts-bucket")
    monkeypatch.setenv("CHUNKWISE_INPUT_PREFIX", "")
    monkeypatch.setenv("CHUNKWISE_OCR", "textract")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-central-1")
    p = build_pipeline(
        load_settings(), s3_client=object(), os_client=object(), embedder=FakeEmbedder()
    )
    assert isinstance(p.store, S3Bucket) and p.store.bucket == "docs-bucket"
    assert isinstance(p.artifacts, S3Bucket) and p.artifacts.bucket == "artifacts-bucket"
    assert isinstance(p.ocr, TextractOcr)
    assert p.config.watches("any/key.pdf")  # separate artifacts bucket: whole bucket watched
    assert p.index_for("g2").index.target == "chunks-g2"  # type: ignore[attr-defined]
    assert p.index_for(None).index.target == "chunks-write"  # type: ignore[attr-defined]


def test_sweep_skips_a_revision_known_to_fail_and_reports_it_apart(counter: object) -> None:
    rig = make_rig(counter)
    rig.store.put("incoming/bad.pdf", (DATA / "hostile" / "corrupt.pdf").read_bytes())
    rig.store.put("incoming/good.md", MANUAL)
    live = FakeLiveSet(rig.index, _keys(rig))
    q = FakeQueue()
    with pytest.raises(PermanentError):
        rig.pipeline.ingest(change("incoming/bad.pdf"))
    first = sweep(rig.pipeline.config, rig.store, live, queue=q)
    assert first.drifted == ["incoming/good.md"] and first.enqueued == 1
    assert list(first.known_failures) == ["incoming/bad.pdf"]
    bad_rev = rig.store.head_current("incoming/bad.pdf").revision  # type: ignore[union-attr]
    assert first.known_failures["incoming/bad.pdf"].startswith(f"{bad_rev}: ")
    rig.pipeline.ingest(change("incoming/good.md"))
    second = sweep(rig.pipeline.config, rig.store, live, queue=q)
    assert second.drifted == [] and second.enqueued == 0 and len(q.bodies) == 1
    # a new upload of the key is a new revision: drift again, repaired when good
    rig.store.put("incoming/bad.pdf", (DATA / "handbuch_de.pdf").read_bytes())
    third = sweep(rig.pipeline.config, rig.store, live, pipeline=rig.pipeline)
    assert third.drifted == ["incoming/bad.pdf"] and third.repaired == ["incoming/bad.pdf"]
    assert third.known_failures == {}


def _many_paragraphs(n: int) -> bytes:
    return "\n\n".join(f"Absatz {i}: Die Pumpe wird geprüft." for i in range(n)).encode()


def test_chunk_limit_is_checked_before_anything_is_embedded(counter: object) -> None:
    rig = make_rig(counter, max_chunks_per_document=20)
    rig.store.put("incoming/huge.md", _many_paragraphs(2000))
    with pytest.raises(LimitExceeded) as e:
        rig.pipeline.ingest(change("incoming/huge.md"))
    assert e.value.limit == "max_chunks_per_document"
    assert rig.embedder.calls == [] and rig.artifacts.files == {}
    assert rig.index.failures  # recorded: the sweep will not re-enqueue it


def test_token_limit_is_checked_before_anything_is_embedded(counter: object) -> None:
    rig = make_rig(counter, max_tokens_per_document=50)
    rig.store.put("incoming/long.md", _many_paragraphs(40))
    with pytest.raises(LimitExceeded) as e:
        rig.pipeline.ingest(change("incoming/long.md"))
    assert e.value.limit == "max_tokens_per_document" and rig.embedder.calls == []


def test_text_far_over_the_chunk_limit_is_refused_before_chunking(
    counter: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    import chunkwise.chunking.chunk

    rig = make_rig(counter, max_chunks_per_document=10)
    rig.store.put("incoming/wall.txt", b"Wort " * 20_000)

    def no_chunking(*a: object, **k: object) -> None:
        raise AssertionError("chunked a text that cannot fit the chunk limit")

    monkeypatch.setattr(chunkwise.chunking.chunk, "chunk_text", no_chunking)
    with pytest.raises(LimitExceeded, match="at least"):
        rig.pipeline.ingest(change("incoming/wall.txt"))


def test_budget_is_checked_between_embedding_steps(counter: object) -> None:
    from chunkwise.ingest.budget import DocumentBudget

    clock = [0.0]
    rig = make_rig(counter)
    embed = rig.embedder.embed

    def slow(texts: object) -> list[list[float]]:
        clock[0] += 1.0  # each step takes a (fake) second
        return embed(texts)  # type: ignore[arg-type]

    rig.embedder.embed = slow  # type: ignore[method-assign]
    rig.store.put("incoming/big.md", _many_paragraphs(3000))
    budget = DocumentBudget(deadline=2.5, clock=lambda: clock[0])
    with pytest.raises(LimitExceeded) as e:
        rig.pipeline.ingest(change("incoming/big.md"), budget)
    assert e.value.limit == "document_deadline" and len(rig.embedder.calls) == 3
    assert rig.index.live(make_doc_id(BUCKET, "incoming/big.md")) == set()


def test_retention_erases_chunks_and_artifacts_of_expired_revisions_only() -> None:
    from chunkwise.index.revision_queries import RevisionState
    from chunkwise.ingest.config import build_config
    from chunkwise.ingest.maintenance import apply_retention
    from tests.fakes.pipeline import FakeArtifactStore

    config = build_config(bucket=BUCKET, input_prefix="incoming/")
    artifacts = FakeArtifactStore()
    for doc, rev in (("d1", "v1"), ("d1", "v2"), ("d1", "v3"), ("d2", "v9")):
        for suffix in (".md", ".json"):
            artifacts.put(config.artifact_key(doc, rev, suffix), b"x", "text/plain")

    swept: list[int] = []

    class RetentionIndex:
        def expired_revisions(
            self, older_than_seconds: int, *, now: object = None
        ) -> set[tuple[str, str]]:
            return {("d1", "v1"), ("d1", "v2"), ("d2", "v9")}

        def sweep(self, older_than_seconds: int, *, now: object = None) -> int:
            swept.append(older_than_seconds)
            return 7

        def revision_states(self, doc_id: str) -> dict[str, RevisionState]:
            # d1/v2 was re-ingested meanwhile (live again); v3 is the live revision
            return (
                {
                    "v2": RevisionState("v2", {"live": 2}, 2),
                    "v3": RevisionState("v3", {"live": 1}, 1),
                }
                if doc_id == "d1"
                else {}
            )

    res = apply_retention(config, RetentionIndex(), artifacts, 7 * 86400)  # type: ignore[arg-type]
    assert (res.deleted_chunks, res.expired_revisions, res.deleted_artifacts) == (7, 3, 4)
    assert sorted(artifacts.files) == sorted(
        config.artifact_key(d, r, s)
        for d, r in (("d1", "v2"), ("d1", "v3"))
        for s in (".md", ".json")
    )
    assert swept == [7 * 86400]


def test_retention_default_is_seven_days_and_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkwise.settings import load_settings

    monkeypatch.setenv("CHUNKWISE_BUCKET", BUCKET)
    monkeypatch.setenv("CHUNKWISE_INPUT_PREFIX", "incoming/")
    monkeypatch.delenv("CHUNKWISE_RETENTION", raising=False)
    assert load_settings().retention == "7d"
    monkeypatch.setenv("CHUNKWISE_RETENTION", "forever")
    with pytest.raises(ConfigError, match="RETENTION"):
        load_settings()


def test_blank_text_does_not_count_against_the_chunk_limit(counter: object) -> None:
    rig = make_rig(counter, max_chunks_per_document=10)
    rig.store.put("incoming/airy.md", b"# Luft\n\n" + b" \n" * 200_000 + b"Ein Absatz.\n")
    result = rig.pipeline.ingest(change("incoming/airy.md"))
    assert result.status == "indexed" and result.chunks <= 10


def test_the_documents_own_error_survives_a_failing_failure_marker(counter: object) -> None:
    from chunkwise.errors import TransientError

    rig = make_rig(counter)
    rig.store.put("incoming/bad.pdf", (DATA / "hostile" / "corrupt.pdf").read_bytes())

    def unavailable(*args: object) -> None:
        raise TransientError("OpenSearch unavailable")

    rig.index.record_failure = unavailable  # type: ignore[method-assign]
    with pytest.raises(CorruptDocument):
        rig.pipeline.ingest(change("incoming/bad.pdf"))


def _short_doc(i: int, extra: str = "") -> bytes:
    return f"# Note {i}\n\nThe ferry {i} leaves at nine.{extra}\n\nIt returns at five.\n".encode()


def test_documents_of_one_batch_share_their_embedding_calls(counter: object) -> None:
    rig = make_rig(counter)
    keys = [f"incoming/note-{i}.md" for i in range(6)]
    for i, key in enumerate(keys):
        rig.store.put(key, _short_doc(i))
    results = rig.pipeline.ingest_batch([change(k) for k in keys])
    assert [r.status for r in results] == ["indexed"] * 6
    chunks = sum(r.chunks for r in results)
    assert chunks > len(rig.embedder.calls)  # one call per document before
    assert max(rig.embedder.calls) <= rig.embedder.batch_size
    assert sum(rig.embedder.calls) == chunks and len(rig.embedder.calls) < len(keys)
    for key, r in zip(keys, results, strict=True):
        assert rig.index.live(make_doc_id(BUCKET, key)) == {r.revision}


def test_a_text_the_model_refuses_fails_only_its_document(counter: object) -> None:
    rig = make_rig(counter)
    embed = rig.embedder.embed

    def refuses_poison(texts: object) -> list[list[float]]:
        if any("POISON" in t for t in texts):  # type: ignore[attr-defined]
            raise PermanentError("the model refused a text")
        return embed(texts)  # type: ignore[arg-type]

    rig.embedder.embed = refuses_poison  # type: ignore[method-assign]
    keys = [f"incoming/mix-{i}.md" for i in range(3)]
    for i, key in enumerate(keys):
        rig.store.put(key, _short_doc(i, " POISON" if i == 1 else ""))
    results = rig.pipeline.ingest_batch([change(k) for k in keys])
    assert [r.status for r in results] == ["indexed", "failed", "indexed"]
    assert isinstance(results[1].error, PermanentError)
    assert rig.index.live(make_doc_id(BUCKET, keys[0])) == {results[0].revision}


def _sheet(rows: int) -> bytes:
    import io

    from openpyxl import Workbook

    wb = Workbook(write_only=True)  # no <dimension>: the cells are counted in the XML
    ws = wb.create_sheet("Artikel")
    ws.append(["Nr", "Bezeichnung", "Ort", "Preis", "Menge"])
    for i in range(rows):
        ws.append([f"A-{i}", f"Pumpe {i}", "Bonn", i * 1.5, i % 7])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def _ods(rows: int) -> bytes:
    from tests.odf_files import odf

    cell = "<table:table-cell office:value-type='string'><text:p>Pumpe</text:p></table:table-cell>"
    row = f"<table:table-row table:number-rows-repeated='{rows}'>{cell * 5}</table:table-row>"
    return odf("spreadsheet", f"<table:table table:name='Artikel'>{row}</table:table>")


@pytest.mark.parametrize(
    "name,data",
    [
        ("incoming/artikel.xlsx", _sheet(3000)),
        ("incoming/artikel.ods", _ods(3000)),
        ("incoming/artikel.csv", b"".join(b"A-%d;Pumpe %d;Bonn;%d,50;3\r\n" % (i, i, i)
                                          for i in range(3000))),
    ],
)  # fmt: skip
def test_a_table_over_the_chunk_limit_is_refused_before_it_is_read(
    counter: object, monkeypatch: pytest.MonkeyPatch, name: str, data: bytes
) -> None:
    import chunkwise.extract

    rig = make_rig(counter, max_chunks_per_document=50)
    rig.store.put(name, data)

    def no_extraction(*a: object, **k: object) -> None:
        raise AssertionError("extracted a table whose declared size is over the chunk limit")

    monkeypatch.setattr(chunkwise.extract, "extract", no_extraction)
    with pytest.raises(LimitExceeded) as e:
        rig.pipeline.ingest(change(name))
    assert e.value.limit == "max_chunks_per_document" and e.value.value == 50
    assert "refused before it is read" in str(e.value)
    assert rig.embedder.calls == [] and rig.artifacts.files == {}


def test_a_table_under_the_estimate_is_read_and_checked_exactly(counter: object) -> None:
    rig = make_rig(counter, max_chunks_per_document=50)
    rig.store.put("incoming/klein.xlsx", _sheet(40))
    rig.pipeline.ingest(change("incoming/klein.xlsx"))
    assert rig.embedder.calls  # read, chunked and embedded
