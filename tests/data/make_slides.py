"""Generate the slide-deck and OpenDocument samples in tests/data/ (committed output).

    .venv/bin/python tests/data/make_slides.py [--libreoffice]

  vortrag_de.pptx              python-pptx: a German deck: a title slide, a table slide
                               with speaker notes, two grouped text boxes beside a bulleted
                               body, a hidden slide, an untitled closing slide with a picture
  vortrag_de.libreoffice.odp   vortrag_de.pptx saved as ODP by LibreOffice (real office
                               output: text boxes as draw:custom-shape, the hidden slide's
                               page style); only with --libreoffice, needs `soffice`
  wartung_de.libreoffice.odt   wartung_de.fodt saved as ODT by LibreOffice (headings, a
                               numbered and a bulleted list, a table with a header row);
                               only with --libreoffice

The deck's content and properties are fixed; the ZIP entries carry the time of
writing, so the bytes (not the content) change on every run.
"""

from __future__ import annotations

import argparse
import datetime
import io
import shutil
import subprocess
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parent
_FIXED = datetime.datetime(2025, 3, 14, 9, 0, 0)
# A 1x1 PNG: the picture on the closing slide (counted, not read).
_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4530000000049454e44ae426082"
)


def deck_bytes() -> bytes:
    from pptx import Presentation
    from pptx.util import Inches, Pt

    prs = Presentation()
    prs.core_properties.created = prs.core_properties.modified = _FIXED
    prs.core_properties.revision = 1
    title = prs.slides.add_slide(prs.slide_layouts[0])
    title.shapes.title.text = "Wartung der Kreiselpumpe KP-40"
    title.placeholders[1].text = "Schulung für das Servicepersonal, März 2025"

    figures = prs.slides.add_slide(prs.slide_layouts[5])
    figures.shapes.title.text = "Wartungsintervalle"
    rows = [
        ("Bauteil", "Intervall", "Aufwand"),
        ("Gleitringdichtung", "jährlich", "2,5 h"),
        ("Lager", "alle 2 Jahre", "4 h"),
        ("Laufrad", "alle 5 Jahre", "6 h"),
    ]
    table = figures.shapes.add_table(4, 3, Inches(1), Inches(2), Inches(8), Inches(2)).table
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    notes = figures.notes_slide.notes_text_frame
    notes.text = "Hinweis: Die Intervalle gelten für den Dauerbetrieb bei 20 °C."

    steps = prs.slides.add_slide(prs.slide_layouts[1])
    steps.shapes.title.text = "Vor der Wartung"
    body = steps.placeholders[1].text_frame
    body.text = "Pumpe vom Netz trennen"
    for text, level in (("Hauptschalter sichern", 1), ("Druck ablassen", 0)):
        paragraph = body.add_paragraph()
        paragraph.text, paragraph.level = text, level
    steps.placeholders[1].left, steps.placeholders[1].width = Inches(0.5), Inches(5)
    group = steps.shapes.add_group_shape()
    for i, text in enumerate(("Werkzeug: Drehmomentschlüssel", "Ersatzteil: Dichtungssatz DS-4")):
        box = group.shapes.add_textbox(Inches(6), Inches(2 + 1.5 * i), Inches(3.5), Inches(1))
        box.text_frame.text = text
        box.text_frame.paragraphs[0].runs[0].font.size = Pt(16)

    hidden = prs.slides.add_slide(prs.slide_layouts[1])
    hidden.shapes.title.text = "Interne Kalkulation"
    hidden.placeholders[1].text = "Stundensatz intern: 95 Euro"
    hidden._element.set("show", "0")  # python-pptx has no API for a hidden slide

    closing = prs.slides.add_slide(prs.slide_layouts[6])
    box = closing.shapes.add_textbox(Inches(1), Inches(3), Inches(8), Inches(1))
    box.text_frame.text = "Vielen Dank! Fragen bitte an den Kundendienst."
    closing.shapes.add_picture(io.BytesIO(_PNG), Inches(4), Inches(5), Inches(1), Inches(1))
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


def libreoffice_copy(source: Path, target: Path, fmt: str) -> None:
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise SystemExit("soffice not found: apt-get install libreoffice-impress-nogui")
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [soffice, "--headless", "--convert-to", fmt, "--outdir", out, str(source)],
            check=True,
            capture_output=True,
            timeout=300,
        )
        shutil.move(str(Path(out) / f"{source.stem}.{fmt}"), target)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--libreoffice", action="store_true", help="also write the ODF samples")
    args = ap.parse_args()
    (DATA / "vortrag_de.pptx").write_bytes(deck_bytes())
    if args.libreoffice:
        libreoffice_copy(DATA / "vortrag_de.pptx", DATA / "vortrag_de.libreoffice.odp", "odp")
        libreoffice_copy(DATA / "wartung_de.fodt", DATA / "wartung_de.libreoffice.odt", "odt")


if __name__ == "__main__":
    main()
