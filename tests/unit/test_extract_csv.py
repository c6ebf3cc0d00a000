"""CSV / TSV: encodings, dialects, header rows, limits, and the chunks of a long price list."""

from __future__ import annotations

import random

import pytest

from chunkwise import chunk_text
from chunkwise.extract import DocFormat, EmptyDocument, ExtractLimits, LimitExceeded, extract
from chunkwise.extract.delimited import choose_delimiter
from chunkwise.extract.grids import looks_numeric
from chunkwise.models.counter import HFTokenCounter

GERMAN_EXPORT = (
    "Artikel;Bezeichnung;Preis;Hinweis\r\n"
    '1001;Kreiselpumpe;1.234,50 €;"Lieferung in\r\nzwei Teilen; bitte prüfen"\r\n'
    '1002;"Filter ""fein""";12,00 €;Größe M\r\n'
    "1003;Dichtung;0,85 €;\r\n"
)


def price_list(rows: int) -> bytes:
    rnd = random.Random(25)
    kinds = ("Pumpe", "Ventil", "Filter", "Dichtung")
    lines = ["Artikelnummer;Bezeichnung;Kategorie;Preis netto;Lieferzeit"]
    for i in range(rows):
        price = f"{rnd.randint(100, 99_999) / 100:.2f}".replace(".", ",")
        kind = kinds[i % 4]
        lines.append(f"A-{10_000 + i};{kind} Typ {i};{kind}n;{price} €;{i % 9} Tage")
    return ("\r\n".join(lines) + "\r\n").encode("cp1252")


def test_german_excel_export_in_cp1252_with_semicolons_and_multiline_cells() -> None:
    result = extract(GERMAN_EXPORT.encode("cp1252"), filename="preise.csv")
    assert result.report.format is DocFormat.CSV
    assert result.report.encoding == "cp1252"
    assert result.report.dialect is not None and "delimiter ';'" in result.report.dialect
    assert result.text.splitlines() == [
        "| Artikel | Bezeichnung | Preis | Hinweis |",
        "| --- | --- | --- | --- |",
        "| 1001 | Kreiselpumpe | 1.234,50 € | Lieferung in zwei Teilen; bitte prüfen |",
        '| 1002 | Filter "fein" | 12,00 € | Größe M |',
        "| 1003 | Dichtung | 0,85 € |  |",
    ]
    table = result.report.tables[0]
    assert (table.rows, table.columns, table.header_rows) == (3, 4, 1)
    assert result.text[table.start : table.end].startswith(table.header)
    assert result.text[table.end :] == "\n"


def test_excel_export_with_multiplication_and_diameter_signs_reads_as_a_table() -> None:
    """cp1252 with ×, Ø and „…“ (bench/formats' generated export): a ';' table, not refused."""
    export = (
        "Artikelnummer;Bezeichnung;Preis (€);Menge;Lieferdatum;Bemerkung\r\n"
        "A-1001;Schraube M4 × 20, verzinkt;0,12;500;03.01.2024;\r\n"
        "A-1002;Unterlegscheibe Ø 4,3;0,03;1.000;03.01.2024;Restposten\r\n"
        'B-2001;Kabelbinder schwarz;4,95;20;15.02.2024;"Lieferung\r\nnur werktags"\r\n'
        'C-3001;Lötzinn bleifrei;18,90;2;01.03.2024;"„Sn99Cu1“"\r\n'
    )
    result = extract(export.encode("cp1252"), filename="de-excel-export.csv")
    assert result.report.format is DocFormat.CSV
    assert result.report.encoding == "cp1252"
    assert result.report.dialect is not None and "delimiter ';'" in result.report.dialect
    lines = result.text.splitlines()
    header = "| Artikelnummer | Bezeichnung | Preis (€) | Menge | Lieferdatum | Bemerkung |"
    assert lines[0] == header
    assert "| A-1002 | Unterlegscheibe Ø 4,3 | 0,03 | 1.000 | 03.01.2024 | Restposten |" in lines
    row = "| B-2001 | Kabelbinder schwarz | 4,95 | 20 | 15.02.2024 | Lieferung nur werktags |"
    assert row in lines


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-8-sig"])
def test_unicode_exports_with_a_byte_order_mark(encoding: str) -> None:
    text = "Name\tStadt\tUmsatz\nÄnne\tKöln\t1.000\nJörg\tWien\t2.500\n"
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    result = extract(data, filename="umsatz.csv")
    assert result.report.encoding is not None and result.report.encoding.endswith("-bom")
    assert result.report.dialect is not None and "delimiter tab" in result.report.dialect
    assert "| Änne | Köln | 1.000 |" in result.text


