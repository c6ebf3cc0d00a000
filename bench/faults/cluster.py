"""Faults on the local 3-node cluster (`make faults-cluster`, `python -m bench.faults.run
--nodes 3`): nodes killed, restarted, paused under the revision protocol, with readers
classifying every search all along.

The index is a generation of 3 shards and 1 replica. The truth is the S3 emulator: a
versioned bucket where every upload is a real object version whose body says how many
chunks it has (2-5, so a partial revision shows); the writer is the production revision
switch (`RevisionSwitch` over `OpenSearchSwitchIndex`) whose ``current`` asks S3 and
whose loader reads the object version from S3 (no extraction, no embedding: the faults
are the cluster's, and synthetic vectors keep a 2-core machine on them). A delivery
that fails is delivered again, as SQS would, until it succeeds.

Readers (threads, their own client) run the chunkwise reader (`read_current`: candidates
and heads from one point in time on the primaries, as `Searcher.answer` reads;
both whole-or-error) on random documents and classify each result against
the upload order: ok, stale (older than a revision an earlier read returned), mixed,
partial (fewer chunks than the revision has), missing (nothing, though a revision was
visible before). A search that fails (PartialResultError, timeout, refused) is an error,
counted apart: a clear error is allowed, a wrong answer is not.

Afterwards the index is compared with S3: every key live at exactly S3's current version
with all its chunks (after a sweep of the drifted keys), nothing of a deleted key left
once retention ran.
"""

from __future__ import annotations

import random
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.faults.scenarios import Rows, row
from bench.faults.switch import ThreadedLoop, fault_chunk, read_doc
from chunkwise.adapters.opensearch.client import connect
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.live_set import OpenSearchLiveSet
from chunkwise.adapters.opensearch.retries import RetryPolicy
from chunkwise.adapters.opensearch.switch import OpenSearchSwitchIndex
from chunkwise.errors import ChunkwiseError
from chunkwise.index.names import IndexNames, make_doc_id, template_name
from chunkwise.ingest.revisions import Loaded, RevisionSwitch, Version
from chunkwise.localstack import cluster as nodes
from chunkwise.localstack.config import EMULATOR_CREDENTIALS, is_emulator

DIMENSION = 8
SHARDS, REPLICAS = 3, 1
#: The client timeout of readers and writers; the pause scenario stops a node longer.
CLIENT_TIMEOUT = 5.0
READ_POLICY = RetryPolicy(attempts=3, initial=0.1, maximum=0.5, jitter=0.05)
WRITE_POLICY = RetryPolicy(attempts=4, initial=0.2, maximum=2.0, jitter=0.1)
VERDICTS = ("stale", "mixed", "partial", "missing")


# --------------------------------------------------------------------------- S3, the truth


