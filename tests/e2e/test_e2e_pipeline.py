"""Events -> runner -> ingest handler -> OpenSearch, against the real local stack.

Objects are put through the emulator's S3 API; the bucket notification puts real
messages on the real SQS queue; `chunkwise.localstack.emulator.Runner` receives them and calls
functions/ingest/app.py exactly as the Lambda event source mapping would; the
assertions read real OpenSearch results.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from chunkwise import progress
from chunkwise.index.names import make_doc_id
from chunkwise.index.states import State
from chunkwise.ingest.messages import parse_message
from chunkwise.search.hybrid import SearchFilters

pytestmark = pytest.mark.e2e

DATA = Path(__file__).resolve().parents[1] / "data"


def hits_for(searcher: Any, query: str, doc_id: str, k: int = 10) -> list[Any]:
    return list(searcher.search(query, k, SearchFilters(doc_ids=(doc_id,))))


def live_revisions(index: Any, doc_id: str) -> set[str]:
    states = index.revision_states(doc_id)
    return {r for r, s in states.items() if s.visible or s.n(State.PENDING)}


def complete_live(index: Any, doc_id: str, revision: str) -> bool:
    states = index.revision_states(doc_id)
    st = states.get(revision)
    return st is not None and st.complete_live and live_revisions(index, doc_id) == {revision}


def ingested(stack: Any, index: Any, key: str, body: bytes) -> tuple[str, str]:
    """Puts `body` under `key` and runs the stack until that revision is the document's
    one complete live revision: (document id, revision)."""
    doc_id = make_doc_id(stack.bucket, key)
    rev = stack.put(key, body)
    stack.run_until(lambda: complete_live(index, doc_id, rev))
    return doc_id, rev


def test_new_document_is_searchable_with_citations(stack: Any, searcher: Any, index: Any) -> None:
    key = stack.key("Berichte/Übersicht März 2026.pdf")
    doc_id = make_doc_id(stack.bucket, key)
    rev = stack.put(key, (DATA / "handbuch_de.pdf").read_bytes())
    steps: list[tuple[str, int, int | None]] = []
    with progress.reporting(lambda task, done, total: steps.append((task, done, total))):
        stack.run_until(lambda: complete_live(index, doc_id, rev))
    # `local run` counts messages; the ingest handler's extraction counts pages.
    assert any(task == "local run: messages" and done >= 1 for task, done, _ in steps)
    assert any(task == "extract: pages" for task, _, _ in steps)
    hits = hits_for(searcher, "Einlassfilter Wartung Druckverlust", doc_id)
    assert hits, "document not searchable"
    top = hits[0].citation
    assert top.key == key and top.revision == rev
    assert top.page_start is not None and top.start < top.end
    # the citation points into the stored extracted text of exactly that revision
    md = stack.s3.get_object(Bucket=stack.bucket, Key=f"extracted/{doc_id}/{rev}.md")
    text = md["Body"].read().decode("utf-8")
    assert text[top.start : top.end] == top.body
    report = json.loads(
        stack.s3.get_object(Bucket=stack.bucket, Key=f"extracted/{doc_id}/{rev}.json")[
            "Body"
        ].read()
    )
    assert report["key"] == key and report["extraction"]["format"] == "pdf"


def test_second_version_replaces_first(stack: Any, searcher: Any, index: Any) -> None:
    key = stack.key("replace/manual.md")
    ingested(stack, index, key, b"# Pump manual\n\nThe quartz flange needs grease every week.\n")
    doc_id, v2 = ingested(
        stack, index, key, b"# Pump manual\n\nThe titanium flange needs oil every month.\n"
    )
    for q in ("quartz flange grease", "titanium flange oil", "pump manual"):
        hits = hits_for(searcher, q, doc_id)
        assert hits and {h.revision for h in hits} == {v2}, q
    assert all("quartz" not in h.citation.body for h in hits_for(searcher, "quartz", doc_id))


def test_delete_removes_document(stack: Any, searcher: Any, index: Any) -> None:
    key = stack.key("delete/notes.txt")
    notes = b"Maintenance notes: replace the gasket of valve seven.\n"
    doc_id, _ = ingested(stack, index, key, notes)
    assert hits_for(searcher, "gasket valve", doc_id)
    stack.delete(key)
    if not stack.delete_marker_events:
        # moto sends no event for a delete marker (the revision protocol): the sweep repairs it
        from chunkwise.settings import load_settings
        from chunkwise.wiring.operations import run_sweep

        stack.runner.run(until_idle=2, max_seconds=30)
        run_sweep(load_settings(), enqueue=True)
    stack.run_until(lambda: not live_revisions(index, doc_id))
    assert hits_for(searcher, "gasket valve", doc_id) == []


def test_same_object_put_twice_quickly_ends_with_later_version(
    stack: Any, searcher: Any, index: Any
) -> None:
    key = stack.key("race/price list 2026 (A+B).md")
    doc_id = make_doc_id(stack.bucket, key)
    v1 = stack.put(key, b"# Prices\n\nThe basic plan costs 10 euros.\n")
    v2 = stack.put(key, b"# Prices\n\nThe basic plan costs 12 euros.\n")
    assert v1 != v2
    stack.run_until(lambda: complete_live(index, doc_id, v2))
    # drain whatever is left (the second event) and check nothing moved
    stack.runner.run(until_idle=3, max_seconds=60)
    assert live_revisions(index, doc_id) == {v2}
    hits = hits_for(searcher, "basic plan euros", doc_id)
    assert hits and {h.revision for h in hits} == {v2} and "12 euros" in hits[0].citation.body


def test_poison_document_goes_to_dlq_while_batch_neighbours_succeed(
    stack: Any, searcher: Any, index: Any
) -> None:
    poison = stack.key("poison/corrupt.pdf")
    good = [stack.key(f"poison/good-{i}.md") for i in range(3)]
    revs = {}
    stack.put(poison, (DATA / "hostile" / "corrupt.pdf").read_bytes())
    for i, k in enumerate(good):
        revs[k] = stack.put(k, f"# Good {i}\n\nHealthy document number {i}.\n".encode())
    time.sleep(0.5)  # let all notifications land so they share a batch

    def done() -> bool:
        ok = all(complete_live(index, make_doc_id(stack.bucket, k), r) for k, r in revs.items())
        return ok and len(stack.dlq_messages()) >= 1

    stack.run_until(done, timeout=120)
    dlq = stack.dlq_messages()
    keys = [json.loads(m["Body"])["Records"][0]["s3"]["object"]["key"] for m in dlq]
    assert any("corrupt.pdf" in k for k in keys), keys
    assert stack.runner.stats.failed >= 2  # received maxReceiveCount times, failed each time
    assert not live_revisions(index, make_doc_id(stack.bucket, poison))
    # remove the poison so later sweeps do not trip over it
    stack.delete(poison)
    stack.runner.run(until_idle=3, max_seconds=60)


def test_reconcile_repairs_document_whose_event_was_lost(
    stack: Any, searcher: Any, index: Any
) -> None:
    from chunkwise.settings import load_settings
    from chunkwise.wiring.operations import run_sweep

    key = stack.key("lost/handbuch.md")
    doc_id = make_doc_id(stack.bucket, key)
    stack.runner.run(until_idle=2, max_seconds=60)  # start from an empty queue
    rev = stack.put(key, (DATA / "handbuch_de.md").read_bytes())
    # the event arrives ... and is lost (deleted from the queue unprocessed)
    deadline = time.monotonic() + 30
    lost = False
    while not lost and time.monotonic() < deadline:
        resp = stack.sqs.receive_message(
            QueueUrl=stack.cfg.queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1
        )
        for m in resp.get("Messages", []):
            stack.sqs.delete_message(QueueUrl=stack.cfg.queue_url, ReceiptHandle=m["ReceiptHandle"])
            lost = lost or any(c.key == key for c in parse_message(m["Body"]))
    assert lost, "the put event never arrived"
    stack.runner.run(until_idle=3, max_seconds=30)
    assert not live_revisions(index, doc_id)

    res = run_sweep(load_settings(), enqueue=True)  # what the scheduled function does
    assert key in res.drifted and res.enqueued >= 1
    stack.run_until(lambda: complete_live(index, doc_id, rev))
    hits = hits_for(searcher, "Wartung Filter", doc_id)
    assert hits and hits[0].citation.key == key
    again = run_sweep(load_settings(), enqueue=False)
    assert key not in again.drifted


def test_live_set_only_counts_its_own_bucket(stack: Any, index: Any) -> None:
    """Two buckets may share one index: a sweep of one must not retire the other's."""
    from chunkwise.settings import load_settings
    from chunkwise.wiring.operations import live_set

    settings = load_settings()
    mine = live_set(settings).live_revisions()
    assert mine, "earlier tests left documents of this bucket"
    other = settings.model_copy(update={"bucket": "another-bucket"})
    assert live_set(other).live_revisions() == {}


