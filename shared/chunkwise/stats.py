"""Nearest-rank percentiles: the chunking report, the ingest metrics and the evaluation
use the same definition (the smallest value with at least p % of the values at or
below it; no interpolation, so a reported value is always one that occurred)."""

from __future__ import annotations

from collections.abc import Sequence

REPORTED = (1, 5, 50, 95)  # chunk-length percentiles: the low ones show runts


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-p * len(ordered) // 100))
    return float(ordered[min(int(rank), len(ordered)) - 1])


def percentiles(values: Sequence[float], ps: Sequence[int] = REPORTED) -> dict[str, float]:
    """``{"p1": ..., "p5": ..., ...}``; empty for no values."""
    if not values:
        return {}
    return {f"p{p}": percentile(values, p) for p in ps}