class S3Truth:
    """The versioned bucket; upload order per key is the order of revisions."""

    def __init__(self, s3: Any, bucket: str) -> None:
        self.s3, self.bucket = s3, bucket
        self.order: dict[str, list[str]] = {}  # key -> version ids, oldest first
        self.chunks: dict[str, int] = {}  # version id -> chunks of that revision
        self.deleted: set[str] = set()
        self.lock = threading.Lock()
        self.rng = random.Random(27)

    def upload(self, key: str) -> str:
        with self.lock:
            n = self.rng.randint(2, 5)
        resp = self.s3.put_object(Bucket=self.bucket, Key=key, Body=f"chunks={n}\n".encode())
        version = str(resp["VersionId"])
        with self.lock:
            self.chunks[version] = n
            self.order.setdefault(key, []).append(version)
        return version

    def delete(self, key: str) -> None:
        self.s3.delete_object(Bucket=self.bucket, Key=key)
        with self.lock:
            self.deleted.add(key)

    def current(self, key: str) -> Version | None:
        """What the switch asks: S3's current version (None after a delete)."""
        try:
            head = self.s3.head_object(Bucket=self.bucket, Key=key)
        except self.s3.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "405"):
                return None
            raise
        return Version(str(head["VersionId"]), str(head.get("ETag", "")).strip('"'))

    def load(self, items: Sequence[tuple[str, str, Version]]) -> dict[str, Loaded]:
        """The switch's loader: each object version's body, read from S3."""
        out = {}
        for doc_id, key, v in items:
            obj = self.s3.get_object(Bucket=self.bucket, Key=key, VersionId=v.revision)
            n = int(obj["Body"].read().decode().split("=", 1)[1])
            chunks = [fault_chunk(doc_id, key, v.revision, i) for i in range(n)]
            vectors = [[1.0 + i] + [0.0] * (DIMENSION - 1) for i in range(n)]
            out[doc_id] = Loaded(chunks, vectors)
        return out

    def position(self, key: str, version: str) -> int:
        with self.lock:
            return self.order[key].index(version)

    def current_versions(self) -> dict[str, str]:
        """Key -> current version id, from S3's own listing (what a sweep compares)."""
        out: dict[str, str] = {}
        pages = self.s3.get_paginator("list_object_versions").paginate(Bucket=self.bucket)
        for page in pages:
            for v in page.get("Versions", []):
                if v.get("IsLatest"):
                    out[v["Key"]] = v["VersionId"]
        return out


# --------------------------------------------------------------------------- readers


@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    newest: dict[str, int] = field(default_factory=dict)  # key -> newest ok position
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, verdict: str) -> None:
        with self.lock:
            self.counts[verdict] = self.counts.get(verdict, 0) + 1

    def error(self, kind: str) -> None:
        with self.lock:
            self.errors[kind] = self.errors.get(kind, 0) + 1

    def classified(self) -> int:
        return sum(self.counts.values())


class Readers(ThreadedLoop):
    """Threads reading random documents of ``keys`` until stopped."""

    def __init__(
        self,
        ix: OpenSearchIndex,
        truth: S3Truth,
        keys: list[str],
        n: int,
        newest: dict[str, int] | None = None,
    ) -> None:
        self.ix, self.truth, self.keys = ix, truth, keys
        # ``newest`` carries over from the fault before: a revision seen then is the
        # floor now (a search after a restart must not go back to an older one)
        self.tally = Tally(newest=newest if newest is not None else {})
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(n)]

    def _run(self) -> None:
        rng = random.Random()
        while not self.stop.is_set():
            key = rng.choice(self.keys)
            doc_id = make_doc_id(self.truth.bucket, key)
            floor = self.tally.newest.get(key, -1)
            try:
                revisions = read_doc(self.ix, doc_id)
            except Exception as exc:  # a clear error: counted, never a verdict
                self.tally.error(type(exc).__name__)
                time.sleep(0.05)
                continue
            self.tally.add(self._verdict(key, revisions, floor))

    def _verdict(self, key: str, revisions: list[str], floor: int) -> str:
        revs = set(revisions)
        if len(revs) > 1:
            return "mixed"
        if not revs and key in self.truth.deleted:
            # deleted in S3 (before this read ended): nothing is the right answer, and
            # from now on an old revision again would be stale (the delete's position
            # is after every upload of the key)
            with self.tally.lock:
                self.tally.newest[key] = len(self.truth.order[key])
            return "deleted"
        if not revs:
            return "missing" if floor >= 0 else "not yet visible"
        (rev,) = revs
        pos = self.truth.position(key, rev)
        if pos < floor:
            return "stale"
        if len(revisions) != self.truth.chunks[rev]:
            return "partial"
        with self.tally.lock:
            self.tally.newest[key] = max(self.tally.newest.get(key, -1), pos)
        return "ok"


# --------------------------------------------------------------------------- the writer


