"""boto3 adapter of the queue port: the ingest queue (SendMessageBatch, 10 per call)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chunkwise.adapters.boto import boto_client, boto_errors, classify
from chunkwise.errors import TransientError
from chunkwise.ingest.messages import iter_batches

_BATCH = 10  # SQS's limit per SendMessageBatch


class SqsQueue:
    """QueuePort over SQS SendMessageBatch (failed entries raise)."""

    def __init__(self, queue_url: str, client: Any | None = None) -> None:
        self.queue_url = queue_url
        self.client = boto_client("sqs", client)

    def send_batch(self, bodies: Sequence[str]) -> None:
        for batch in iter_batches(bodies, _BATCH):
            entries = [{"Id": str(i), "MessageBody": b} for i, b in enumerate(batch)]
            try:
                resp = self.client.send_message_batch(QueueUrl=self.queue_url, Entries=entries)
            except boto_errors() as exc:
                raise classify(f"sqs send {self.queue_url}", exc) from exc
            failed = resp.get("Failed") or []
            if failed:
                raise TransientError(f"sqs send: {len(failed)} of {len(batch)} failed: {failed[0]}")