def test_utf8_without_bom_and_comma_delimiter() -> None:
    result = extract(b"id,name,price\n1,Widget,9.99\n2,Gadget,19.50\n", filename="p.csv")
    assert result.report.encoding == "utf-8"
    assert result.text.startswith("| id | name | price |\n| --- | --- | --- |\n| 1 | Widget |")


def test_no_header_row_names_the_columns_and_says_so() -> None:
    result = extract(b"1;2,5;3\n4;5,5;6\n7;8,5;9\n", filename="werte.csv")
    assert result.text.startswith("| Column 1 | Column 2 | Column 3 |\n| --- | --- | --- |\n| 1 |")
    assert result.report.tables[0].header_rows == 0
    assert result.report.tables[0].rows == 3
    assert any("Column 1..n" in w for w in result.report.warnings)


def test_two_header_rows_become_one_line() -> None:
    data = "Artikel;Preis;;Lager\n;netto;brutto;\nA1;10,00;11,90;5\nA2;20,00;23,80;0\n"
    result = extract(data.encode(), filename="x.csv")
    assert result.text.splitlines()[0] == "| Artikel | Preis / netto | Preis / brutto | Lager |"
    assert result.report.tables[0].header_rows == 2 and result.report.tables[0].rows == 2


def test_title_row_becomes_the_caption_and_empty_columns_go() -> None:
    data = b"Preisliste 2024;;;;\n\nArtikel;Name;Preis;;\nA1;Pumpe;10;;\nA2;Filter;20;;\n"
    result = extract(data, filename="x.csv")
    assert result.text.startswith("**Preisliste 2024**\n\n| Artikel | Name | Preis |\n")
    assert result.report.tables[0].caption == "**Preisliste 2024**"
    assert result.report.tables[0].columns == 3


def test_pipes_and_backslashes_are_escaped_in_cells() -> None:
    result = extract(b"a,b\nx|y,C:\\temp\n", filename="x.csv")
    assert "| x\\|y | C:\\\\temp |" in result.text


def test_excel_sep_line_sets_the_delimiter() -> None:
    result = extract(b"sep=|\na|b\n1,5|2\n", filename="x.csv")
    assert result.text.startswith("| a | b |")
    assert result.report.dialect is not None and "sep= line" in result.report.dialect


def test_semicolon_wins_over_decimal_commas() -> None:
    sample = 'Name;Wert;Anteil\n"Pumpe; groß";1,5;12,5 %\nFilter;2,25;3 %\nDichtung;10;1,0 %\n'
    assert choose_delimiter(sample)[0] == ";"


def test_tsv_is_tab_separated_by_its_type() -> None:
    result = extract(b"a\tb;c\n1\t2;3\n", filename="x.tsv")
    assert result.report.format is DocFormat.TSV
    assert result.text.startswith("| a | b;c |")


@pytest.mark.parametrize(
    "limits,limit",
    [
        (ExtractLimits(max_table_rows=100), "max_table_rows"),
        (ExtractLimits(max_table_columns=3), "max_table_columns"),
        (ExtractLimits(max_cells=300), "max_cells"),
    ],
)
def test_limits_refuse_instead_of_truncating(limits: ExtractLimits, limit: str) -> None:
    with pytest.raises(LimitExceeded) as e:
        extract(price_list(150), filename="p.csv", limits=limits)
    assert e.value.limit == limit


def test_an_unclosed_quote_is_a_cell_over_the_limit() -> None:
    data = b'a;b\n1;"never closed\n' + b"x;y\n" * 5000
    with pytest.raises(LimitExceeded) as e:
        extract(data, filename="p.csv", limits=ExtractLimits(max_cell_chars=1000))
    assert e.value.limit == "max_cell_chars" and "quote" in e.value.reason


def test_text_byte_limit_applies_before_decoding() -> None:
    with pytest.raises(LimitExceeded) as e:
        extract(price_list(200), filename="p.csv", limits=ExtractLimits(max_text_bytes=1000))
    assert e.value.limit == "max_text_bytes"


def test_only_empty_cells_is_empty() -> None:
    with pytest.raises(EmptyDocument):
        extract(b";;;\n;;\n", filename="p.csv")


