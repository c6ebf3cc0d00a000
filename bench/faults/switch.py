"""Fault injection and concurrency on the revision switch, with readers classifying
every result while it happens.

- ``switch-faults``: for every step boundary of the switch (`chunkwise.ingest.revisions.Phase`)
  the writer's connection to the node is cut right after that step (a proxy that
  stops answering), the rest of the invocation fails (its client retries, then
  gives up), the connection comes back and the message is delivered again.
- ``switch-concurrent``: three writers upload and switch the same key at once,
  rounds after rounds.

Two reader threads search all along, straight at the node (never through the
proxy), and classify each result of the document: ok, stale (older than a
revision some earlier read already returned), mixed (two revisions), partial (not
all chunks of its revision), missing (nothing, though a revision was visible
before). Raw readers (any client, the filtered read alias: ``state = live``) are
counted apart; their guarantee is weaker (samdocs/architecture.md).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from bench.faults.readonly_proxy import READ_METHODS, ReadOnlyProxy
from bench.faults.scenarios import Row, Rows, row
from chunkwise.adapters.opensearch.client import connect
from chunkwise.adapters.opensearch.heads import OpenSearchHeads
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.retries import WHOLE, RetryPolicy, whole
from chunkwise.adapters.opensearch.snapshot import in_pit, point_in_time
from chunkwise.adapters.opensearch.switch import OpenSearchSwitchIndex
from chunkwise.index.heads import CANDIDATE_STATES
from chunkwise.index.names import IndexNames, make_doc_id, template_name
from chunkwise.index.reading import Candidate, read_current
from chunkwise.ingest.revisions import Loaded, Phase, RevisionSwitch, Version
from chunkwise.schema import Chunk

BUCKET = "faults"
DIMENSION = 8
ALL_METHODS = READ_METHODS | {"PUT", "DELETE", "PATCH"}
#: The writer's client gives up quickly once the node is gone (the switch's retries
#: are the client's; the scenario measures what giving up leaves).
QUICK = RetryPolicy(attempts=2, initial=0.05, maximum=0.1, jitter=0.01)


@dataclass
class Bucket:
    """A versioned key as S3 would hold it; the order of uploads is the truth."""

    versions: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def upload(self) -> str:
        with self.lock:
            self.versions.append(uuid.uuid4().hex[:12])
            return self.versions[-1]

    def current(self, key: str) -> Version | None:
        with self.lock:
            return Version(self.versions[-1]) if self.versions else None

    def order(self, revision: str) -> int:
        with self.lock:
            return self.versions.index(revision)

    def n_chunks(self, revision: str) -> int:
        return 2 + self.order(revision) % 4  # revisions differ in size: partial shows


def loader(bucket: Bucket) -> Callable[[Sequence[tuple[str, str, Version]]], dict[str, Loaded]]:
    def load(items: Sequence[tuple[str, str, Version]]) -> dict[str, Loaded]:
        out = {}
        for doc_id, key, v in items:
            chunks = [
                fault_chunk(doc_id, key, v.revision, i) for i in range(bucket.n_chunks(v.revision))
            ]
            vectors = [[1.0 + i] + [0.0] * (DIMENSION - 1) for i in range(len(chunks))]
            out[doc_id] = Loaded(chunks, vectors)
        return out

    return load


def fault_chunk(doc_id: str, key: str, revision: str, i: int) -> Chunk:
    """A small chunk naming its key and revision (the fault scenarios' documents)."""
    body = f"{key} revision {revision} part {i}: zebra"
    return Chunk(
        doc_id=doc_id,
        source_key=key,
        revision=revision,
        chunk_index=i,
        start=0,
        end=len(body),
        byte_start=0,
        byte_end=len(body),
        body=body,
        text=body,
        token_count=8,
        lang="en",
    )


# --------------------------------------------------------------------------- readers


@dataclass
class Verdicts:
    counts: dict[str, int] = field(default_factory=dict)
    raw: dict[str, int] = field(default_factory=dict)
    newest: int = -1  # upload order of the newest revision a finished read returned
    newest_raw: int = -1  # the same for raw reads
    lock: threading.Lock = field(default_factory=threading.Lock)

    def total(self) -> int:
        return sum(self.counts.values())

    def classify(self, bucket: Bucket, revisions: list[str], floor: int, into: str) -> None:
        revs = set(revisions)
        if len(revs) > 1:
            verdict = "mixed"
        elif not revs:
            verdict = "missing" if floor >= 0 else "not yet visible"
        else:
            (rev,) = revs
            order = bucket.order(rev)
            if order < floor:
                verdict = "stale"
            elif len(revisions) != bucket.n_chunks(rev):
                verdict = "partial"
            else:
                verdict = "ok"
        with self.lock:
            counts = self.counts if into == "chunkwise" else self.raw
            counts[verdict] = counts.get(verdict, 0) + 1
            if verdict == "ok" and into == "chunkwise":
                self.newest = max(self.newest, bucket.order(next(iter(revs))))
            elif verdict == "ok":
                self.newest_raw = max(self.newest_raw, bucket.order(next(iter(revs))))


def read_doc(ix: OpenSearchIndex, doc_id: str) -> list[str]:
    """Revisions of the chunks the chunkwise reader returns for one document, read as
    `Searcher.answer` reads: candidates and heads from one point in time on the
    primaries (`chunkwise.adapters.opensearch.snapshot`); every search whole or an error
    (`whole`: on a cluster a lost node must not read as a missing revision)."""
    heads = OpenSearchHeads(ix)
    with point_in_time(ix.client, ix.target, ix.policy) as pit:

        def search(attempt: int) -> list[dict[str, Any]]:
            body = {
                "size": 20 * (attempt + 1),
                "query": {
                    "bool": {
                        "must": [{"match": {"text": "zebra"}}],
                        "filter": [
                            {"term": {"doc_id": doc_id}},
                            {"terms": {"state": list(CANDIDATE_STATES)}},
                        ],
                    }
                },
                "_source": ["doc_id", "revision", "state"],
            }
            resp = whole(ix.client.search(body=in_pit(body, pit), params=WHOLE))
            hits: list[dict[str, Any]] = resp["hits"]["hits"]
            return hits

        def candidate(h: dict[str, Any]) -> Candidate:
            s = h["_source"]
            return Candidate(s["doc_id"], s["revision"], s["state"])

        hits = read_current(search, candidate, lambda ids: heads.search_heads(ids, pit=pit))
    return [h["_source"]["revision"] for h in hits]


def read_raw(ix: OpenSearchIndex, doc_id: str) -> list[str]:
    """What any OpenSearch client gets through the read alias (filtered: live only)."""
    body = {"size": 20, "query": {"bool": {"filter": [{"term": {"doc_id": doc_id}}]}}}
    hits = ix.client.search(index=ix.names.read_alias, body=body)["hits"]["hits"]
    return [h["_source"]["revision"] for h in hits]


class ThreadedLoop:
    """Starts ``threads`` on entering the block; sets ``stop`` and joins them on leaving."""

    threads: list[threading.Thread]
    stop: threading.Event

    def __enter__(self) -> Self:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()


class ReaderLoop(ThreadedLoop):
    """Two threads reading one document until stopped (one raw read per ten)."""

    def __init__(self, ix: OpenSearchIndex, doc_id: str, bucket: Bucket) -> None:
        self.ix, self.doc_id, self.bucket = ix, doc_id, bucket
        self.verdicts = Verdicts()
        self.stop = threading.Event()
        self.errors: list[str] = []
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(2)]

    def _run(self) -> None:
        n = 0
        while not self.stop.is_set():
            n += 1
            try:
                floor = self.verdicts.newest
                self.verdicts.classify(
                    self.bucket, read_doc(self.ix, self.doc_id), floor, "chunkwise"
                )
                if n % 10 == 0:
                    floor = self.verdicts.newest_raw
                    raw = read_raw(self.ix, self.doc_id)
                    self.verdicts.classify(self.bucket, raw, floor, "raw")
            except Exception as exc:  # a reader error is a measurement, not a crash
                self.errors.append(f"{type(exc).__name__}: {exc}")