@dataclass
class Writer:
    ix: OpenSearchIndex
    truth: S3Truth
    statuses: dict[str, int] = field(default_factory=dict)
    redeliveries: int = 0

    def deliver(self, keys: Sequence[str], batch: int = 10, rounds: int = 30) -> list[str]:
        """Deliver ``keys`` in batches; a key whose delivery failed is delivered again
        (SQS after the visibility timeout) until done; returns the keys never done."""
        pending = list(keys)
        for attempt in range(rounds):
            failed: list[str] = []
            for i in range(0, len(pending), batch):
                part = pending[i : i + batch]
                docs = {make_doc_id(self.truth.bucket, k): k for k in part}
                switch = RevisionSwitch(
                    OpenSearchSwitchIndex(self.ix), self.truth.current, self.truth.load
                )
                try:
                    outcomes = switch.run(docs)
                except Exception:  # the whole invocation failed: every message comes back
                    failed += part
                    continue
                for d, o in outcomes.items():
                    self.statuses[o.status] = self.statuses.get(o.status, 0) + 1
                    if o.status not in ("indexed", "unchanged", "retired"):
                        failed.append(docs[d])
            if not failed:
                return []
            self.redeliveries += len(failed)
            pending = failed
            time.sleep(min(5.0, 0.5 * (attempt + 1)))
        return pending


# --------------------------------------------------------------------------- the run


@dataclass
class Rig:
    ix: OpenSearchIndex
    reader_ix: OpenSearchIndex
    truth: S3Truth
    writer: Writer
    keys: list[str]


def _background(fn: Callable[[], object]) -> threading.Thread:
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    return t


def _victim(rig: Rig) -> str:
    return nodes.node_with_primaries(rig.ix.client, rig.ix.target)


def _heal(rig: Rig) -> float:
    try:
        nodes.start_missing()
    except ChunkwiseError as exc:
        # the script gives up after its start timeout, the node keeps starting: on a
        # loaded 2-core machine a node took longer than 300 s to join (first full run)
        print(f"faults-cluster: {exc}; waiting for the cluster", file=sys.stderr, flush=True)
    return nodes.wait_health(rig.ix.client, "green", timeout=900)


def kill_during_backfill(rig: Rig, new: list[str]) -> str:
    for k in new:
        rig.truth.upload(k)
    t = _background(lambda: rig.writer.deliver(new))
    time.sleep(3.0)
    victim = _victim(rig)
    nodes.kill_node(victim)
    t.join()
    healed = _heal(rig)
    rig.keys += new
    return f"killed {victim}; green again {healed:.0f} s after restart"


def kill_during_switch(rig: Rig, deletes: list[str]) -> str:
    for k in rig.keys:
        rig.truth.upload(k)
    for k in deletes:
        rig.truth.delete(k)
    t = _background(lambda: rig.writer.deliver(rig.keys))  # the deletes are keys too
    time.sleep(3.0)
    victim = _victim(rig)
    nodes.kill_node(victim)
    t.join()
    return f"killed {victim}; green again {_heal(rig):.0f} s after restart"


def _revising(rig: Rig, stop: threading.Event) -> threading.Thread:
    def loop() -> None:
        rng = random.Random(3)
        # a deleted key stays deleted: an upload would bring it back in S3, and the
        # final check would count its new revision as a deleted key's chunks
        keys = [k for k in rig.keys if k not in rig.truth.deleted]
        while not stop.is_set():
            batch = rng.sample(keys, 10)
            for k in batch:
                rig.truth.upload(k)
            rig.writer.deliver(batch)

    return _background(loop)


def kill_during_queries(rig: Rig) -> str:
    victim = _victim(rig)
    nodes.kill_node(victim)
    time.sleep(15.0)
    return f"killed {victim}; green again {_heal(rig):.0f} s after restart"


def restart_one(rig: Rig) -> str:
    stop = threading.Event()
    t = _revising(rig, stop)
    victim = _victim(rig)
    nodes.stop_node(victim)
    time.sleep(3.0)
    healed = _heal(rig)
    stop.set()
    t.join()
    return f"stopped {victim} (SIGTERM), started again; green {healed:.0f} s later"


