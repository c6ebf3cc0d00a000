"""Extraction + the chunker: every table fragment carries its (stitched) header."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkwise import chunk_text
from chunkwise.chunking.rows import table_rows
from chunkwise.extract import extract

pytest.importorskip("pdfplumber")

DATA = Path(__file__).resolve().parents[1] / "data"

SAMPLES = [
    ("catalog_en_repeat.pdf", "en"),
    ("catalog_en_norepeat.pdf", "en"),
    ("katalog_de_repeat.pdf", "de"),
    ("katalog_de_norepeat.pdf", "de"),
    ("pricing_en.pdf", "en"),
    ("preise_de.pdf", "de"),
    ("pricing_en.docx", "en"),
    ("preise_de.docx", "de"),
    ("pricing_en.html", "en"),
    ("preise_de.html", "de"),
    ("merged_header_de.docx", "de"),
]


@pytest.mark.parametrize("name,lang", SAMPLES)
def test_every_table_chunk_has_the_table_header(name: str, lang: str) -> None:
    r = extract((DATA / name).read_bytes(), filename=name)
    assert r.report.tables
    chunks = chunk_text(r.text, lang=lang)
    assert chunks
    for c in chunks:
        assert r.text[c.start : c.end] == c.body
    table_chunks = [c for c in chunks if c.kind == "table"]
    assert table_chunks
    headers = {t.header for t in r.report.tables}
    for c in table_chunks:
        assert c.table_header, f"table chunk {c.chunk_index} without header"
        assert c.table_header.split("\n", 1)[0] in headers
    # Stronger: any chunk holding a data row of a table carries that table's header,
    # as its repeated header or, when the whole table fits, in its own body.
    for t in r.report.tables:
        rows = r.text[t.start : t.end].split("\n")[2:]
        for c in chunks:
            if any(row in c.body.split("\n") for row in rows):
                assert t.header in c.text.split("\n"), (name, c.chunk_index)
                if t.header not in c.body.split("\n"):
                    assert c.table_header.split("\n", 1)[0] == t.header, (name, c.chunk_index)


@pytest.mark.parametrize("name", [s for s, _ in SAMPLES if "catalog" in s or "katalog" in s])
def test_three_page_table_chunks_never_use_a_data_row_as_header(name: str) -> None:
    r = extract((DATA / name).read_bytes(), filename=name)
    (table,) = r.report.tables
    chunks = chunk_text(r.text, lang="de" if "_de_" in name else "en")
    fragments = [c for c in chunks if c.table_header]
    assert len(fragments) >= 3  # 84 rows do not fit one chunk
    assert {c.table_header.split("\n", 1)[0] for c in fragments} == {table.header}


def test_docx_table_fragments_carry_both_header_rows_and_every_row_reads_alone() -> None:
    """Two header rows (w:tblHeader) and merged cells, over several chunks."""
    name = "merged_header_de.docx"
    r = extract((DATA / name).read_bytes(), filename=name)
    parts = r.report.tables[1]
    chunks = chunk_text(r.text, lang="de")
    fragments = [c for c in chunks if c.end > parts.start and c.start < parts.end]
    assert len(fragments) >= 2  # 30 rows do not fit one chunk
    named_rows: list[str] = []
    for c in fragments:
        assert r.text[c.start : c.end] == c.body
        header = c.table_header.split("\n", 1)[0]
        # both header rows: the group ("Lieferzeit") and its columns ("ab Lager")
        assert header == parts.header
        assert "Lieferzeit / ab Lager" in header and "Lieferzeit / auf Bestellung" in header
        assert c.kind == "table"
        named_rows += [row for row in table_rows(c.body, c.table_header) if "Tarif" not in row]
    assert len(named_rows) == parts.rows
    for row in named_rows:
        # every row names its category (merged down the first column) and both
        # delivery times (one merged cell over two columns where they are equal)
        fields = dict(field.split(": ", 1) for field in row.split("; "))
        assert list(fields) == [
            "Kategorie",
            "Artikel",
            "Artikelnummer",
            "Lieferzeit / ab Lager",
            "Lieferzeit / auf Bestellung",
            "Preis (€)",
        ], row
        assert all(fields.values()), row
    assert (
        "Kategorie: Pumpen; Artikel: Tauchpumpe TP-80; Artikelnummer: 10-4480; "
        "Lieferzeit / ab Lager: auf Anfrage; Lieferzeit / auf Bestellung: auf Anfrage; "
        "Preis (€): 389,00"
    ) in named_rows
    assert any(
        row.startswith("Kategorie: Service; Artikel: Schulung halbtags") for row in named_rows
    )
