"""No caller sees a chunk of a document outside its readers, on the real local stack,
while readers, revisions and existence change (bench/acl_leak.py at small scale: 3
groups, 20 documents, 200 queries through the query function's handler, `chunkwise
search`'s code path and the library; samdocs/metadata-and-access.md for the judge).

Dropping the access clause from the query (`SearchFilters.clauses` in
chunkwise/search/hybrid.py leaving `self.access` out: the one place both legs of every
path take it from) makes this test fail with leaks on every path."""

from __future__ import annotations

import pytest
from bench.acl_leak import PATHS, Bench, Poller, acl_stack, leak_phase, table

from chunkwise.localstack import emulator
from tests.e2e.conftest import _require_services

pytestmark = pytest.mark.e2e


def test_no_chunk_reaches_a_caller_outside_its_readers_while_they_change() -> None:
    _require_services()
    emulator._HANDLERS.pop("ingest", None)  # this stack's settings, as a new Lambda
    try:
        with acl_stack("e2e-acl", visibility_timeout=10) as (cfg, runner), Poller(runner):
            bench = Bench(cfg, ["hr", "legal", "sales"], seed=7)
            bench.create(20, no_readers=0.15, no_sidecar=0.1)
            bench.wait_applied(bench.truth.docs, timeout=300)
            result = leak_phase(bench, 200, k=10, in_flight=3, pause=0.3)
    finally:
        emulator._HANDLERS.pop("ingest", None)
    print("\n".join(table(result)))
    assert set(result.counts) == set(PATHS)
    for path, c in result.counts.items():
        assert c.refused == 0, path
        assert c.chunks > 0, path  # non-admin callers got chunks: the check has teeth
        assert (c.leaks, c.foreign) == (0, 0), (path, c.leak_examples)
    assert sum(result.ops.values()) >= 10  # the readers changed underneath
    assert result.unapplied == 0 and result.change_errors == 0
