"""Property: whatever happens to the events (duplicated, reordered, dropped), processing
the surviving ones and then one reconcile sweep leaves exactly S3's current versions
live - through the real parser, pipeline and sweep, with fakes behind the ports."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkwise.index.names import make_doc_id
from chunkwise.ingest.maintenance import sweep
from chunkwise.ingest.messages import parse_message
from tests.fakes.pipeline import BUCKET, FakeLiveSet, make_rig

KEYS = ["incoming/a.md", "incoming/Übersicht März.md", "incoming/x+y z.md"]

op = st.tuples(st.sampled_from(["put", "delete"]), st.sampled_from(KEYS))


def s3_event(key: str, name: str) -> str:
    from urllib.parse import quote_plus

    return json.dumps(
        {
            "Records": [
                {
                    "eventName": name,
                    "s3": {"bucket": {"name": BUCKET}, "object": {"key": quote_plus(key)}},
                }
            ]
        }
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ops=st.lists(op, min_size=1, max_size=12),
    data=st.data(),
)
def test_events_in_any_order_then_sweep_converge(
    counter: object, ops: list, data: st.DataObject
) -> None:
    rig = make_rig(counter)
    events: list[str] = []
    for i, (kind, key) in enumerate(ops):
        if kind == "put":
            rig.store.put(key, f"# Doc\n\nVersion {i} of {key}.\n".encode())
            events.append(s3_event(key, "ObjectCreated:Put"))
        else:
            rig.store.delete(key)
            events.append(s3_event(key, "ObjectRemoved:DeleteMarkerCreated"))
    # duplicate some, drop some, shuffle
    dup = data.draw(st.lists(st.sampled_from(events), max_size=4))
    kept = data.draw(st.lists(st.booleans(), min_size=len(events), max_size=len(events)))
    delivered = data.draw(
        st.permutations([e for e, k in zip(events, kept, strict=True) if k] + dup)
    )
    for body in delivered:
        for change in parse_message(body):
            rig.pipeline.ingest(change)
    keys = {make_doc_id(BUCKET, k): k for k in KEYS}
    sweep(rig.pipeline.config, rig.store, FakeLiveSet(rig.index, keys), pipeline=rig.pipeline)
    for key in KEYS:
        current = rig.store.head_current(key)
        live = rig.index.live(make_doc_id(BUCKET, key))
        assert live == ({current.version_id} if current else set()), (key, live, current)
