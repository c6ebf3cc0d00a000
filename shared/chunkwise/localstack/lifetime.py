"""What `chunkwise local up` does with the state it finds: the reconcile decision (pure).

The local stack's state has ONE lifetime, the emulator's. The S3/SQS emulator
(LocalStack community edition) keeps nothing across a restart, while the OpenSearch
node keeps its data directory (.local/opensearch/data). The bucket is the source of
truth and the index is derived from it, so `up` brings the index back in line with
the bucket it finds:

- the emulator kept nothing (this `up` created the bucket) and the index holds
  documents of this bucket only: those documents exist nowhere any more, so this
  prefix's generations are dropped and a fresh one is created (one request, and
  nothing of the old revisions, tombstones or failure markers is left behind);
- otherwise (the bucket survived, or the index is shared with other buckets) the
  reconcile sweep's rule (`plan_sweep`) applies to this bucket's documents: those
  the bucket no longer holds are retired now, through the revision protocol, and
  those it holds but the index lacks (a fresh node, a crash before the write) are
  enqueued for the ingest handler (`chunkwise local run`);
- a generation without aliases and no live one (an `up` interrupted between
  creating the index and pointing the aliases at it) is made live, not duplicated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from chunkwise.ingest.maintenance import plan_sweep


@dataclass(frozen=True)
class IndexFound:
    """This stack's index prefix, as `up` finds it before the index step."""

    generations: tuple[str, ...]  # every generation index of the prefix
    live: str | None  # the generation the read alias names
    documents: int  # live documents of this stack's bucket
    other_documents: int  # live documents of other buckets (an index they share)


@dataclass(frozen=True)
class IndexPlan:
    drop: tuple[str, ...] = ()  # generations to drop before a fresh one is created
    reuse: str | None = None  # an alias-less generation to make live

    def notes(self, bucket: str, found: IndexFound) -> list[str]:
        out = []
        if self.drop:
            out.append(
                f"the emulator kept nothing of s3://{bucket} (LocalStack keeps no state across "
                f"a restart) but the index held {found.documents} of its documents: dropped "
                f"generation(s) {', '.join(self.drop)}; a fresh one follows"
            )
        if self.reuse:
            out.append(f"generation {self.reuse} had no aliases (an interrupted `up`): made live")
        return out


def plan_index(bucket_created: bool, found: IndexFound) -> IndexPlan:
    """Drop the prefix's generations when they describe a bucket that no longer
    exists; reuse a half-set-up generation; else change nothing."""
    if bucket_created and found.documents and not found.other_documents:
        return IndexPlan(drop=found.generations)
    if found.live is None and found.generations:
        return IndexPlan(reuse=max(found.generations))  # ids sort by creation time
    return IndexPlan()


@dataclass(frozen=True)
class DocumentPlan:
    retire: tuple[str, ...] = ()  # keys the index shows and the bucket no longer holds
    enqueue: tuple[str, ...] = ()  # keys the bucket holds and the index lacks or has stale
    known_failures: tuple[str, ...] = ()  # current revisions known to fail: not re-sent
    documents: int = 0  # the bucket's documents

    def notes(self) -> list[str]:
        if not (self.retire or self.enqueue or self.known_failures):
            return [f"index and bucket agree ({self.documents} document(s))"]
        out = []
        if self.retire:
            out.append(
                f"retired {len(self.retire)} document(s) the bucket no longer holds "
                f"(e.g. {self.retire[0]!r})"
            )
        if self.enqueue:
            out.append(
                f"enqueued {len(self.enqueue)} document(s) the index lacks (e.g. "
                f"{self.enqueue[0]!r}): `chunkwise local run` ingests them"
            )
        if self.known_failures:
            out.append(f"{len(self.known_failures)} document(s) known to fail were not re-sent")
        return out


def plan_documents(
    bucket: Mapping[str, str],
    live: Mapping[str, set[str]],
    known_failures: Mapping[str, Mapping[str, str]],
) -> DocumentPlan:
    """The sweep's drift (bucket key -> current revision vs key -> live revisions),
    split into what `up` retires at once and what it leaves to the ingest handler."""
    drift = plan_sweep(bucket, live)
    retire = tuple(k for k in drift if k not in bucket)
    failing = tuple(k for k in drift if k in bucket and bucket[k] in known_failures.get(k, {}))
    enqueue = tuple(k for k in drift if k in bucket and k not in failing)
    return DocumentPlan(retire, enqueue, failing, documents=len(bucket))
