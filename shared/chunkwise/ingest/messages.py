"""What a queue message says, and what became of it.

Messages on the ingest queue
----------------------------
- S3 event notifications (``Records[].s3``), also as delivered by emulators
  (no versionId / sequencer, keys with ``%20`` or ``+``), and in an SNS envelope;
- ``s3:TestEvent`` (skipped);
- EventBridge "Object Created" / "Object Deleted" events (``detail.object.key``);
- chunkwise's own ``{"chunkwise": "reconcile" | "rechunk", "bucket", "key",
  "generation"?}`` messages sent by the sweep and the re-chunk fan-out
  (`change_message`).

Each says only "key K in bucket B changed" (`ObjectChange`); the pipeline asks S3
what K is now. A body that is none of these is a `MessageError` for that message
alone (permanent: it goes to the DLQ after the queue's retries).

One queue batch: the ingest handler turns its records into `QueuedMessage`s;
`read_messages` reads them all, `ingest_messages` hands every change of the batch
to the pipeline at once (`chunkwise.ingest.pipeline.Pipeline.ingest_batch`, so they
share the revision switch's round trips) and files each result under its message.
No event-source library is needed here.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from chunkwise.errors import ChunkwiseError, PermanentError
from chunkwise.index.names import GENERATION_RE
from chunkwise.ingest.budget import DocumentBudget
from chunkwise.ingest.result import IngestResult

#: Marker of chunkwise's own queue messages.
MESSAGE_TAG = "chunkwise"
#: Bodies per SendMessageBatch (SQS's limit).
QUEUE_BATCH = 10

Kind = Literal["changed", "reconcile", "rechunk"]


@dataclass(frozen=True)
class ObjectChange:
    """ "Key K in bucket B changed" - all an event can be trusted to say."""

    bucket: str
    key: str
    kind: Kind = "changed"
    generation: str | None = None
    raw_key: str = ""  # as it appeared in the event (before unquote_plus)
    source: str = ""  # "s3", "eventbridge", "chunkwise"
    event_name: str = ""
    event_version: str | None = None  # informative only, never trusted


class MessageError(PermanentError):
    """A queue message that is not any event this pipeline understands."""


def decode_key(raw: str) -> str:
    """S3 notification keys are URL-encoded, '+' for space (see samdocs/architecture.md)."""
    return urllib.parse.unquote_plus(raw)


def parse_message(body: str | Mapping[str, Any]) -> list[ObjectChange]:
    """Every object change in one SQS message body; [] for test events.

    Raises MessageError for bodies that are none of the supported shapes.
    """
    if isinstance(body, str):
        try:
            doc: Any = json.loads(body)
        except json.JSONDecodeError as exc:
            # The position only: the body may carry document names or content.
            raise MessageError(f"message body is not JSON ({exc.msg} at {exc.pos})") from None
    else:
        doc = body
    if not isinstance(doc, Mapping):
        raise MessageError(f"message body is a JSON {type(doc).__name__}, not an object")
    if doc.get("Event") == "s3:TestEvent":
        return []
    # SNS envelope (S3 -> SNS -> SQS fan-out)
    if doc.get("Type") == "Notification" and isinstance(doc.get("Message"), str):
        return parse_message(doc["Message"])
    if MESSAGE_TAG in doc:
        return [_chunkwise_change(doc)]
    if "Records" in doc:
        records = doc["Records"] or []
        if not isinstance(records, list):
            raise MessageError("Records is not a list")
        return [_s3_record_change(rec) for rec in records]
    if doc.get("source") == "aws.s3" and isinstance(doc.get("detail"), Mapping):
        event_name = str(doc.get("detail-type", ""))
        return [_object_change(doc["detail"], "eventbridge", event_name, "version-id")]
    raise MessageError(f"unrecognised message with fields {sorted(map(str, doc))[:20]}")


def _text_at(doc: Mapping[str, Any], *path: str) -> str:
    """A non-empty string at ``path``; MessageError naming the path otherwise."""
    value: Any = doc
    for name in path:
        if not isinstance(value, Mapping) or name not in value:
            raise MessageError(f"message without {'.'.join(path)}")
        value = value[name]
    if not isinstance(value, str | int) or not str(value):
        raise MessageError(f"message field {'.'.join(path)} is not a non-empty string")
    return str(value)


def _optional_at(doc: Mapping[str, Any], *path: str) -> str | None:
    try:
        return _text_at(doc, *path)
    except MessageError:
        return None


def _chunkwise_change(doc: Mapping[str, Any]) -> ObjectChange:
    kind = doc[MESSAGE_TAG]
    if kind not in ("reconcile", "rechunk", "changed"):
        raise MessageError(f"unknown chunkwise message kind {str(kind)[:40]!r}")
    generation = doc.get("generation")
    if generation is not None and (
        not isinstance(generation, str) or not GENERATION_RE.match(generation)
    ):
        raise MessageError(
            "chunkwise message with an invalid generation (expected lowercase [a-z0-9_.])"
        )
    key = _text_at(doc, "key")
    return ObjectChange(
        bucket=_text_at(doc, "bucket"),
        key=key,
        kind=kind,
        generation=generation,
        raw_key=key,
        source="chunkwise",
        event_name=str(kind),
    )


def _s3_record_change(rec: Any) -> ObjectChange:
    s3 = rec.get("s3") if isinstance(rec, Mapping) else None
    if not isinstance(s3, Mapping):
        raise MessageError("record without s3 section")
    return _object_change(s3, "s3", str(rec.get("eventName", "")), "versionId")


def _object_change(
    where: Mapping[str, Any], source: str, event_name: str, version_field: str
) -> ObjectChange:
    """The change named by an event's ``bucket.name`` / ``object.key`` section: S3
    notifications and EventBridge events name the object alike, but spell the
    version field differently (``versionId`` / ``version-id``)."""
    raw = _text_at(where, "object", "key")
    return ObjectChange(
        bucket=_text_at(where, "bucket", "name"),
        key=decode_key(raw),
        raw_key=raw,
        source=source,
        event_name=event_name,
        event_version=_optional_at(where, "object", version_field),
    )


def change_message(
    bucket: str, key: str, kind: Kind = "reconcile", generation: str | None = None
) -> str:
    """A chunkwise queue message body (sweep and re-chunk fan-out)."""
    msg: dict[str, Any] = {MESSAGE_TAG: kind, "bucket": bucket, "key": key}
    if generation:
        msg["generation"] = generation
    return json.dumps(msg, ensure_ascii=False)


def iter_batches(items: Iterable[str], size: int = QUEUE_BATCH) -> Iterator[list[str]]:
    """Message bodies in batches of ``size`` (SQS sends at most 10 per call)."""
    batch: list[str] = []
    for it in items:
        batch.append(it)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


# --------------------------------------------------------------------------- one queue batch


@dataclass(frozen=True)
class QueuedMessage:
    message_id: str
    body: str | Mapping[str, Any]
    receive_count: int = 1


@dataclass
class MessageOutcome:
    """What one message led to: its changes and their results, or why it is unreadable."""

    changes: list[ObjectChange] = field(default_factory=list)
    results: list[IngestResult] = field(default_factory=list)
    malformed: MessageError | None = None

    @property
    def error(self) -> ChunkwiseError | None:
        """The error that fails the message (the first, if several changes failed)."""
        if self.malformed is not None:
            return self.malformed
        return next((r.error for r in self.results if r.error is not None), None)

    @property
    def test_event(self) -> bool:
        """S3's s3:TestEvent: a readable message with nothing to do."""
        return self.malformed is None and not self.changes


