"""Benchmark: does any caller ever get a chunk of a document it may not read, while the
documents' readers, revisions and existence change underneath? And how long does a
removed group keep seeing a document?

    .venv/bin/python -m bench.acl_leak [--groups 24] [--docs 300] [--queries 5000]
        [--removals 20] [--seed 24] [--out bench/results/acl_leak.md]

Needs the local stack's services (`chunkwise local up`, or scripts/with-services.sh);
makes a stack of its own names (`throwaway_stack`) and removes it afterwards.

**Corpus.** ``--docs`` generated English documents (1-2 chunks each) under ``--groups``
groups, uploaded through S3 -> SQS -> the ingest handler (the local runner, in a
thread, as `chunkwise local run`). Each document gets a Bedrock-format sidecar with 1-3
random readers; some get a sidecar without readers and some no sidecar at all: those
are the admin group's only (deny by default, samdocs/metadata-and-access.md).

**Changes while querying.** A background thread changes documents through the real
ingest path (S3 PutObject / DeleteObject; the runner indexes them): new readers in the
sidecar, a new object revision, the sidecar deleted (the document falls back to no
readers), a sidecar added, the document deleted, a deleted document uploaded again. At
most ``--in-flight`` documents have a change on the way; a change counts as applied when
the index shows exactly the state it made (the revision key of the new object and
sidecar versions is the only one with visible chunks, all of them live; for a delete:
no visible chunks), as the reader sees it (searched, not realtime).

**Queries.** ``--queries`` queries (two words of the corpus' vocabulary, k = 10) from
random identities (1-3 groups, sometimes a group no document names; 3 % the admin
group), round robin through three paths:

- *handler*: the query function's own handler (functions/query/app.py, imported with
  the stack's settings in access mode ``groups``), a Function URL event with a bearer
  token the local issuer signed; the handler verifies it;
- *cli*: `chunkwise search`'s code path (`chunkwise.cli.index.main_search`, in-process)
  with ``--as SUBJECT --groups ... --json``: the local issuer mints, the configured
  verifier checks;
- *library*: `Searcher.search(..., identity=, access=)`.

**The judge** keeps every document's history of readers as the thread wrote it to S3
(not what the index says). A chunk returned to a non-admin caller by a query that ran
over [t0, t1] is a **leak** when the caller shares no group with the readers of any
state of that document that may be visible in that window: the states from the one in
force at t0 to the newest issued by t1 (a change in flight: old and new), where a state
stops counting once its successor is applied. A deleted document has no readers. Hits
that only an in-flight change's old readers allow are counted apart (*old readers*).

**Group removal.** Afterwards (changes stopped), ``--removals`` times: a live document
read by a group g, a caller in g alone who sees it (library search restricted to the
document), then a sidecar without g; timed from just before the PutObject until that
caller's search first returns nothing of the document (polled every 50 ms), and until
the ingest side showed the new state (applied, as above).

Writes bench/results/acl_leak.md and .json.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import importlib.util
import io
import json
import os
import platform
import random
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
ADMIN = "admins"
PATHS = ("handler", "cli", "library")
VOCABULARY = (
    "pump valve filter pressure turbine boiler invoice contract salary budget audit "
    "payroll tender vendor warranty maintenance inspection gasket bearing coupling "
    "schedule roster pension bonus merger lawsuit patent license tariff freight "
    "warehouse forklift pallet compressor nozzle sensor relay firmware backup"
).split()


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * (len(s) - 1))))
    return s[k]


def body_text(rng: random.Random, n: int, revision: int) -> bytes:
    """A document of 2-3 paragraphs of vocabulary sentences (1-2 chunks)."""
    paragraphs = [f"# Document {n:04d}, revision {revision}"]
    for _ in range(rng.randint(2, 3)):
        sentences = []
        for _ in range(rng.randint(4, 7)):
            words = rng.sample(VOCABULARY, 6)
            sentences.append(f"The {words[0]} {words[1]} needs the {' '.join(words[2:])} report.")
        paragraphs.append(" ".join(sentences))
    return "\n\n".join(paragraphs).encode("utf-8")


def sidecar(readers: frozenset[str] | None, n: int, change: int) -> bytes:
    attributes: dict[str, Any] = {"doc": n, "change": change}
    if readers is not None:
        attributes["chunkwise_readers"] = sorted(readers)
    return json.dumps({"metadataAttributes": attributes}).encode()


# --------------------------------------------------------------------------- the truth


@dataclass
class Version:
    """One state of a document as written to S3: who reads it (empty: nobody but the
    admin group; a deleted document: nobody), the revision key the index will show,
    when it was issued (before the first S3 call) and when the index showed it."""

    issued: float
    readers: frozenset[str]
    exists: bool
    key: str = ""
    applied: float | None = None


@dataclass
class Doc:
    n: int
    s3_key: str
    doc_id: str
    obj: str | None = None  # current object version id (None: deleted)
    sc: str | None = None  # current sidecar version id (None: no sidecar)
    readers: frozenset[str] = frozenset()
    revision: int = 0
    changes: int = 0
    versions: list[Version] = field(default_factory=list)

    def expected_key(self) -> str:
        from chunkwise.index.versions import revision_key

        assert self.obj is not None
        return revision_key(self.obj, self.sc or "")


class Truth:
    """Every document's history; the judge."""

    def __init__(self, docs: list[Doc]) -> None:
        self.docs = docs
        self.by_key = {d.s3_key: d for d in docs}
        self.lock = threading.Lock()

    def allowed(self, s3_key: str, t0: float, t1: float) -> tuple[frozenset[str], frozenset[str]]:
        """(readers of every state that may be visible during [t0, t1], readers of the
        newest state issued by t0)."""
        d = self.by_key[s3_key]
        with self.lock:
            versions = list(d.versions)
        union: set[str] = set()
        current: frozenset[str] = frozenset()
        for i, v in enumerate(versions):
            nxt = versions[i + 1] if i + 1 < len(versions) else None
            end = nxt.applied if nxt is not None and nxt.applied is not None else float("inf")
            if v.issued <= t1 and end >= t0 and v.exists:
                union |= v.readers
            if v.issued <= t0:
                current = v.readers if v.exists else frozenset()
        return frozenset(union), current


