"""One queue batch through the pipeline: messages in, one outcome per message out.

The ingest handler hands every message of its SQS batch here at once, so that all
their object changes share the revision switch's round trips (`Pipeline.ingest_batch`);
what comes back says, per message, what became of each of its changes, or why the
message itself could not be read. No event-source library is needed here: the
handler turns its records into `QueuedMessage`s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chunkwise.errors import ChunkwiseError
from chunkwise.ingest.budget import DocumentBudget
from chunkwise.ingest.pipeline import IngestResult, MessageError, ObjectChange, parse_message

if TYPE_CHECKING:
    from chunkwise.ingest.pipeline import Pipeline


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


def ingest_messages(
    pipeline: Pipeline,
    outcomes: Mapping[str, MessageOutcome],
    budget_for: Callable[[ObjectChange], DocumentBudget],
) -> None:
    """All changes of all readable messages through the pipeline together; the results
    are filled into the outcomes, in the order of each message's changes."""
    owners = [(mid, change) for mid, o in outcomes.items() for change in o.changes]
    results = pipeline.ingest_batch([change for _mid, change in owners], budget_for)
    for (mid, _change), result in zip(owners, results, strict=True):
        outcomes[mid].results.append(result)
