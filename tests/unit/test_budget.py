"""Per-document budgets: time from the invocation's remaining time, memory from its size."""

from __future__ import annotations

import pytest

from chunkwise.errors import PermanentError, TransientError
from chunkwise.extract import LimitExceeded
from chunkwise.ingest.budget import (
    MIB,
    BudgetPolicy,
    DeadlineRetry,
    DocumentBudget,
    current_rss_bytes,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_deadline_keeps_time_back_for_waiting_documents() -> None:
    clock = Clock()
    budget = DocumentBudget.for_invocation(60_000, 2048, waiting_documents=3, clock=clock)
    assert budget.seconds_left() == pytest.approx(60 - 10 - 3 * 5)
    budget.check("extract")
    clock.now += 34.9
    budget.check("embed")
    clock.now += 0.2
    with pytest.raises(LimitExceeded) as e:
        budget.check("embed")
    assert e.value.limit == "document_deadline" and "embed" in e.value.reason
    assert isinstance(e.value, PermanentError)


def test_a_document_starved_by_its_batch_mates_is_retried_not_failed_for_good() -> None:
    clock = Clock()
    budget = DocumentBudget.for_invocation(
        3_000, None, waiting_documents=9, clock=clock, policy=BudgetPolicy(reserve_seconds=1)
    )
    assert budget.seconds_left() == 0
    with pytest.raises(DeadlineRetry, match="document_deadline") as e:
        budget.check("fetch")
    assert isinstance(e.value, TransientError) and not isinstance(e.value, PermanentError)
    small = DocumentBudget.for_invocation(15_000, None, clock=clock)  # 5 s < a fair 20 s
    first = DocumentBudget.for_invocation(15_000, None, clock=clock, first_in_invocation=True)
    clock.now += 6
    with pytest.raises(DeadlineRetry):
        small.check("embed")
    with pytest.raises(LimitExceeded):  # nothing ran before it: its share was all there was
        first.check("embed")


def test_memory_ceiling_is_a_share_of_the_function_memory() -> None:
    rss = [100 * MIB]
    budget = DocumentBudget.for_invocation(60_000, 1000, clock=Clock(), rss=lambda: rss[0])
    assert budget.max_rss_bytes == int(1000 * MIB * 0.85)
    budget.check("chunk")
    rss[0] = 900 * MIB
    with pytest.raises(LimitExceeded) as e:
        budget.check("chunk")
    assert e.value.limit == "document_memory_bytes"


def test_unbounded_never_fails_and_rss_is_readable_here() -> None:
    DocumentBudget.unbounded().check("anything")
    rss = current_rss_bytes()
    assert rss is None or rss > 1 * MIB


def test_a_process_already_over_the_ceiling_is_not_the_documents_fault() -> None:
    from chunkwise.ingest.budget import MemoryRetry

    rss = [900 * MIB]  # what earlier documents left behind
    budget = DocumentBudget.for_invocation(60_000, 1000, clock=Clock(), rss=lambda: rss[0])
    with pytest.raises(MemoryRetry) as e:
        budget.check("fetch")
    assert isinstance(e.value, TransientError) and "before this document began" in str(e.value)


def test_a_step_expected_to_end_past_the_deadline_is_not_started() -> None:
    clock = Clock()
    budget = DocumentBudget.for_invocation(40_000, None, clock=clock)  # 30 s
    clock.now += 25
    budget.check("embed", needs_seconds=4.0)
    with pytest.raises(LimitExceeded) as e:
        budget.check("embed", needs_seconds=6.0)  # would end at 31 s
    assert e.value.limit == "document_deadline"