@dataclass
class PathCount:
    queries: int = 0
    admin_queries: int = 0
    refused: int = 0
    chunks: int = 0
    admin_chunks: int = 0
    leaks: int = 0
    old_readers: int = 0
    foreign: int = 0
    no_readers_docs_seen_by_admin: int = 0
    seconds: float = 0.0
    leak_examples: list[str] = field(default_factory=list)


def judge(
    truth: Truth,
    count: PathCount,
    groups: frozenset[str],
    hits: list[tuple[str, str]],
    t0: float,
    t1: float,
) -> None:
    """Count ``hits`` ((source key, doc id) of each returned chunk) for a caller in
    ``groups`` whose query ran over [t0, t1]."""
    admin = ADMIN in groups
    for s3_key, _doc_id in hits:
        if s3_key not in truth.by_key:
            count.foreign += 1
            count.leak_examples.append(f"foreign document {s3_key}")
            continue
        allowed, current = truth.allowed(s3_key, t0, t1)
        if admin:
            count.admin_chunks += 1
            count.no_readers_docs_seen_by_admin += not current
            continue
        count.chunks += 1
        if not groups & allowed:
            count.leaks += 1
            if len(count.leak_examples) < 10:
                count.leak_examples.append(
                    f"{s3_key}: caller {sorted(groups)}, readers in window {sorted(allowed)}"
                )
        elif not groups & current:
            count.old_readers += 1


# --------------------------------------------------------------------------- the stack


class Poller:
    """The runner (the ingest handler in-process) polling in a thread."""

    def __init__(self, runner: Any) -> None:
        self.runner, self.stop = runner, threading.Event()
        self.errors = 0
        self.thread = threading.Thread(target=self._loop, daemon=True, name="runner")

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                self.runner.poll_once()
            except Exception as exc:  # a poll that failed is retried; counted
                self.errors += 1
                print(f"acl_leak: runner poll failed: {exc}", file=sys.stderr)
                time.sleep(1)

    def __enter__(self) -> Poller:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=60)