# --------------------------------------------------------------------------- plumbing


@dataclass
class Rig:
    direct: OpenSearchIndex  # readers and checks: straight at the node
    proxy: ReadOnlyProxy
    via_proxy: OpenSearchIndex  # the writer's view: through the cut-able proxy
    bucket: Bucket
    key: str
    doc_id: str

    def switch(self, index: OpenSearchIndex | None = None) -> RevisionSwitch:
        port = OpenSearchSwitchIndex(index or self.via_proxy)
        return RevisionSwitch(port, self.bucket.current, loader(self.bucket))

    def deliver(self) -> str:
        """One delivery of the key's message; its outcome's status."""
        return self.switch().run({self.doc_id: self.key})[self.doc_id].status


def make_rig(opensearch_url: str, tag: str) -> Rig:
    names = IndexNames(f"faults-{tag}-{uuid.uuid4().hex[:6]}")
    direct = OpenSearchIndex(connect(opensearch_url, maxsize=8), names)
    direct.ensure_live_generation("g1", dimension=DIMENSION)
    proxy = ReadOnlyProxy(opensearch_url, allowed=frozenset(ALL_METHODS))
    via = OpenSearchIndex(connect(proxy.url, timeout=5), names, policy=QUICK)
    key = f"docs/{tag}.md"
    return Rig(direct, proxy, via, Bucket(), key, make_doc_id(BUCKET, key))


def drop(rig: Rig) -> None:
    """The rig's generations and its index template (nothing of it is left behind)."""
    for g in rig.direct.generations():
        rig.direct.drop(g, force=True)
    rig.direct.client.indices.delete_index_template(name=template_name(rig.direct.names))


