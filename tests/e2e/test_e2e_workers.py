"""`chunkwise local run --workers N`: worker processes share the queue, every upload is
indexed once, through the ingest handler."""

from __future__ import annotations

from typing import Any

import pytest

from chunkwise.index.names import make_doc_id
from chunkwise.localstack.emulator import run_workers

pytestmark = pytest.mark.e2e

DOCS = 8


def test_two_workers_drain_the_queue_and_index_every_upload(stack: Any, index: Any) -> None:
    versions = {}
    for i in range(DOCS):
        key = stack.key(f"workers/doc-{i}.md")
        body = f"# Worker test {i}\n\nParagraph {i} about ferry timetables and harbour fees.\n"
        versions[key] = stack.put(key, body.encode())
    stats = run_workers(stack.cfg, 2, batch_size=2, until_idle=4.0, max_seconds=180.0)
    assert stats.workers == 2
    # At least once: with this suite's 2 s visibility timeout, a message still being
    # handled by one worker (its cold start) can be handed to the other one too.
    assert stats.succeeded >= DOCS and stats.failed == 0
    assert stats.first_poll > 0 and stats.last_done >= stats.first_poll
    for key, version in versions.items():
        assert index.revision_states(make_doc_id(stack.bucket, key)).keys() == {version}
