"""#26 (c): a paragraph that runs on over a page break is one sentence in one chunk,
with the page's footnotes out of its way and every page cited exactly."""

from __future__ import annotations

from typing import Any

import pytest

from chunkwise import ChunkerConfig, chunk_text
from chunkwise.extract import extract
from chunkwise.models.counter import HFTokenCounter
from tests.chunk_invariants import assert_all
from tests.drawn_pdf import drawn_pdf

pytest.importorskip("reportlab")

PAGE_1 = [
    "Maintenance of the pump. Disconnect power before opening the cover and",
    "remove the four screws. Replace the seal of the housing when it leaks.",
    "The inlet filter of the pump collects the dirt of the water and it must be",
]
PAGE_2 = [
    "replaced every 500 hours by the operator, who notes the date in the log.",
    "Only genuine parts from the vendor keep the warranty of the pump valid.",
]
NOTE = "1 The log book is kept in the cabinet of the plant room."


def _pdf(last_line: str) -> bytes:
    def first(c: Any) -> None:
        c.setFont("Times-Roman", 11)
        for i, line in enumerate([*PAGE_1[:-1], last_line]):
            c.drawString(72, 700 - 14 * i, line)
        c.setFont("Times-Roman", 8)  # the page's footnote, below the text
        c.drawString(72, 90, NOTE)

    def second(c: Any) -> None:
        c.setFont("Times-Roman", 11)
        for i, line in enumerate(PAGE_2):
            c.drawString(72, 760 - 14 * i, line)

    return drawn_pdf(first, second)


def test_a_paragraph_run_on_over_a_page_break_is_one_chunk_citing_both_pages(
    counter: HFTokenCounter,
) -> None:
    text = extract(_pdf(PAGE_1[-1]), filename="runon.pdf").text
    # The footnote stays on its page (cited there), before the paragraph it would cut.
    assert text.index("## Page 1") < text.index(NOTE) < text.index("Maintenance of")
    assert "it must be\n\n## Page 2\n\nreplaced every" in text
    cfg = ChunkerConfig.build(max_chars=300, overlap_chars=0)
    chunks = chunk_text(text, lang="en", config=cfg)
    spanning = [c for c in chunks if "it must be" in c.body and "replaced every" in c.body]
    assert len(spanning) == 1
    assert (spanning[0].page_start, spanning[0].page_end) == (1, 2)
    note = next(c for c in chunks if NOTE in c.body)
    assert (note.page_start, note.page_end) == (1, 1)
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_a_paragraph_ended_at_the_page_foot_keeps_its_footnote_after_it() -> None:
    text = extract(_pdf(PAGE_1[-1] + " cleaned."), filename="ended.pdf").text
    assert text.index("must be cleaned.") < text.index(NOTE) < text.index("## Page 2")
