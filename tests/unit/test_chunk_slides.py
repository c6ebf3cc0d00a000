"""A deck's slides in the chunker: a title-only slide is its own slide's text (#25)."""

from __future__ import annotations

from chunkwise import ChunkerConfig, chunk_text
from chunkwise.chunking.blocks import parse_blocks
from chunkwise.chunking.context import Document
from chunkwise.chunking.languages import LanguageRuns
from chunkwise.chunking.model import ChunkingReport
from chunkwise.chunking.sections import plan_blocks
from chunkwise.chunking.sizing import CharCounter

BODY = " ".join(f"Ducks were counted in pond {i} of the county this year." for i in range(18))

DECK = f"""## Slide 1

### Results

{BODY}

## Slide 2

### Screenshots of our map library

## Slide 3

### Next steps

{BODY}
"""


def _plans(text: str):  # type: ignore[no-untyped-def]
    blocks = parse_blocks(text)
    doc = Document(
        text, ChunkerConfig(), CharCounter(512), ChunkingReport(), LanguageRuns.single("en")
    )
    return plan_blocks(doc, blocks)


def test_a_title_only_slide_is_a_plan_of_its_own_slide() -> None:
    plans = _plans(DECK)
    alone = [p for p in plans if "Screenshots of our map library" in DECK[p.start : p.block.end]]
    assert len(alone) == 1
    assert alone[0].section.path == ("Slide 2", "Screenshots of our map library")
    assert alone[0].section.page == 2
    nxt = [p for p in plans if p.section.path[:1] == ("Slide 3",)]
    assert nxt and DECK[nxt[0].start :].startswith("## Slide 3")
    assert all(p.lead_page is None for p in nxt)


def test_the_next_slide_is_not_credited_with_a_title_only_slide() -> None:
    chunks = chunk_text(DECK, lang="en")
    for c in chunks:
        if c.heading_path[:1] == ["Slide 3"]:
            assert "Screenshots of our map library" not in c.body
            assert c.page_start == 3
    holder = [c for c in chunks if "### Screenshots of our map library" in c.body]
    assert len(holder) == 1 and holder[0].page_start <= 2 <= holder[0].page_end


def test_a_pdf_page_anchor_still_carries_its_heading_to_the_text_after_it() -> None:
    text = f"## Page 1\n\n### Introduction\n\n## Page 2\n\n{BODY}\n"
    plans = _plans(text)
    assert len(plans) == 1
    assert plans[0].section.path[-1] == "Introduction"
    assert "### Introduction" in text[plans[0].start : plans[0].block.start]