def test_rechunk_builds_and_swaps_a_new_generation(stack: Any, searcher: Any, index: Any) -> None:
    from chunkwise.settings import load_settings
    from chunkwise.wiring.operations import finish_rechunk, start_rechunk

    key = stack.key("rechunk/manual.md")
    doc_id, rev = ingested(stack, index, key, (DATA / "manual_en.md").read_bytes())
    stack.runner.run(until_idle=2, max_seconds=60)
    old = index.live_generation()
    settings = load_settings()
    gen = "g" + time.strftime("%Y%m%dt%H%M%S", time.gmtime()) + "r"
    gen_name, n = start_rechunk(settings, gen)
    assert gen_name == gen and n >= 1
    early = finish_rechunk(settings, gen)  # nothing processed yet: must not swap
    assert not early.complete and index.live_generation() == old
    stack.runner.run(until_idle=3, max_seconds=120)
    check = finish_rechunk(settings, gen)
    assert check.complete, (check.missing, check.extra)
    assert index.live_generation() == f"{stack.cfg.index_prefix}-{gen}" != old
    # The new generation came with the stack's query model (same embedder).
    from chunkwise.adapters.opensearch.query_model import generation_query_model

    assert stack.cfg.query_model_id
    assert generation_query_model(index.client, index.names.read_alias) == stack.cfg.query_model_id
    hits = hits_for(searcher, "maintenance", doc_id)
    assert hits and {h.revision for h in hits} == {rev}