def rolling_restart(rig: Rig) -> str:
    stop = threading.Event()
    t = _revising(rig, stop)
    took = []
    for name in sorted(nodes.node_pids()):
        nodes.stop_node(name)
        took.append(f"{name} {_heal(rig):.0f} s")
    stop.set()
    t.join()
    return "each stopped, started, green: " + ", ".join(took)


def pause_node(rig: Rig) -> str:
    stop = threading.Event()
    t = _revising(rig, stop)
    victim = _victim(rig)
    pause = 3 * CLIENT_TIMEOUT
    nodes.signal_node(victim, signal.SIGSTOP)
    try:
        time.sleep(pause)
    finally:
        nodes.signal_node(victim, signal.SIGCONT)
    healed = nodes.wait_health(rig.ix.client, "green", timeout=300)
    stop.set()
    t.join()
    return (
        f"SIGSTOP {victim} for {pause:.0f} s (client timeout {CLIENT_TIMEOUT:.0f} s), "
        f"SIGCONT; green {healed:.0f} s later"
    )


def cluster_scenario(opensearch_url: str, endpoint: str, docs: int = 40, readers: int = 5) -> Rows:
    # five readers: a read is four requests (point in time, candidates, heads, delete),
    # and the run must classify >= 10,000 searches over the six faults on 2 cores
    import boto3

    # the emulator takes any credentials; a process with none set must still reach it
    key, secret = (
        (EMULATOR_CREDENTIALS["AWS_ACCESS_KEY_ID"], EMULATOR_CREDENTIALS["AWS_SECRET_ACCESS_KEY"])
        if is_emulator(endpoint)
        else (None, None)
    )
    s3 = boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id=key,
        aws_secret_access_key=secret,
    )
    bucket = f"faults-cluster-{uuid.uuid4().hex[:6]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    names = IndexNames(bucket)
    ix = OpenSearchIndex(
        connect(opensearch_url, timeout=CLIENT_TIMEOUT, maxsize=8), names, policy=WRITE_POLICY
    )
    ix.ensure_live_generation("g1", dimension=DIMENSION, shards=SHARDS, replicas=REPLICAS)
    reader_ix = OpenSearchIndex(
        connect(opensearch_url, timeout=CLIENT_TIMEOUT, maxsize=8), names, policy=READ_POLICY
    )
    truth = S3Truth(s3, bucket)
    base = [f"incoming/doc-{i:03d}.md" for i in range(docs)]
    for k in base:
        truth.upload(k)
    writer = Writer(ix, truth)
    rig = Rig(ix, reader_ix, truth, writer, list(base))
    assert not writer.deliver(base)
    nodes.wait_health(ix.client, "green")
    name = "cluster (3 nodes, 3 shards, 1 replica)"
    rows: Rows = []
    new = [f"incoming/new-{i:03d}.md" for i in range(docs)]
    deletes = [f"incoming/doc-{i:03d}.md" for i in range(0, docs, 8)]
    steps: list[tuple[str, Callable[[], str]]] = [
        ("kill -9 of a primary's node during a backfill", lambda: kill_during_backfill(rig, new)),
        (
            "kill -9 during the revision switch of every document",
            lambda: kill_during_switch(rig, deletes),
        ),
        ("kill -9 during queries", lambda: kill_during_queries(rig)),
        ("full restart of one node under revisions", lambda: restart_one(rig)),
        ("rolling restart of all three under revisions", lambda: rolling_restart(rig)),
        ("SIGSTOP longer than the client timeout, SIGCONT", lambda: pause_node(rig)),
    ]
    total: dict[str, int] = {}
    newest: dict[str, int] = {}  # key -> newest position a search returned, all faults
    try:
        for label, fn in steps:
            keys = [k for k in rig.keys if k not in truth.deleted]
            t0 = time.monotonic()
            with Readers(reader_ix, truth, keys, readers, newest) as rd:
                try:
                    what = fn()
                except Exception as exc:  # the fault's own tooling failed: say so, go on
                    what = f"FAULT STEP FAILED: {type(exc).__name__}: {exc}"
                    _heal(rig)
                time.sleep(2.0)  # the readers see the cluster after the fault too
            tl = rd.tally
            for k, n in tl.counts.items():
                total[k] = total.get(k, 0) + n
            bad = [tl.counts.get(v, 0) for v in VERDICTS]
            rows.append(
                row(
                    name,
                    f"{label}: searches classified; stale / mixed / partial / missing",
                    "0 / 0 / 0 / 0",
                    f"{tl.classified()}; "
                    + " / ".join(map(str, bad))
                    + f"; errors {dict(sorted(tl.errors.items()))}; {what}; "
                    f"{time.monotonic() - t0:.0f} s",
                    not any(bad) and tl.classified() > 0 and "FAULT STEP FAILED" not in what,
                )
            )
            print(f"faults-cluster: {label}: {rows[-1].measured}", file=sys.stderr, flush=True)
        rows += final_rows(name, rig, total)
    finally:
        for g in ix.generations():
            ix.drop(g, force=True)
        ix.client.indices.delete_index_template(name=template_name(names), ignore=[404])
    return rows