def read_messages(messages: Sequence[QueuedMessage]) -> dict[str, MessageOutcome]:
    """Each message's changes, or its MessageError; nothing is ingested yet."""
    outcomes: dict[str, MessageOutcome] = {}
    for message in messages:
        try:
            outcomes[message.message_id] = MessageOutcome(changes=parse_message(message.body))
        except MessageError as exc:
            outcomes[message.message_id] = MessageOutcome(malformed=exc)
    return outcomes


class BatchIngest(Protocol):
    """What `ingest_messages` needs of the pipeline (`Pipeline.ingest_batch`)."""

    def ingest_batch(
        self,
        changes: Sequence[ObjectChange],
        budget_for: Callable[[ObjectChange], DocumentBudget] | None = None,
    ) -> list[IngestResult]: ...


def ingest_messages(
    pipeline: BatchIngest,
    outcomes: Mapping[str, MessageOutcome],
    budget_for: Callable[[ObjectChange], DocumentBudget],
) -> None:
    """All changes of all readable messages through the pipeline together; the results
    are filled into the outcomes, in the order of each message's changes."""
    owners = [(mid, change) for mid, o in outcomes.items() for change in o.changes]
    results = pipeline.ingest_batch([change for _mid, change in owners], budget_for)
    for (mid, _change), result in zip(owners, results, strict=True):
        outcomes[mid].results.append(result)
