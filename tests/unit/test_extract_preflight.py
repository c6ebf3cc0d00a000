"""The declared size of a table document, before it is read (extract/preflight.py)."""

from __future__ import annotations

from chunkwise.extract.preflight import (
    TableExtent,
    count_tags,
    delimited_extent,
    estimated_chunks,
    visible_sheets,
)

WORKBOOK = (
    b'<workbook><sheets><sheet name="Daten" sheetId="1" r:id="rId1"/>'
    b'<sheet name="Geheim" sheetId="2" state="hidden" r:id="rId2"/>'
    b'<sheet name="Ganz geheim" sheetId="3" state="veryHidden" r:id="rId3"/></sheets></workbook>'
)
RELS = (
    b'<Relationships><Relationship Id="rId1" Type="x/worksheet" Target="worksheets/sheet1.xml"/>'
    b'<Relationship Id="rId2" Type="x/worksheet" Target="/xl/worksheets/sheet2.xml"/>'
    b'<Relationship Id="rId3" Type="x/worksheet" Target="worksheets/sheet3.xml"/>'
    b"</Relationships>"
)


def test_only_visible_sheets_are_counted() -> None:
    assert visible_sheets(WORKBOOK, RELS) == [("Daten", "xl/worksheets/sheet1.xml")]


def test_tags_are_counted_across_block_boundaries() -> None:
    xml = b'<row r="1"><c r="A1"><v>1</v></c><c r="B1" t="inlineStr"><is><t>x</t></is></c></row>'
    whole = count_tags([xml * 3], (b"<row ", b"</v>", b"</is>"))
    for size in (1, 2, 3, 5, 7):
        blocks = [(xml * 3)[i : i + size] for i in range(0, len(xml) * 3, size)]
        assert count_tags(blocks, (b"<row ", b"</v>", b"</is>")) == whole == [3, 3, 3]


def test_a_csv_declares_its_lines_columns_and_text() -> None:
    data = b"Nr;Kunde;Ort;Betrag\r\n" + b"1;Kunde 1;Bonn;12,50\r\n" * 999
    extent = delimited_extent(data)
    assert (extent.rows, extent.columns, extent.chars) == (1001, 4, len(data))
    wide = delimited_extent("a\tb\tc\n1\t2\t3\n".encode("utf-16"))
    assert (wide.columns, wide.chars) == (3, 12)


def test_the_estimate_is_the_low_text_over_the_chunk_size() -> None:
    sheet = TableExtent(100_001, 10, 1_000_005, 6_000_030, "sheet 'Artikel'")
    assert estimated_chunks(sheet, 900) == 6_666  # the bench sheet makes 12,554


def test_a_damaged_sheet_part_leaves_the_verdict_to_extraction() -> None:
    """A member whose bytes do not match its CRC: no estimate (None), no crash; the
    extraction that follows refuses the file with its typed error."""
    import io
    import zipfile

    from chunkwise.extract import ExtractLimits
    from chunkwise.extract.preflight import table_extent

    sheet = b"<worksheet><sheetData>" + b'<row r="1"><c r="A1"><v>1</v></c></row>' * 50
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("[Content_Types].xml", b"<Types/>")
        zf.writestr("xl/workbook.xml", WORKBOOK)
        zf.writestr("xl/_rels/workbook.xml.rels", RELS)
        zf.writestr("xl/worksheets/sheet1.xml", sheet + b"</sheetData></worksheet>")
    data = bytearray(buf.getvalue())
    at = data.index(b'<row r="1"')
    data[at + 1] = ord("x")  # same size, another CRC
    assert table_extent(bytes(data), "a.xlsx", ExtractLimits()) is None
    intact = table_extent(buf.getvalue(), "a.xlsx", ExtractLimits())
    assert intact is not None and (intact.rows, intact.cells) == (50, 50)