def final_rows(name: str, rig: Rig, total: dict[str, int]) -> Rows:
    truth, ix = rig.truth, rig.ix
    current = truth.current_versions()
    live_set = OpenSearchLiveSet(ix, truth.bucket)
    drifted = [k for k, v in current.items() if live_set.live_revisions().get(k) != {v}]
    left = rig.writer.deliver(drifted)  # the sweep: drifted keys delivered again
    ix.refresh()
    live = live_set.live_revisions()
    at_s3 = sum(1 for k, v in current.items() if live.get(k) == {v})
    ghosts = [k for k in live if k not in current]
    short = 0
    for k, v in current.items():
        n = ix.client.count(
            index=ix.target,
            body={
                "query": {
                    "bool": {
                        "filter": [
                            {"term": {"doc_id": make_doc_id(truth.bucket, k)}},
                            {"term": {"revision": v}},
                            {"term": {"state": "live"}},
                        ]
                    }
                }
            },
        )["count"]
        short += n != truth.chunks[v]
    swept = ix.sweep(0)
    ix.refresh()
    deleted_ids = [make_doc_id(truth.bucket, k) for k in truth.deleted]
    deleted_left = ix.client.count(
        index=ix.target, body={"query": {"bool": {"filter": [{"terms": {"doc_id": deleted_ids}}]}}}
    )["count"]
    bad = [total.get(v, 0) for v in VERDICTS]
    return [
        row(
            name,
            "all faults: searches classified; stale / mixed / partial / missing",
            ">= 10000; 0 / 0 / 0 / 0",
            f"{sum(total.values())}; " + " / ".join(map(str, bad)),
            not any(bad) and sum(total.values()) >= 10000,
        ),
        row(
            name,
            "writer: outcomes / deliveries repeated",
            "-",
            f"{dict(sorted(rig.writer.statuses.items()))} / {rig.writer.redeliveries}",
            True,
        ),
        row(
            name,
            "keys drifted from S3 after the faults (sweep delivers them again) / left",
            "any / 0",
            f"{len(drifted)} / {len(left)}",
            not left,
        ),
        row(
            name,
            "keys live at exactly S3's current version, all chunks",
            f"{len(current)}/{len(current)}, 0 short",
            f"{at_s3}/{len(current)}, {short} short",
            at_s3 == len(current) and not short,
        ),
        row(
            name,
            "deleted keys still live / their chunks after retention (sweep 0 s)",
            "0 / 0",
            f"{len(ghosts)} / {deleted_left} (retention erased {swept} chunks)",
            not ghosts and deleted_left == 0,
        ),
    ]
