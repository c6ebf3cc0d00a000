"""The canonical-text grammar has one owner: what the writers produce, the readers read.

The chunker and the extraction report used to disagree on a separator row with
fewer than three dashes per cell (`|-|-|`): a table to the chunker, prose to the
report. GFM takes one dash per cell, and the chunker's reading is what becomes
chunks and citations, so the report now counts such a table too.
"""

from __future__ import annotations

from chunkwise import chunk_text
from chunkwise.canonical import (
    CELL_SPLIT,
    is_separator,
    is_slide_anchor,
    is_table_start,
    is_transcribed,
    page_anchor,
    page_anchors,
    page_number,
    slide_anchor,
    table_headers,
    transcribed_heading,
    unescape_cell,
)
from chunkwise.chunking.blocks import BlockType, parse_blocks
from chunkwise.chunking.rows import split_cells
from chunkwise.extract import extract
from chunkwise.extract.tables import render_gfm
from chunkwise.schema import ChunkKind

SHORT_SEPARATOR = "Prices:\n\n| Plan | Price |\n|-|-|\n| Starter | 6 USD |\n| Team | 12 USD |\n"


def test_a_one_dash_separator_is_a_table_to_the_chunker_and_the_report() -> None:
    blocks = parse_blocks(SHORT_SEPARATOR)
    assert [b.type for b in blocks] == [BlockType.PARAGRAPH, BlockType.TABLE]
    report = extract(SHORT_SEPARATOR.encode(), filename="prices.md").report
    assert [t.header for t in report.tables] == ["| Plan | Price |"]
    assert report.tables[0].columns == 2
    chunks = chunk_text(SHORT_SEPARATOR)
    assert any(c.kind is ChunkKind.TABLE for c in chunks)


def test_separator_rows() -> None:
    assert is_separator("|-|-|") and is_separator("| --- | :-: |") and is_separator("-|-")
    assert not is_separator("| a | b |") and not is_separator("|  |")
    assert is_table_start("a | b", "-|-")
    assert not is_table_start("no pipe here", "|---|")
    assert not is_table_start("| a | b |", "| c | d |")
    assert table_headers("| a |\n|---|\n| 1 |\n\nx | y\n") == ["| a |"]


def test_what_the_writers_write_the_readers_read() -> None:
    text = (
        f"{page_anchor(3)}\n\nText.\n\n{page_anchor(4)}\n\n{transcribed_heading(4)}\n\nScanned.\n"
    )
    # The transcribed heading names its page but is not an anchor itself.
    assert page_anchors(text) == [(0, 3), (text.index("## Page 4"), 4)]
    assert page_number("Page 12") == 12 and page_number("Seite 7") == 7
    assert page_number("Pages 12") is None
    assert is_transcribed(transcribed_heading(4)[4:]) and not is_transcribed("Page 4")
    chunks = chunk_text(text)
    assert {c.kind for c in chunks} == {ChunkKind.PROSE, ChunkKind.TRANSCRIBED}
    assert {(c.page_start, c.page_end) for c in chunks} == {(3, 3), (4, 4)}


def test_an_escaped_cell_pipe_does_not_split_and_reads_back() -> None:
    table = render_gfm(["command", "what"], [["a | b", "pipe a into b"]])
    header, separator, row = table.split("\n")
    assert is_table_start(header, separator)
    assert row == "| a \\| b | pipe a into b |"
    assert len(CELL_SPLIT.split(row.strip("|"))) == 2
    assert split_cells(row) == ["a | b", "pipe a into b"]
    assert unescape_cell("a \\| b") == "a | b"


def test_a_slide_anchor_is_a_page_anchor_that_ends_the_slide_before() -> None:
    """``## Slide N`` cites like ``## Page N`` (page_start = the slide), but the
    title of slide 1 must not go on into an untitled slide 2 the way a PDF
    section goes on past a page break."""
    text = (
        f"{slide_anchor(1)}\n\n### Agenda\n\n"
        + "Erstens, zweitens und drittens. " * 30
        + f"\n\n{slide_anchor(2)}\n\n"
        + "Ein Bild ohne Titel und mit viel Text. " * 30
        + f"\n\n{page_anchor(3)}\n\n"
        + "Noch mehr Text auf der dritten Seite. " * 30
        + "\n"
    )
    assert page_number("Slide 12") == 12 and page_number("Folie 4") == 4
    assert is_slide_anchor("Slide 2") and not is_slide_anchor("Page 2")
    assert not is_slide_anchor("Slides 2") and not is_slide_anchor("Slide 2: Agenda")
    assert [n for _, n in page_anchors(text)] == [1, 2, 3]
    chunks = chunk_text(text, lang="de")
    by_page = {c.page_start: c for c in chunks}
    assert list(by_page[1].heading_path) == ["Slide 1", "Agenda"]
    assert list(by_page[2].heading_path) == ["Slide 2"]  # not "Slide 2 > Agenda"
    assert list(by_page[3].heading_path) == ["Page 3"]
    assert all(c.page_start == c.page_end for c in chunks)


def test_a_title_only_slide_is_cited_by_the_chunk_that_holds_it_never_by_the_next() -> None:
    """A section slide (a title, no body) is its own slide's text (#25): the next
    slide's chunk opens with the next slide's anchor and cites only it; the chunk that
    holds the title (packed with a neighbour, as a runt is) cites the title's slide
    too. Before, the title rode with the next slide's content under that slide's path."""
    long = " ".join(f"Dichtung {i} wird nach {i} Jahren getauscht." for i in range(40))
    text = (
        f"{slide_anchor(1)}\n\n### Überblick\n\n{long}\n\n"
        f"{slide_anchor(2)}\n\n### Wartung\n\n"
        f"{slide_anchor(3)}\n\n### Dichtungen\n\n{long}\n"
    )
    chunks = chunk_text(text, lang="de")
    (holder,) = [c for c in chunks if "### Wartung" in c.body]
    assert holder.page_start is not None and holder.page_end is not None
    assert holder.page_start <= 2 <= holder.page_end
    (third,) = [c for c in chunks if c.heading_path[:1] == ["Slide 3"]]
    assert third.body.startswith(slide_anchor(3)) and third.page_start == 3
    for c in chunks:  # every slide whose anchor and title a body holds is cited
        held = [n for _, n in page_anchors(c.body)]
        assert c.page_start is not None and c.page_end is not None
        assert all(c.page_start <= n <= c.page_end for n in held)


def test_a_bare_page_anchor_before_the_next_page_is_not_a_page_of_text() -> None:
    """An empty PDF page leaves only its anchor: a chunk opening with it cites the
    page its text is on, not the empty one (a title is text of its page, an anchor
    alone is not)."""
    long = " ".join(f"Zeile {i} der ersten Seite nennt den Preis {i}." for i in range(60))
    text = f"{page_anchor(1)}\n\n{long}\n\n{page_anchor(2)}\n\n{page_anchor(3)}\n\n{long}\n"
    (opening,) = [c for c in chunk_text(text, lang="de") if c.body.startswith(page_anchor(2))]
    assert (opening.page_start, opening.page_end) == (3, 3)


def test_a_chunk_merged_across_slides_is_in_neither_slides_sections() -> None:
    text = (
        f"{slide_anchor(1)}\n\n### Agenda\n\nKurz.\n\n"
        f"{slide_anchor(2)}\n\n### Ziele\n\nAuch kurz.\n"
    )
    (chunk,) = chunk_text(text, lang="de")
    assert (chunk.page_start, chunk.page_end) == (1, 2)
    assert list(chunk.heading_path) == []
