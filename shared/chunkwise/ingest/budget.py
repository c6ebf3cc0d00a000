"""What one document may still consume: wall-clock time and process memory.

One Lambda invocation ingests a batch of documents in one process. A document
that runs out the function's time or memory would take its batch-mates with it
(the invocation dies, every message is retried, good documents end in the DLQ,
and no log line says why). So each document gets a `DocumentBudget`: a deadline
derived from the invocation's remaining time, leaving a reserve for the
documents after it in the batch, and a ceiling on the process's resident
memory. The pipeline checks it between stages and between embedding batches;
a document over budget fails alone: with `LimitExceeded` (a `PermanentError`) if
it was given a fair share of time - it came first in its invocation, or it had
at least ``min_fair_seconds`` - and still ran out; with `DeadlineRetry` (a
`TransientError`: another invocation will have more time) if batch-mates before
it had left it less than that.

The memory check reads the current RSS (``/proc/self/statm``, Linux, as in
Lambda); it cannot stop one huge allocation, which is why every stage also has
its own size limits (bytes, inflated ZIP members, chunks, tokens) checked
before the expensive step.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from chunkwise.errors import TransientError
from chunkwise.extract.errors import LimitExceeded

MIB = 1024 * 1024


def current_rss_bytes() -> int | None:
    """Resident set size of this process now; None where /proc is not available."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            resident_pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return resident_pages * os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class BudgetPolicy:
    """How an invocation's time and memory are shared among its documents."""

    # Left at the end of the invocation for reporting the batch (never given out).
    reserve_seconds: float = 10.0
    # Kept back for each document still waiting in the batch after this one.
    per_waiting_document_seconds: float = 5.0
    # The RSS ceiling as a share of the function's memory; the rest is headroom for
    # the allocation in flight when the check runs.
    memory_share: float = 0.85
    # A document given at least this long that still runs out will never fit: permanent.
    # Given less (batch-mates used the time), it is retried in another invocation.
    min_fair_seconds: float = 20.0


class DeadlineRetry(TransientError):
    """The invocation had too little time left for this document: retry it elsewhere."""


class MemoryRetry(TransientError):
    """The process was over its memory ceiling before this document began (what earlier
    documents left behind): not this document's fault, retry it in a fresh process."""


@dataclass
class DocumentBudget:
    """A deadline (monotonic seconds) and an RSS ceiling (bytes) for one document;
    None = unbounded. ``check`` raises `LimitExceeded` naming the stage."""

    deadline: float | None = None
    max_rss_bytes: int | None = None
    granted_seconds: float | None = None  # what the document was given (None: unbounded)
    first_in_invocation: bool = False  # nothing ran before it: its share was all there was
    start_rss_bytes: int | None = None  # the process's RSS when the document began
    policy: BudgetPolicy = field(default_factory=BudgetPolicy)
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    rss: Callable[[], int | None] = field(default=current_rss_bytes, repr=False)

    @classmethod
    def unbounded(cls) -> DocumentBudget:
        return cls()

    @classmethod
    def for_invocation(
        cls,
        remaining_ms: int,
        memory_mb: int | None,
        *,
        waiting_documents: int = 0,
        first_in_invocation: bool = False,
        policy: BudgetPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
        rss: Callable[[], int | None] = current_rss_bytes,
    ) -> DocumentBudget:
        """The budget of the next document of a batch with ``waiting_documents``
        after it, given the invocation's remaining time and memory size."""
        pol = policy or BudgetPolicy()
        reserve = pol.reserve_seconds + waiting_documents * pol.per_waiting_document_seconds
        seconds = max(0.0, remaining_ms / 1000.0 - reserve)
        ceiling = int(memory_mb * MIB * pol.memory_share) if memory_mb else None
        return cls(
            start_rss_bytes=rss() if ceiling is not None else None,
            deadline=clock() + seconds,
            max_rss_bytes=ceiling,
            granted_seconds=seconds,
            first_in_invocation=first_in_invocation,
            policy=pol,
            clock=clock,
            rss=rss,
        )

    def seconds_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - self.clock()

    def check(self, stage: str, *, needs_seconds: float = 0.0) -> None:
        """Raise `LimitExceeded` if the document is over its time or memory budget, or
        if the next step, expected to take ``needs_seconds``, would take it over."""
        left = self.seconds_left()
        if left is not None and left <= needs_seconds:
            granted = self.granted_seconds
            if (
                granted is not None
                and granted < self.policy.min_fair_seconds
                and not self.first_in_invocation
            ):
                raise DeadlineRetry(
                    f"document_deadline: only {granted:.1f} s of the invocation were left for "
                    f"this document (a fair share is {self.policy.min_fair_seconds:.0f} s) "
                    f"at {stage}; retried in another invocation"
                )
            raise LimitExceeded(
                "document_deadline",
                0,
                round(max(0.0, needs_seconds - left), 1),
                f"past this document's share of the invocation's time during {stage} "
                "(seconds over)",
            )
        if self.max_rss_bytes is not None:
            rss = self.rss()
            if rss is not None and rss > self.max_rss_bytes:
                if self.start_rss_bytes is not None and self.start_rss_bytes > self.max_rss_bytes:
                    raise MemoryRetry(
                        f"document_memory_bytes: the process held {self.start_rss_bytes} bytes "
                        f"(ceiling {self.max_rss_bytes}) before this document began, at {stage}; "
                        "retried in another invocation"
                    )
                raise LimitExceeded(
                    "document_memory_bytes",
                    self.max_rss_bytes,
                    rss,
                    f"process memory over the ceiling during {stage}",
                )


class BatchBudgets:
    """The budgets of one invocation's batch, document by document: each keeps time
    back for the records still waiting behind it."""

    def __init__(self, records: int = 1) -> None:
        self.waiting = records
        self.started = 0

    def next(
        self,
        remaining_ms: int | None,
        memory_mb: int | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> DocumentBudget:
        """The next document's budget; unbounded without an invocation (``remaining_ms``
        None: the local runner, tests)."""
        self.waiting = max(0, self.waiting - 1)
        self.started += 1
        if remaining_ms is None:
            return DocumentBudget.unbounded()
        return DocumentBudget.for_invocation(
            remaining_ms,
            memory_mb,
            waiting_documents=self.waiting,
            first_in_invocation=self.started == 1,
            clock=clock,
        )
