"""UTF-8 byte offsets and percentiles: one definition each, used by every caller."""

from __future__ import annotations

from chunkwise import chunk_text
from chunkwise.stats import percentile, percentiles
from chunkwise.text.offsets import byte_span, utf8_len


def test_byte_spans_of_multibyte_and_astral_text() -> None:
    text = "Grüße 👩‍👩‍👧 und \U0001f1e9\U0001f1ea, dann Schluss."
    start = text.index("👩")
    end = text.index(" und")
    assert byte_span(text, start, end) == (len("Grüße ".encode()), len(text[:end].encode()))
    assert utf8_len("\ud800") == 3  # a lone surrogate, as surrogatepass writes it
    for c in chunk_text(text * 40):
        whole = (text * 40).encode()
        assert whole[c.byte_start : c.byte_end].decode() == c.body


def test_nearest_rank() -> None:
    assert percentile([], 50) == 0.0
    assert percentile([3, 1, 2], 50) == 2.0
    assert percentile(list(range(1, 21)), 95) == 19.0
    assert percentiles(list(range(1, 101))) == {"p1": 1.0, "p5": 5.0, "p50": 50.0, "p95": 95.0}