class Bench:
    """A throwaway stack's bucket and index, the truth, and the three query paths."""

    def __init__(self, cfg: Any, groups: list[str], seed: int) -> None:
        import boto3

        from chunkwise.adapters.opensearch.client import connect
        from chunkwise.adapters.opensearch.index import OpenSearchIndex
        from chunkwise.adapters.opensearch.search import Searcher
        from chunkwise.index.names import IndexNames
        from chunkwise.localstack.config import issuer_dir
        from chunkwise.localstack.issuer import LocalIssuer
        from chunkwise.wiring.embedders import get_embedder

        self.cfg = cfg
        self.groups = groups
        self.rng = random.Random(seed)
        self.s3 = boto3.client("s3", endpoint_url=cfg.endpoint_url, region_name=cfg.region)
        self.client = connect(cfg.opensearch_url)
        self.names = IndexNames(cfg.index_prefix)
        self.index = OpenSearchIndex(self.client, self.names)
        self.searcher = Searcher(self.client, get_embedder("local"), self.names)
        self.issuer = LocalIssuer.create(issuer_dir())
        self.truth = Truth([])
        self.handler = load_query_handler()
        self.event = json.loads((ROOT / "events" / "query_function_url_post.json").read_text())

    # ----------------------------------------------------------------- S3 writes

    def _put(self, key: str, data: bytes) -> str:
        return str(self.s3.put_object(Bucket=self.cfg.bucket, Key=key, Body=data)["VersionId"])

    def _delete(self, key: str) -> None:
        self.s3.delete_object(Bucket=self.cfg.bucket, Key=key)

    def random_readers(self) -> frozenset[str]:
        return frozenset(self.rng.sample(self.groups, self.rng.randint(1, 3)))

    def create(self, n_docs: int, no_readers: float = 0.07, no_sidecar: float = 0.05) -> None:
        from chunkwise.index.names import make_doc_id

        docs = []
        for n in range(n_docs):
            key = f"{self.cfg.input_prefix}acl/doc-{n:04d}.md"
            docs.append(Doc(n, key, make_doc_id(self.cfg.bucket, key)))
        self.truth = Truth(docs)
        for d in docs:
            roll = self.rng.random()
            issued = time.monotonic()
            if roll < no_sidecar:
                d.sc, d.readers = None, frozenset()
            else:
                d.readers = frozenset() if roll < no_sidecar + no_readers else self.random_readers()
                d.sc = self._put(d.s3_key + ".metadata.json", sidecar(d.readers or None, d.n, 0))
            d.obj = self._put(d.s3_key, body_text(self.rng, d.n, 0))
            d.versions.append(Version(issued, d.readers, True, d.expected_key()))

    # ------------------------------------------------------------ applied or not

    def states(self, doc_id: str) -> dict[str, tuple[dict[str, int], int]]:
        """Revision key -> (chunk counts by state, chunks expected) of a document's
        chunks, as a search sees them (the index's own `revision_states` groups by the
        object revision only; a metadata change is a new state of the same one)."""
        from chunkwise.index.versions import revision_key
        from chunkwise.metadata.fields import VERSION_FIELD

        body = {
            "size": 0,
            "query": {
                "bool": {
                    "filter": [{"term": {"doc_id": doc_id}}],
                    "must_not": [{"term": {"state": "head"}}],
                }
            },
            "aggs": {
                "rev": {
                    "terms": {"field": "revision", "size": 100},
                    "aggs": {
                        "meta": {
                            "terms": {"field": VERSION_FIELD, "size": 100, "missing": ""},
                            "aggs": {
                                "states": {"terms": {"field": "state", "size": 10}},
                                "expected": {"max": {"field": "revision_chunks"}},
                            },
                        }
                    },
                }
            },
        }
        resp = self.client.search(index=self.names.read_alias, body=body)
        out = {}
        for r in resp["aggregations"]["rev"]["buckets"]:
            for m in r["meta"]["buckets"]:
                counts = {s["key"]: int(s["doc_count"]) for s in m["states"]["buckets"]}
                expected = int(m["expected"].get("value") or 0)
                out[revision_key(str(r["key"]), str(m["key"]))] = (counts, expected)
        return out

    def shows(self, d: Doc, v: Version) -> bool:
        """The index shows exactly ``v``: its revision key is the only one with live
        chunks, all of them (a delete: none live)."""
        states = self.states(d.doc_id)
        visible = {k for k, (counts, _) in states.items() if counts.get("live", 0)}
        if not v.exists:
            return not visible
        if visible != {v.key}:
            return False
        counts, expected = states[v.key]
        return expected > 0 and counts.get("live", 0) == expected

    def wait_applied(self, docs: list[Doc], timeout: float) -> None:
        t_end = time.monotonic() + timeout
        pending = [(d, d.versions[-1]) for d in docs if d.versions[-1].applied is None]
        while pending:
            still = []
            for d, v in pending:
                if self.shows(d, v):
                    with self.truth.lock:
                        v.applied = time.monotonic()
                else:
                    still.append((d, v))
            pending = still
            if pending and time.monotonic() > t_end:
                raise SystemExit(f"acl_leak: {len(pending)} documents not indexed in {timeout}s")
            if pending:
                time.sleep(0.5)

    # ----------------------------------------------------------------- changes

    def change(self, d: Doc) -> str:
        """One change of ``d`` through S3; returns its name. The new Version is recorded
        before the first S3 call (it may be visible right after it)."""
        rng = self.rng
        d.changes += 1
        if d.obj is None:  # deleted: upload it again, new readers first
            op = "recreate"
            readers = self.random_readers()
            v = self._record(d, readers, True)
            d.sc = self._put(d.s3_key + ".metadata.json", sidecar(readers, d.n, d.changes))
            d.revision += 1
            d.obj = self._put(d.s3_key, body_text(rng, d.n, d.revision))
        else:
            roll = rng.random()
            if roll < 0.45:
                op = "readers"
                readers = self.random_readers()
                v = self._record(d, readers, True)
                d.sc = self._put(d.s3_key + ".metadata.json", sidecar(readers, d.n, d.changes))
            elif roll < 0.65:
                op = "revision"
                v = self._record(d, d.readers, True)
                d.revision += 1
                d.obj = self._put(d.s3_key, body_text(rng, d.n, d.revision))
            elif roll < 0.75 and d.sc is not None:
                op = "sidecar-deleted"
                v = self._record(d, frozenset(), True)
                self._delete(d.s3_key + ".metadata.json")
                d.sc = None
            elif roll < 0.85:
                op = "no-readers"
                v = self._record(d, frozenset(), True)
                d.sc = self._put(d.s3_key + ".metadata.json", sidecar(None, d.n, d.changes))
            else:
                op = "deleted"
                v = self._record(d, frozenset(), False)
                self._delete(d.s3_key)
                d.obj = None
        d.readers = v.readers
        if v.exists:
            v.key = d.expected_key()
        return op

    def _record(self, d: Doc, readers: frozenset[str], exists: bool) -> Version:
        v = Version(time.monotonic(), readers, exists)
        with self.truth.lock:
            d.versions.append(v)
        return v

    # ----------------------------------------------------------------- queries

    def identity(self) -> tuple[str, frozenset[str]]:
        rng = self.rng
        subject = f"user-{rng.randrange(10_000):04d}"
        if rng.random() < 0.03:
            return subject, frozenset({ADMIN})
        groups = set(rng.sample(self.groups, rng.randint(1, 3)))
        if rng.random() < 0.1:
            groups.add("group-nobody-names")
        return subject, frozenset(groups)

    def query_text(self) -> str:
        return " ".join(self.rng.sample(VOCABULARY, 2))

    def ask(
        self, path: str, query: str, subject: str, groups: frozenset[str], k: int
    ) -> list[tuple[str, str]] | None:
        """(source key, doc id) of every hit; None: refused."""
        if path == "handler":
            return self._ask_handler(query, subject, groups, k)
        if path == "cli":
            return self._ask_cli(query, subject, groups, k)
        return self._ask_library(query, subject, groups, k)

    def _ask_handler(
        self, query: str, subject: str, groups: frozenset[str], k: int
    ) -> list[tuple[str, str]] | None:
        from chunkwise.localstack.emulator import LocalContext

        token = self.issuer.mint(subject, sorted(groups), groups_claim="groups", ttl_seconds=300)
        event = copy.deepcopy(self.event)
        event["body"] = json.dumps({"query": query, "k": k})
        event["headers"]["authorization"] = f"Bearer {token}"
        out = self.handler.lambda_handler(event, LocalContext())
        if out["statusCode"] != 200:
            print(f"acl_leak: handler {out['statusCode']}: {out['body'][:200]}", file=sys.stderr)
            return None
        return [(h["citation"]["key"], h["doc_id"]) for h in json.loads(out["body"])["hits"]]

    def _ask_cli(
        self, query: str, subject: str, groups: frozenset[str], k: int
    ) -> list[tuple[str, str]] | None:
        from chunkwise.cli.index import main_search

        argv = [
            query,
            "--k",
            str(k),
            "--json",
            "--as",
            subject,
            "--groups",
            ",".join(sorted(groups)),
            "--url",
            self.cfg.opensearch_url,
            "--prefix",
            self.cfg.index_prefix,
        ]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main_search(argv)
        if rc != 0:
            print(f"acl_leak: chunkwise search exit {rc}: {err.getvalue()[-300:]}", file=sys.stderr)
            return None
        hits = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
        return [(h["citation"]["key"], h["doc_id"]) for h in hits]

    def _ask_library(
        self, query: str, subject: str, groups: frozenset[str], k: int
    ) -> list[tuple[str, str]] | None:
        from chunkwise.access import AccessMode, AccessPolicy, Identity

        who = Identity(subject, self.issuer.issuer, groups)
        hits = self.searcher.search(
            query, k, None, identity=who, access=AccessPolicy(AccessMode.GROUPS, ADMIN)
        )
        return [(h.citation.key, h.doc_id) for h in hits]


