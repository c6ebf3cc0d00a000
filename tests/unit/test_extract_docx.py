"""DOCX extraction on the generated samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkwise.extract import DocFormat, extract

pytest.importorskip("docx")

DATA = Path(__file__).resolve().parents[1] / "data"

EXPECTED = {
    "pricing_en.docx": [
        "# Pricing and Features\n",
        "\n## Plans and prices\n\nTable 1: Plans and prices\n\n"
        "| Plan | Price per user | Storage | Support |\n| --- | --- | --- | --- |\n"
        "| Free | 0 USD | 5 GB | Community forum |\n",
        "| Enterprise | 45 USD | Unlimited | Dedicated manager, 1 hour |\n",
        "Table 2: Features by plan\n\n| Feature | Free | Team | Enterprise |\n",
        "| Single sign-on | No | Yes | Yes |\n",
        "\n## 1 Safety\n",
        "- Never run the pump dry.\n- Keep the air vents free.\n",
    ],
    "preise_de.docx": [
        "# Preise und Funktionen\n",
        "Tabelle 1: Tarife und Preise\n\n| Tarif | Preis pro Nutzer | Speicher | Support |\n",
        "| Kostenlos | 0 € | 5 GB | Community-Forum |\n",
        "| Aufbewahrung der Backups | 7 Tage | 30 Tage | 365 Tage |\n",
        "\n## 1 Sicherheit\n",
        "z. B. mit einem Messgerät prüfen.",
        "- Die Pumpe nie trocken laufen lassen.\n- Lüftungsschlitze freihalten.\n",
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_docx_samples(name: str) -> None:
    r = extract((DATA / name).read_bytes(), filename=name)
    assert r.report.format is DocFormat.DOCX
    for expected in EXPECTED[name]:
        assert expected in r.text, expected
    assert len(r.report.tables) == 2
    for t in r.report.tables:
        assert r.text[t.start : t.end].split("\n", 1)[0] == t.header
        assert t.caption.startswith(("Table", "Tabelle"))


def test_docx_caption_below_table_moves_above() -> None:
    import io

    import docx

    d = docx.Document()
    d.add_heading("Report", level=1)
    t = d.add_table(rows=2, cols=2)
    for (i, j), v in {(0, 0): "A", (0, 1): "B", (1, 0): "1", (1, 1): "2"}.items():
        t.rows[i].cells[j].text = v
    d.add_paragraph("Table 9: Below", style="Caption")
    d.add_paragraph("After.")
    buf = io.BytesIO()
    d.save(buf)
    r = extract(buf.getvalue(), filename="x.docx")
    assert r.text == "# Report\n\nTable 9: Below\n\n| A | B |\n| --- | --- |\n| 1 | 2 |\n\nAfter.\n"


def test_docx_sniffed_by_content_not_name() -> None:
    r = extract((DATA / "pricing_en.docx").read_bytes(), filename="upload.bin")
    assert r.report.format is DocFormat.DOCX
