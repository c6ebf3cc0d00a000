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


# ODS and XLS are sized before they are read, as XLSX is (#25).


def test_an_ods_declares_its_repeated_rows_and_cells_and_not_its_hidden_tables() -> None:
    from chunkwise.extract import ExtractLimits
    from chunkwise.extract.preflight import table_extent
    from tests.odf_files import odf

    cell = (
        "<table:table-cell office:value-type='float' office:value='1'>"
        "<text:p>1</text:p></table:table-cell>"
    )
    repeated = (
        "<table:table-cell office:value-type='string' table:number-columns-repeated='4'>"
        "<text:p>x</text:p></table:table-cell>"
    )
    rows = (
        f"<table:table-row table:number-rows-repeated='100000'>{cell}{repeated}</table:table-row>"
    )
    empty_tail = (
        "<table:table-row table:number-rows-repeated='1048570'>"
        "<table:table-cell table:number-columns-repeated='16384'/></table:table-row>"
    )
    hidden_style = (
        '<style:style style:name="ta2" style:family="table"><style:table-properties '
        'table:display="false"/></style:style>'
    )
    body = (
        f"<table:table table:name='Daten'>{rows}{empty_tail}</table:table>"
        f"<table:table table:name='Geheim' table:style-name='ta2'>{rows}</table:table>"
    )
    data = odf("spreadsheet", body, automatic=hidden_style)
    extent = table_extent(data, "gross.ods", ExtractLimits())
    assert extent is not None
    assert (extent.rows, extent.cells, extent.columns) == (100_000, 500_000, 5)
    assert "Daten" in extent.basis


def test_an_xls_declares_the_cells_of_its_visible_sheets() -> None:
    from pathlib import Path

    import xlrd

    from chunkwise.extract import ExtractLimits
    from chunkwise.extract.preflight import table_extent

    path = Path(__file__).resolve().parents[1] / "data" / "preise_de.libreoffice.xls"
    extent = table_extent(path.read_bytes(), path.name, ExtractLimits())
    book = xlrd.open_workbook(str(path))
    visible = [s for s in book.sheets() if s.visibility == 0]
    cells = sum(
        1 for s in visible for r in range(s.nrows) for c in range(s.ncols)
        if s.cell_type(r, c) not in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK)
    )  # fmt: skip
    assert extent is not None and extent.cells == cells
    assert extent.rows <= max(s.nrows for s in visible)


def test_a_damaged_ods_or_xls_declares_nothing() -> None:
    from chunkwise.extract import ExtractLimits
    from chunkwise.extract.preflight import table_extent

    assert (
        table_extent(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600, "x.xls", ExtractLimits())
        is None
    )
