"""What `chunkwise local up` does with the state it finds (chunkwise.localstack.lifetime)."""

from __future__ import annotations

from chunkwise.localstack.lifetime import (
    DocumentPlan,
    IndexFound,
    IndexPlan,
    plan_documents,
    plan_index,
)

GENS = ("g20260101t000000", "g20260102t000000")


def test_a_fresh_emulator_drops_the_generations_of_its_vanished_bucket() -> None:
    found = IndexFound(GENS, live="chunks-g20260102t000000", documents=6, other_documents=0)
    plan = plan_index(bucket_created=True, found=found)
    assert plan == IndexPlan(drop=GENS)
    (note,) = plan.notes("chunkwise-demo", found)
    assert "s3://chunkwise-demo" in note and "6 of its documents" in note


def test_an_index_shared_with_other_buckets_is_not_dropped() -> None:
    found = IndexFound(GENS, live="chunks-g20260102t000000", documents=6, other_documents=2)
    assert plan_index(bucket_created=True, found=found) == IndexPlan()


def test_a_surviving_bucket_or_an_empty_index_keeps_the_generations() -> None:
    full = IndexFound(GENS, live="chunks-g20260102t000000", documents=6, other_documents=0)
    empty = IndexFound(GENS, live="chunks-g20260102t000000", documents=0, other_documents=0)
    assert plan_index(bucket_created=False, found=full) == IndexPlan()
    assert plan_index(bucket_created=True, found=empty) == IndexPlan()
    assert plan_index(bucket_created=True, found=IndexFound((), None, 0, 0)) == IndexPlan()


def test_a_generation_without_aliases_is_made_live_not_duplicated() -> None:
    # an `up` killed between creating the index and pointing the aliases at it
    found = IndexFound(GENS, live=None, documents=0, other_documents=0)
    plan = plan_index(bucket_created=False, found=found)
    assert plan == IndexPlan(reuse="g20260102t000000")
    assert "g20260102t000000" in plan.notes("b", found)[0]


def test_documents_the_bucket_lost_are_retired_and_those_it_holds_enqueued() -> None:
    bucket = {"in/a.md": "v2", "in/b.md": "v1", "in/c.md": "v1"}
    live = {"in/a.md": {"v1"}, "in/b.md": {"v1"}, "in/gone.md": {"v7"}}
    plan = plan_documents(bucket, live, {})
    assert plan == DocumentPlan(retire=("in/gone.md",), enqueue=("in/a.md", "in/c.md"), documents=3)
    retire_note, enqueue_note = plan.notes()
    assert retire_note.startswith("retired 1 document(s)") and "'in/gone.md'" in retire_note
    assert enqueue_note.startswith("enqueued 2 document(s)")


def test_a_revision_known_to_fail_is_not_sent_again() -> None:
    plan = plan_documents({"in/bad.pdf": "v3"}, {}, {"in/bad.pdf": {"v3": "encrypted"}})
    assert plan == DocumentPlan(known_failures=("in/bad.pdf",), documents=1)
    # a new upload of the key is a new revision: sent
    again = plan_documents({"in/bad.pdf": "v4"}, {}, {"in/bad.pdf": {"v3": "encrypted"}})
    assert again.enqueue == ("in/bad.pdf",)


def test_an_index_in_line_with_its_bucket_needs_nothing() -> None:
    plan = plan_documents({"in/a.md": "v1"}, {"in/a.md": {"v1"}}, {})
    assert plan == DocumentPlan(documents=1)
    assert plan.notes() == ["index and bucket agree (1 document(s))"]
