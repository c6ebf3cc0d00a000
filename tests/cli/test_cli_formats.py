"""`chunkwise chunk FILE` / `chunkwise extract FILE` for the spreadsheet and CSV formats,
as a user runs them (a real process), and the formats named by --help."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chunkwise.extract.formats import REGISTRY
from tests.cli.test_cli_process import run

DATA = Path(__file__).resolve().parents[1] / "data"


SAMPLES = ["preisliste_de.csv", "preisliste_de.tsv", "preise_de.xlsx", "preise_de.libreoffice.xls"]


@pytest.mark.parametrize("name", SAMPLES)
def test_chunk_a_spreadsheet_or_csv(name: str, tmp_path: Path) -> None:
    source = DATA / name
    if name.endswith(".tsv"):  # the CSV sample with tabs: the .tsv reader
        source = tmp_path / name
        text = (DATA / "preisliste_de.csv").read_bytes().decode("cp1252").replace(";", "\t")
        source.write_bytes(text.encode("cp1252"))
    result = run("chunk", str(source))
    assert result.code == 0, result.err
    chunks = [json.loads(line) for line in result.out.splitlines()]
    assert chunks and all(c["table_header"] for c in chunks if c["kind"] == "table")
    assert any("Kreiselpumpe" in c["body"] for c in chunks)


def test_extract_help_names_the_registry_formats() -> None:
    result = run("extract", "--help")
    assert result.code == 0
    flat = " ".join(result.out.split())
    for spec in REGISTRY.read_formats():
        assert spec.name in flat


def test_legacy_doc_is_refused_with_the_conversion(tmp_path: Path) -> None:
    if shutil.which("soffice") is None:
        pytest.skip("needs soffice to write a real .doc")
    import subprocess

    subprocess.run(
        ["soffice", "--headless", "--convert-to", "doc", "--outdir", str(tmp_path),
         str(DATA / "preise_de.docx")],
        check=True, capture_output=True, timeout=180,
    )  # fmt: skip
    result = run("extract", str(tmp_path / "preise_de.doc"))
    assert result.code == 3
    assert "UnsupportedFormat" in result.err and "--convert-to docx" in result.err


def _generated(name: str, tmp_path: Path) -> Path:
    """An ODS and an EPUB (no office output of these is committed), written here."""
    from tests.odf_files import epub, odf, xhtml

    if name.endswith(".ods"):
        cells = "".join(
            f"<table:table-row><table:table-cell><text:p>{a}</text:p></table:table-cell>"
            f"<table:table-cell office:value-type='float'><text:p>{b}</text:p></table:table-cell>"
            "</table:table-row>"
            for a, b in (("Artikel", "Preis"), ("Kreiselpumpe", "1234"))
        )
        data = odf("spreadsheet", f"<table:table table:name='Preise'>{cells}</table:table>")
    else:
        body = "<h1>Kapitel 1</h1><p>Die Kreiselpumpe fördert Wasser.</p>"
        data = epub({"k1.xhtml": xhtml("Kapitel 1", body)}, ["k1.xhtml"])
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    "name", ["vortrag_de.pptx", "vortrag_de.libreoffice.odp", "wartung_de.libreoffice.odt",
             "preise.ods", "buch.epub"],
)  # fmt: skip
def test_chunk_a_deck_an_opendocument_or_an_epub(name: str, tmp_path: Path) -> None:
    source = DATA / name if (DATA / name).exists() else _generated(name, tmp_path)
    result = run("chunk", str(source))
    assert result.code == 0, result.err
    chunks = [json.loads(line) for line in result.out.splitlines()]
    text = run("extract", str(source)).out
    assert chunks and all(text[c["start"] : c["end"]] == c["body"] for c in chunks)
    assert any(word in text for word in ("Kreiselpumpe", "Wartung"))
    if name.startswith("vortrag"):
        assert {c["page_start"] for c in chunks} == {1} and chunks[-1]["page_end"] == 5
