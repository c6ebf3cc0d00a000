"""#26's table classes on ReportLab output (bench/pdftables/generate.py builds the PDFs):
a header row stranded alone at a page foot, and ruled cells that wrap a path at a dot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chunkwise.extract import extract
from chunkwise.extract.pdf.blocks import join_lines

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from bench.pdftables import generate  # needs reportlab: imported after the skip


def _tables(text: str) -> list[list[str]]:
    return [t.strip().split("\n") for t in re.findall(r"((?:^\|.*\|\n?)+)", text, re.M)]


@pytest.mark.parametrize("style", ["zebra", "grid"])
def test_header_stranded_at_a_page_foot_heads_the_rows_of_the_next_page(
    tmp_path: Path, style: str
) -> None:
    pdf = tmp_path / "stranded.pdf"
    generate.stranded_header(pdf, generate.STYLES[style])
    r = extract(pdf.read_bytes(), filename=pdf.name)
    tables = _tables(r.text)
    assert len(tables) == 1
    header, _rule, *rows = tables[0]
    assert header == "| Package | Version | Size | Section |"
    assert rows == [
        f"| pkg{i:03d} | {i}.{i % 7} | {i * 13} kB | sec{i % 5} |" for i in range(1, 13)
    ]
    assert "Package Version Size Section" not in r.text  # out of the paragraph above
    assert r.text[r.report.tables[0].start : r.report.tables[0].end].startswith(header)


def test_a_repeated_header_is_not_taken_twice(tmp_path: Path) -> None:
    pdf = tmp_path / "repeat.pdf"
    generate.continued_repeat(pdf, generate.STYLES["zebra"])
    (table,) = _tables(extract(pdf.read_bytes(), filename=pdf.name).text)
    assert table.count("| Package | Version | Size | Section |") == 1
    assert len(table) == 2 + 120


def test_ruled_cell_path_wrapped_after_its_own_dot_is_one_token(tmp_path: Path) -> None:
    pdf = tmp_path / "paths.pdf"
    generate.wrapped_paths(pdf, generate.STYLES["grid"])
    text = extract(pdf.read_bytes(), filename=pdf.name).text
    assert "| VAR_3 | ~/.config/autostart/org.example-agent.desktop |" in text
    assert "| VAR_0 | /usr/lib/x86_64-linux-gnu/pkgconfig/ |" in text


def test_a_sentence_after_a_path_in_a_cell_keeps_its_space() -> None:
    assert (
        join_lines(["Edit /etc/hosts.", "Then restart."], in_cell=True)
        == "Edit /etc/hosts. Then restart."
    )
    assert join_lines(["see /usr/lib/foo.", "so"], in_cell=False) == "see /usr/lib/foo. so"
    assert join_lines(["/opt/app/lib.", "so.1"], in_cell=True) == "/opt/app/lib.so.1"


def test_narrow_ink_digit_does_not_split_a_word_on_a_pdfium_page(tmp_path: Path) -> None:
    # The plain table has no vector paths: PDFium reads the page. Helvetica's "1" inks
    # under half of its advance, which used to split "13 kB" and "pkg010" at the ink gap.
    pdf = tmp_path / "plain.pdf"
    generate.continued_no_repeat(pdf, generate.STYLES["plain"])
    text = extract(pdf.read_bytes(), filename=pdf.name).text
    first_page = text.split("## Page 2", 1)[0]
    for i in (1, 10, 11, 19):
        assert f"| pkg{i:03d} | {i}.{i % 7} | {i * 13} kB | sec{i % 5} |" in first_page