def settled(rig: Rig, timeout: float = 10.0) -> bool:
    """Exactly S3's current revision, whole, for both kinds of readers (waits for
    the node's periodic refresh; nothing here forces one)."""
    cur = rig.bucket.current(rig.key)
    assert cur is not None
    want = [cur.revision] * rig.bucket.n_chunks(cur.revision)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (
            sorted(read_doc(rig.direct, rig.doc_id)) == want
            and sorted(read_raw(rig.direct, rig.doc_id)) == want
        ):
            return True
        time.sleep(0.1)
    return False


# --------------------------------------------------------------------------- scenarios


def _cut_after(rig: Rig, phase: Phase) -> tuple[str, str]:
    """Upload, run the switch up to ``phase``, cut the connection, let the invocation
    end, restore, deliver again; (status of the cut invocation, of the redelivery)."""
    rig.bucket.upload()
    steps = rig.switch()
    gen = steps.steps({rig.doc_id: rig.key})
    for step in gen:
        if step is phase:
            rig.proxy.down = True
            break
    for _ in gen:
        pass
    rig.proxy.down = False
    first = steps.outcomes[rig.doc_id].status
    for _ in range(3):
        status = rig.deliver()
        if status in ("indexed", "unchanged"):
            return first, status
    return first, status


def switch_faults_scenario(opensearch_url: str, endpoint: str, rounds: int = 2) -> Rows:
    rig = make_rig(opensearch_url, "cut")
    rows: Rows = []
    try:
        with rig.proxy:
            rig.bucket.upload()
            rig.deliver()
            if not settled(rig):
                raise RuntimeError("the first revision did not become visible")
            with ReaderLoop(rig.direct, rig.doc_id, rig.bucket) as readers:
                for _ in range(rounds):
                    for phase in Phase:
                        first, again = _cut_after(rig, phase)
                        ok = settled(rig)
                        rows.append(
                            row(
                                "switch-faults",
                                f"cut after {phase.value}: invocation / redelivery / settled",
                                "error or done / indexed or unchanged / yes",
                                f"{first} / {again} / {'yes' if ok else 'no'}",
                                again in ("indexed", "unchanged") and ok,
                            )
                        )
            rows += verdict_rows("switch-faults", readers)
    finally:
        drop(rig)
    return rows


def switch_concurrent_scenario(
    opensearch_url: str, endpoint: str, writers: int = 3, uploads: int = 12
) -> Rows:
    rig = make_rig(opensearch_url, "race")
    rows: Rows = []
    statuses: dict[str, int] = {}
    lock = threading.Lock()

    def write_loop() -> None:
        for _ in range(uploads):
            rig.bucket.upload()
            status = rig.switch(rig.direct).run({rig.doc_id: rig.key})[rig.doc_id].status
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

    try:
        rig.bucket.upload()
        rig.switch(rig.direct).run({rig.doc_id: rig.key})
        if not settled(rig):
            raise RuntimeError("the first revision did not become visible")
        with ReaderLoop(rig.direct, rig.doc_id, rig.bucket) as readers:
            threads = [threading.Thread(target=write_loop) for _ in range(writers)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            time.sleep(1.5)  # the readers see the last switch settle too
        final = rig.switch(rig.direct).run({rig.doc_id: rig.key})[rig.doc_id].status
        rows.append(
            row(
                "switch-concurrent",
                f"{writers} writers x {uploads} uploads of one key: outcomes",
                "no error",
                dict(sorted(statuses.items())),
                "error" not in statuses,
            )
        )
        rows.append(
            row(
                "switch-concurrent",
                "afterwards: S3's current revision, whole, for both readers",
                "yes (one more delivery: unchanged)",
                f"{'yes' if settled(rig) else 'no'} ({final})",
                settled(rig) and final == "unchanged",
            )
        )
        rows += verdict_rows("switch-concurrent", readers)
    finally:
        drop(rig)
    return rows


def verdict_rows(scenario: str, readers: ReaderLoop) -> list[Row]:
    v = readers.verdicts
    bad = {k: n for k, n in v.counts.items() if k not in ("ok", "not yet visible")}
    return [
        row(
            scenario,
            "chunkwise reader: searches sampled; stale / mixed / partial / missing",
            "0 / 0 / 0 / 0",
            f"{v.total()}; "
            + " / ".join(str(v.counts.get(k, 0)) for k in ("stale", "mixed", "partial", "missing")),
            not bad and not readers.errors and v.total() > 0,
        ),
        row(
            scenario,
            "raw reader (read alias, live flag; eventually consistent): verdicts",
            "informational",
            dict(sorted(v.raw.items())),
            True,
        ),
        row(scenario, "reader errors", 0, len(readers.errors), not readers.errors),
    ]