@pytest.mark.parametrize(
    "cell,numeric",
    [("1.234,50 €", True), ("12,5 %", True), ("-3", True), ("31.12.2024", True),
     ("EUR 10", True), ("(1,000.00)", True), ("10:30", True), ("12 kg", True),
     ("Preis", False), ("A-1001", False), ("", False), ("Typ 4", False)],
)  # fmt: skip
def test_numeric_cells(cell: str, numeric: bool) -> None:
    assert looks_numeric(cell) is numeric


def test_2000_row_price_list_every_chunk_carries_the_header(counter: HFTokenCounter) -> None:
    """The failure issue #25 was filed for: rows after the first chunk lost their header."""
    result = extract(price_list(2000), filename="preisliste.csv")
    chunks = chunk_text(result.text, lang="auto", counter=counter)
    header = "| Artikelnummer | Bezeichnung | Kategorie | Preis netto | Lieferzeit |"
    assert len(chunks) > 20
    assert all(c.table_header.startswith(header) for c in chunks)
    rows = [line for c in chunks for line in c.body.splitlines() if line.startswith("| A-")]
    assert len(rows) == 2000 and len(set(rows)) == 2000
    assert all(c.text.startswith(header) for c in chunks)
    assert all(result.text[c.start : c.end] == c.body for c in chunks)


def test_decimal_commas_that_line_up_still_split_at_semicolons() -> None:
    assert choose_delimiter("1,5;2,5;3,5\n4,5;5,5;6,5\n7,5;8,5;9,5\n")[0] == ";"
    assert choose_delimiter("Wert;Anteil\n1,5;2,5\n4,5;5,5\n")[0] == ";"
    assert choose_delimiter("a,b,c\n1,2.5,3\n4,5.5,6\n")[0] == ","
    assert choose_delimiter("one column\nonly\n") == (",", "one column: no delimiter found")


def test_old_mac_line_ends() -> None:
    result = extract(b'Name;Wert\r"Pumpe\r\ngross";1\rFilter;2\r', filename="mac.csv")
    assert result.text.splitlines()[2:] == ["| Pumpe gross | 1 |", "| Filter | 2 |"]


# A time sheet whose cells are set apart by single spaces, "{}" for an empty cell (#25).
SPACE_SEPARATED = (
    "tag beginn ende pause dauer bemerkung\n"
    "2 8:00 16:30 0:30 8:00 {}\n"
    "3 8:15 12:00 0:00 3:45 Arzttermin\n"
    "4 {} {} {} 0:00 Feiertag\n"
    "5 7:50 17:10 1:00 8:20 {}\n"
)

# A report printed to a file: columns at fixed positions, cells with spaces, a blank cell.
ALIGNED = (
    "Station          Ort            Messwert   Einheit\n"
    "Bad Tölz         Oberbayern         12,5   mm\n"
    "Garmisch Nord    Oberbayern          3,0   mm\n"
    "Hof              Oberfranken                \n"
    "Neu Ulm          Schwaben           17,25  mm\n"
)


def test_cells_set_apart_by_spaces_are_columns() -> None:
    result = extract(SPACE_SEPARATED.encode(), filename="201605.csv")
    lines = result.text.split("\n")
    assert lines[0] == "| tag | beginn | ende | pause | dauer | bemerkung |"
    assert "| 3 | 8:15 | 12:00 | 0:00 | 3:45 | Arzttermin |" in lines
    assert "| 4 | {} | {} | {} | 0:00 | Feiertag |" in lines
    assert "spaces" in result.report.dialect


def test_columns_aligned_at_fixed_positions_keep_cells_with_spaces() -> None:
    result = extract(ALIGNED.encode(), filename="messwerte.tsv")
    lines = result.text.split("\n")
    assert lines[0] == "| Station | Ort | Messwert | Einheit |"
    assert "| Garmisch Nord | Oberbayern | 3,0 | mm |" in lines
    assert "| Hof | Oberfranken |  |  |" in lines
    assert "fixed-width" in result.report.dialect


def test_a_comma_file_with_spaces_in_its_cells_stays_comma_separated() -> None:
    text = "name,city,amount\nAnna Maria,New York,1.5\nBob,Los Angeles,2.5\nCarl Otto,San Jose,3\n"
    assert choose_delimiter(text)[0] == ","
    result = extract(text.encode(), filename="people.csv")
    assert "| Anna Maria | New York | 1.5 |" in result.text.split("\n")