def load_query_handler() -> ModuleType:
    """A fresh import of functions/query/app.py with this process's settings (a cold
    start of the query function)."""
    spec = importlib.util.spec_from_file_location(
        f"acl_leak_query_{uuid.uuid4().hex[:8]}", ROOT / "functions" / "query" / "app.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


class Mutator:
    """Changes documents in a thread, at most ``in_flight`` on the way at a time, and
    marks each change applied when the index shows it."""

    def __init__(self, bench: Bench, in_flight: int, pause: float) -> None:
        self.bench, self.in_flight, self.pause = bench, in_flight, pause
        self.stop = threading.Event()
        self.ops: dict[str, int] = {}
        self.waits: list[float] = []
        self.errors = 0
        self.flying: dict[str, tuple[Doc, Version]] = {}
        self.thread = threading.Thread(target=self._loop, daemon=True, name="mutator")

    def _loop(self) -> None:
        b = self.bench
        while not self.stop.is_set():
            try:
                for key, (d, v) in list(self.flying.items()):
                    if b.shows(d, v):
                        with b.truth.lock:
                            v.applied = time.monotonic()
                        self.waits.append(v.applied - v.issued)
                        del self.flying[key]
                if len(self.flying) < self.in_flight:
                    idle = [d for d in b.truth.docs if d.s3_key not in self.flying]
                    d = b.rng.choice(idle)
                    op = b.change(d)
                    self.ops[op] = self.ops.get(op, 0) + 1
                    self.flying[d.s3_key] = (d, d.versions[-1])
            except Exception as exc:  # counted and reported; the loop goes on
                self.errors += 1
                print(f"acl_leak: change failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            self.stop.wait(self.pause)

    def settle(self, timeout: float) -> int:
        """Stop changing; wait for the changes on the way. Returns those never applied."""
        self.stop.set()
        self.thread.join(timeout=30)
        t_end = time.monotonic() + timeout
        while self.flying and time.monotonic() < t_end:
            for key, (d, v) in list(self.flying.items()):
                if self.bench.shows(d, v):
                    with self.bench.truth.lock:
                        v.applied = time.monotonic()
                    self.waits.append(v.applied - v.issued)
                    del self.flying[key]
            time.sleep(0.5)
        return len(self.flying)

    def __enter__(self) -> Mutator:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop.set()


# --------------------------------------------------------------------------- phases


@dataclass
class LeakResult:
    counts: dict[str, PathCount]
    ops: dict[str, int]
    apply_waits: list[float]
    unapplied: int
    change_errors: int
    seconds: float

    @property
    def leaks(self) -> int:
        return sum(c.leaks + c.foreign for c in self.counts.values())


def leak_phase(
    bench: Bench,
    queries: int,
    k: int,
    in_flight: int,
    pause: float,
    progress: Callable[[int], None] | None = None,
    max_seconds: float | None = None,
) -> LeakResult:
    """``queries`` queries, or as many as ``max_seconds`` allow (the count says which)."""
    counts = {p: PathCount() for p in PATHS}
    t_start = time.monotonic()
    with Mutator(bench, in_flight, pause) as mutator:
        for i in range(queries):
            if max_seconds is not None and time.monotonic() - t_start > max_seconds:
                break
            path = PATHS[i % len(PATHS)]
            subject, groups = bench.identity()
            query = bench.query_text()
            c = counts[path]
            t0 = time.monotonic()
            hits = bench.ask(path, query, subject, groups, k)
            t1 = time.monotonic()
            c.seconds += t1 - t0
            c.queries += 1
            c.admin_queries += ADMIN in groups
            if hits is None:
                c.refused += 1
                continue
            judge(bench.truth, c, groups, hits, t0, t1)
            if progress is not None:
                progress(i + 1)
        unapplied = mutator.settle(120)
    return LeakResult(
        counts,
        dict(mutator.ops),
        mutator.waits,
        unapplied,
        mutator.errors,
        time.monotonic() - t_start,
    )


@dataclass
class Removal:
    hidden: float  # PutObject -> the removed group's caller sees nothing of the document
    applied: float  # PutObject -> the index shows the new state


def removal_phase(bench: Bench, trials: int, timeout: float = 60.0) -> list[Removal]:
    from chunkwise.access import AccessMode, AccessPolicy, Identity
    from chunkwise.search.hybrid import SearchFilters

    out: list[Removal] = []
    policy = AccessPolicy(AccessMode.GROUPS, ADMIN)
    tried: set[str] = set()
    while len(out) < trials:
        candidates = [
            d for d in bench.truth.docs if d.obj is not None and d.readers and d.s3_key not in tried
        ]
        if not candidates:
            break
        d = bench.rng.choice(candidates)
        tried.add(d.s3_key)
        g = bench.rng.choice(sorted(d.readers))
        caller = Identity("removed-one", bench.issuer.issuer, frozenset({g}))
        only = SearchFilters(doc_ids=(d.doc_id,))

        def sees(caller: Identity = caller, only: SearchFilters = only) -> bool:
            return bool(
                bench.searcher.search(bench.query_text(), 3, only, identity=caller, access=policy)
            )

        if not sees():
            raise SystemExit(f"acl_leak: {d.s3_key} not seen by its reader group {g}")
        d.changes += 1
        readers = d.readers - {g}
        v = bench._record(d, readers, True)
        t0 = time.perf_counter()
        d.sc = bench._put(d.s3_key + ".metadata.json", sidecar(readers or None, d.n, d.changes))
        d.readers = readers
        v.key = d.expected_key()
        hidden = applied = None
        while hidden is None or applied is None:
            now = time.perf_counter() - t0
            if now > timeout:
                raise SystemExit(f"acl_leak: group {g} still sees {d.s3_key} after {timeout}s")
            if hidden is None and not sees():
                hidden = time.perf_counter() - t0
            if applied is None and bench.shows(d, v):
                applied = time.perf_counter() - t0
                with bench.truth.lock:
                    v.applied = time.monotonic()
            time.sleep(0.05)
        out.append(Removal(hidden, applied))
    return out


# --------------------------------------------------------------------------- the run


@contextlib.contextmanager
def acl_stack(label: str, visibility_timeout: int = 60) -> Iterator[tuple[Any, Any]]:
    """A throwaway stack in access mode ``groups`` (its query function verifies the
    local issuer's tokens) and its runner."""
    from chunkwise.localstack.config import service_urls
    from chunkwise.localstack.emulator import Runner
    from chunkwise.localstack.stack import throwaway_stack
    from chunkwise.settings import export_env

    endpoint, os_url = service_urls()
    with throwaway_stack(
        label,
        visibility_timeout=visibility_timeout,
        endpoint=endpoint,
        opensearch_url=os_url,
        access_control="groups",
        admin_group=ADMIN,
    ) as cfg:
        export_env(cfg.env())
        yield cfg, Runner(cfg, wait_seconds=1)


def table(result: LeakResult) -> list[str]:
    lines = [
        "| path | queries | of them admin | refused | chunks returned (non-admin) | "
        "chunks returned (admin) | leaks | allowed only by old readers (change in flight) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    total = PathCount()
    for path, c in result.counts.items():
        lines.append(
            f"| {path} | {c.queries} | {c.admin_queries} | {c.refused} | {c.chunks} | "
            f"{c.admin_chunks} | {c.leaks + c.foreign} | {c.old_readers} |"
        )
        for name in (
            "queries",
            "admin_queries",
            "refused",
            "chunks",
            "admin_chunks",
            "leaks",
            "foreign",
            "old_readers",
        ):
            setattr(total, name, getattr(total, name) + getattr(c, name))
    lines.append(
        f"| **all** | {total.queries} | {total.admin_queries} | {total.refused} | "
        f"{total.chunks} | {total.admin_chunks} | **{total.leaks + total.foreign}** | "
        f"{total.old_readers} |"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--groups", type=int, default=24)
    ap.add_argument("--docs", type=int, default=300)
    ap.add_argument("--queries", type=int, default=5000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--in-flight", type=int, default=4)
    ap.add_argument("--pause", type=float, default=0.25, help="seconds between changes")
    ap.add_argument("--removals", type=int, default=20)
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument(
        "--query-seconds",
        type=float,
        default=None,
        help="stop querying after this long (the table counts the queries asked)",
    )
    ap.add_argument("--out", type=Path, default=RESULTS / "acl_leak.md")
    args = ap.parse_args(argv)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

    groups = [f"group-{i:02d}" for i in range(args.groups)]
    with acl_stack("acl-leak") as (cfg, runner), Poller(runner) as poller:
        bench = Bench(cfg, groups, args.seed)
        t0 = time.monotonic()
        bench.create(args.docs)
        bench.wait_applied(bench.truth.docs, timeout=1800)
        indexed = time.monotonic() - t0
        print(f"acl_leak: {args.docs} documents indexed in {indexed:.0f} s", file=sys.stderr)

        def progress(i: int) -> None:
            if i % 250 == 0:
                print(f"acl_leak: {i}/{args.queries} queries", file=sys.stderr, flush=True)

        result = leak_phase(
            bench,
            args.queries,
            args.k,
            args.in_flight,
            args.pause,
            progress,
            max_seconds=args.query_seconds,
        )
        removals = removal_phase(bench, args.removals)
        runner_errors = poller.errors

    lines = report(args, result, removals, indexed, runner_errors)
    print("\n".join(lines))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args.out.with_suffix(".json").write_text(
        json.dumps(
            {
                "args": {k: str(v) for k, v in vars(args).items()},
                "counts": {p: {k: v for k, v in vars(c).items()} for p, c in result.counts.items()},
                "ops": result.ops,
                "apply_wait_s": {
                    "p50": pct(result.apply_waits, 50),
                    "p95": pct(result.apply_waits, 95),
                    "max": max(result.apply_waits),
                }
                if result.apply_waits
                else None,
                "unapplied": result.unapplied,
                "change_errors": result.change_errors,
                "removals": [vars(r) for r in removals],
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    return 1 if result.leaks else 0


def report(
    args: argparse.Namespace,
    result: LeakResult,
    removals: list[Removal],
    indexed: float,
    runner_errors: int,
) -> list[str]:
    waits = result.apply_waits
    hidden = [r.hidden for r in removals]
    applied = [r.applied for r in removals]
    ops = ", ".join(f"{k} {v}" for k, v in sorted(result.ops.items()))
    asked = sum(c.queries for c in result.counts.values())
    cut = (
        f" (of {args.queries}: stopped by --query-seconds {args.query_seconds:.0f})"
        if asked < args.queries
        else ""
    )
    lines = [
        "# Access-control leak test (bench/acl_leak.py)",
        "",
        f"`python -m bench.acl_leak --groups {args.groups} --docs {args.docs} --queries "
        f"{args.queries} --k {args.k} --in-flight {args.in_flight} --removals {args.removals} "
        f"--seed {args.seed}"
        + (f" --query-seconds {args.query_seconds:.0f}" if args.query_seconds else "")
        + "`; local stack (OpenSearch 2.19.1 node, LocalStack S3/SQS, the "
        f"ingest handler in-process), {platform.machine()}, {os.cpu_count()} cores shared "
        f"with other users; {time.strftime('%Y-%m-%d', time.gmtime())}.",
        "",
        f"{args.docs} documents, {args.groups} groups, indexed in {indexed:.0f} s; "
        f"{asked} queries{cut} in {result.seconds:.0f} s while {sum(result.ops.values())} "
        f"changes went through the ingest path ({ops}); each change applied after p50 "
        f"{pct(waits, 50):.2f} s, p95 {pct(waits, 95):.2f} s (S3 write to the index "
        f"showing only the new state); {result.unapplied} not applied at the end; "
        f"{result.change_errors} change errors, {runner_errors} runner poll errors.",
        "",
        *table(result),
        "",
        "- *leaks*: chunks returned to a non-admin caller who shares no group with the readers",
        "  of any state of the document that may have been visible while the query ran (old",
        "  and new of a change in flight; a deleted document has none), plus chunks of",
        "  documents the benchmark never wrote. Admin callers see everything by design and",
        "  are not judged.",
        "- *allowed only by old readers*: the caller was in the readers of the state before",
        "  a change in flight, not in the new one: the documented bound below, not a leak.",
        "",
        "## Group removal: until the removed group's caller no longer sees the document",
        "",
        f"{len(removals)} sidecar changes, each removing one group from a live document's",
        "readers, with no other change in flight; the caller is in that group alone.",
        "",
        "| from the sidecar's PutObject until | p50 | p95 | max |",
        "|---|---:|---:|---:|",
    ]
    if removals:
        lines += [
            f"| the caller's search returns nothing of the document | {pct(hidden, 50):.2f} s | "
            f"{pct(hidden, 95):.2f} s | {max(hidden):.2f} s |",
            f"| the index shows only the new state (all chunks) | {pct(applied, 50):.2f} s | "
            f"{pct(applied, 95):.2f} s | {max(applied):.2f} s |",
        ]
    per_path = ", ".join(
        f"{p} {1000 * c.seconds / max(1, c.queries):.0f} ms" for p, c in result.counts.items()
    )
    lines += ["", f"Mean query time per path (under the change load): {per_path}."]
    examples = [e for c in result.counts.values() for e in c.leak_examples]
    if examples:
        lines += ["", "Leaks found:", "", *[f"- {e}" for e in examples[:20]]]
    return lines


if __name__ == "__main__":
    sys.exit(main())
