"""GFM rendering and the multi-page stitching rules, without any PDF library."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chunkwise.extract.model import DocFormat, ExtractionReport
from chunkwise.extract.pdf.items import TableFragment
from chunkwise.extract.pdf.tables.stitch import append_fragment, can_continue, start_table
from chunkwise.extract.tables import caption_paragraph, render_gfm

cells = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)


@given(st.lists(st.lists(cells, min_size=1, max_size=5), min_size=1, max_size=8))
def test_gfm_block_shape(rows: list[list[str]]) -> None:
    out = render_gfm(rows[0], rows[1:])
    lines = out.split("\n")
    width = max(len(r) for r in rows)
    assert len(lines) == len(rows) + 1  # header + separator + data rows
    assert lines[1] == "| " + " | ".join(["---"] * width) + " |"
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines)
    assert "" not in lines  # no blank line inside a table block


def test_cells_are_single_line_and_pipes_escaped() -> None:
    assert render_gfm(["a|b", "x\ny"], [["1", "2"]]).split("\n")[0] == "| a\\|b | x y |"


def test_captions() -> None:
    assert caption_paragraph("Table 3: Prices") == "Table 3: Prices"
    assert caption_paragraph("Tabelle 1: Preise") == "Tabelle 1: Preise"
    assert caption_paragraph("Prices by region") == "**Prices by region**"


HEADER = ["Product", "Region", "Price"]
EDGES = [60.0, 160.0, 260.0, 360.0]


def frag(rows: list[list[str]], page: int, edges: list[float] = EDGES) -> TableFragment:
    return TableFragment(rows=rows, page=page, x_edges=edges)


def test_repeated_header_dropped_first_data_row_kept() -> None:
    t = start_table(frag([HEADER, ["A", "N", "1"]], 1))
    repeated = frag([HEADER, ["B", "S", "2"]], 2)
    data_first = frag([["C", "W", "3"], ["D", "E", "4"]], 3)
    assert can_continue(t, repeated)
    append_fragment(t, repeated)
    assert can_continue(t, data_first)
    append_fragment(t, data_first)
    assert t.header == HEADER
    assert [r[0] for r in t.rows] == ["A", "B", "C", "D"]
    assert (t.page_start, t.page_end, t.fragments, t.repeated_headers_dropped) == (1, 3, 3, 1)
    assert t.render().count("| Product | Region | Price |") == 1


def test_not_a_continuation() -> None:
    t = start_table(frag([HEADER, ["A", "N", "1"]], 1))
    assert not can_continue(t, frag([["x", "y"], ["1", "2"]], 2))  # other column count
    assert not can_continue(t, frag([["C", "W", "3"]], 2, [60.0, 100.0, 260.0, 360.0]))
    assert not can_continue(t, frag([["C", "W", "3"]], 3))  # not the next page


def test_stitch_only_last_block_to_first_block() -> None:
    from chunkwise.extract.pdf.items import Item, PageContent
    from chunkwise.extract.pdf.tables.stitch import stitch_tables as _stitch

    def table_item(rows: list[list[str]], page: int) -> Item:
        return Item("table", 100.0, 700.0, table=frag(rows, page))

    para = Item("para", 750.0, 760.0, text="After the table.")
    pages = [
        PageContent(1, [table_item([HEADER, ["A", "N", "1"]], 1), para], True, False),
        PageContent(2, [table_item([["B", "S", "2"]], 2)], True, False),
        PageContent(3, [table_item([["C", "W", "3"]], 3)], True, False),
    ]
    report = ExtractionReport(format=DocFormat.PDF, source_bytes=0, source_sha256="")
    tables = _stitch(pages, report)
    # page 1's table is followed by a paragraph: page 2 starts a new table...
    # ...whose first row becomes its header, and page 3 continues it.
    assert len(tables) == 2
    assert report.tables_found == 3 and report.tables_stitched == 1
    second = next(t for t in tables.values() if t.page_start == 2)
    assert (second.page_end, second.fragments) == (3, 2)


def test_prose_that_looks_like_markdown_is_escaped() -> None:
    from chunkwise.canonical import escape_paragraph
    from chunkwise.extract import extract

    assert escape_paragraph("# not a heading") == "\\# not a heading"
    assert escape_paragraph("```python") == "\\```python"
    assert escape_paragraph("| a | b") == "\\| a | b"
    assert escape_paragraph("#hashtag and -5 degrees") == "#hashtag and -5 degrees"
    page = b"<html><body><h1>T</h1><p># 1 priority</p><p>```</p><p>after</p></body></html>"
    assert extract(page).text == "# T\n\n\\# 1 priority\n\n\\```\n\nafter\n"
