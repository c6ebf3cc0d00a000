"""Extraction + the chunker: every table fragment carries its (stitched) header."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkwise import chunk_text
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
    # Stronger: any chunk holding a data row of a table carries that table's header.
    for t in r.report.tables:
        rows = r.text[t.start : t.end].split("\n")[2:]
        for c in chunks:
            if any(row in c.body.split("\n") for row in rows):
                assert c.table_header.split("\n", 1)[0] == t.header, (name, c.chunk_index)


@pytest.mark.parametrize("name", [s for s, _ in SAMPLES if "catalog" in s or "katalog" in s])
def test_three_page_table_chunks_never_use_a_data_row_as_header(name: str) -> None:
    r = extract((DATA / name).read_bytes(), filename=name)
    (table,) = r.report.tables
    chunks = chunk_text(r.text, lang="de" if "_de_" in name else "en")
    fragments = [c for c in chunks if c.table_header]
    assert len(fragments) >= 3  # 84 rows do not fit one chunk
    assert {c.table_header.split("\n", 1)[0] for c in fragments} == {table.header}