def test_deleted_document_leaves_nothing_after_retention(stack: Any, index: Any) -> None:
    """After an S3 delete and the retention step, no chunk (in any state) and no
    artifact of any revision of the document remains."""
    from chunkwise.settings import load_settings
    from chunkwise.wiring.operations import run_retention

    key = stack.key("erase/gehaelter.md")
    page = b"# Gehaelter\n\nDie Liste ist vertraulich: Meier %s.\n"
    doc_id, _ = ingested(stack, index, key, page % b"5100")
    ingested(stack, index, key, page % b"5300")
    artifacts = f"extracted/{doc_id}/"
    assert stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix=artifacts)["KeyCount"] == 4
    stack.delete(key)
    if not stack.delete_marker_events:  # moto: no event for a delete marker, the sweep
        from chunkwise.wiring.operations import run_sweep

        stack.runner.run(until_idle=2, max_seconds=30)
        run_sweep(load_settings(), enqueue=True)
    stack.run_until(lambda: live_revisions(index, doc_id) == set())
    other = stack.key("erase/bleibt.md")  # a live document next to it keeps everything
    other_rev = stack.put(other, b"# Bleibt\n\nDieser Text bleibt durchsuchbar.\n")
    other_id = make_doc_id(stack.bucket, other)
    stack.run_until(lambda: complete_live(index, other_id, other_rev))

    result = run_retention(load_settings(), "0s")

    assert result.expired_revisions >= 2 and result.deleted_chunks >= 2
    index.refresh()
    body = {"query": {"term": {"doc_id": doc_id}}}
    assert index.client.count(index=index.target, body=body)["count"] == 0
    assert stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix=artifacts)["KeyCount"] == 0
    kept = stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix=f"extracted/{other_id}/")
    assert kept["KeyCount"] == 2 and complete_live(index, other_id, other_rev)
