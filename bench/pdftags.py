"""Which producers' PDF tags can be trusted (#26 item 2): tags against layout, per PDF.

    .venv/bin/python -m bench.pdftags [--write] [PDF ...]

1. Makes its own documents with known headings: a DOCX (python-docx; English and
   German) with a title, headings of three levels (the third set at the body's size
   and weight, as many house styles do), a large pull quote in the body style, a
   table with a header row, a list, a running header and a page-number footer; then
   LibreOffice Writer exports it as tagged PDF, straight from the DOCX and through
   ODT (`UseTaggedPDF`), and once untagged as the control. Into .local/pdftags/,
   never committed. Without `soffice` this part is skipped with a message.
2. For each PDF (those, and any given on the command line, e.g. the wpdocs dev
   PDFs): the producer, whether it has a structure tree, the verdict chunkwise's
   soundness check gives (`ExtractionReport.structure`: coverage, heading lines,
   order), and, for the generated documents, heading recall and precision against
   the headings that were written, with the tags (chunkwise as it runs) and with
   the layout alone (`extract_pdf(..., structure=False)`), plus whether the running
   header or footer reaches the text.

`--write` stores bench/results/pdftags.md.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from chunkwise.extract import extract
from chunkwise.extract.limits import ExtractLimits
from chunkwise.extract.model import DocFormat, ExtractionReport, sha256_bytes
from chunkwise.extract.pdf import extract_pdf

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".local" / "pdftags"
RESULTS = ROOT / "bench" / "results" / "pdftags.md"

_FILLER = {
    "en": (
        "The service reads every document that is uploaded to the bucket, cuts it into"
        " chunks that keep their exact offsets and writes them to the search index, so"
        " that every answer can cite the page it came from. "
    ),
    "de": (
        "Der Dienst liest jedes Dokument, das in den Bucket geladen wird, zerlegt es in"
        " Abschnitte mit genauen Positionen und schreibt sie in den Suchindex, damit jede"
        " Antwort die Seite nennen kann, von der sie stammt. "
    ),
}
# (level, text): level 0 is the title
_HEADINGS = {
    "en": [
        (0, "Operating Manual"),
        (1, "Installation"),
        (2, "Requirements"),
        (3, "Supported operating systems"),
        (2, "Installing the package"),
        (1, "Configuration"),
        (2, "Index settings"),
        (3, "Shards and replicas"),
        (3, "Refresh interval"),
        (1, "Troubleshooting"),
    ],
    "de": [
        (0, "Betriebshandbuch"),
        (1, "Einrichtung"),
        (2, "Voraussetzungen"),
        (3, "Unterstützte Betriebssysteme"),
        (2, "Installation des Pakets"),
        (1, "Konfiguration"),
        (2, "Einstellungen des Index"),
        (3, "Shards und Replikate"),
        (3, "Aktualisierungsintervall"),
        (1, "Fehlersuche"),
    ],
}
_RUNNING = {"en": "Operating Manual - Example Ltd", "de": "Betriebshandbuch - Beispiel GmbH"}
_QUOTE = {"en": "Read this before you start", "de": "Bitte vor dem Start lesen"}


def make_docx(lang: str, path: Path) -> None:
    from docx import Document  # type: ignore[import-untyped]
    from docx.enum.text import WD_BREAK  # type: ignore[import-untyped]
    from docx.oxml import OxmlElement  # type: ignore[import-untyped]
    from docx.oxml.ns import qn  # type: ignore[import-untyped]
    from docx.shared import Pt  # type: ignore[import-untyped]

    doc = Document()
    doc.styles["Normal"].font.size = Pt(11)
    h3 = doc.styles["Heading 3"].font  # a house style: third level at the body's size
    h3.size, h3.bold, h3.italic = Pt(11), False, False
    section = doc.sections[0]
    section.header.paragraphs[0].text = _RUNNING[lang]
    footer = section.footer.paragraphs[0]
    run = footer.add_run()
    for kind, text in (("begin", None), (None, "PAGE"), ("end", None)):
        if kind:
            element = OxmlElement("w:fldChar")
            element.set(qn("w:fldCharType"), kind)
        else:
            element = OxmlElement("w:instrText")
            element.text = text
        run._r.append(element)
    for i, (level, text) in enumerate(_HEADINGS[lang]):
        doc.add_heading(text, level)
        for _ in range(3):
            doc.add_paragraph(_FILLER[lang] * 3)
        if i == 2:
            quote = doc.add_paragraph().add_run(_QUOTE[lang])
            quote.font.size = Pt(18)
        if i == 4:
            table = doc.add_table(rows=4, cols=3)
            table.style = "Table Grid"
            for r, row in enumerate(table.rows):
                for c, cell in enumerate(row.cells):
                    cell.text = ("Name", "Value", "Note")[c] if r == 0 else f"r{r}c{c}"
        if i == 6:
            for item in ("alpha", "beta", "gamma"):
                doc.add_paragraph(f"{item} {_FILLER[lang][:60]}", style="List Bullet")
        if i == 7:
            doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    doc.save(str(path))


def _soffice(args: list[str], outdir: Path, profile: Path) -> None:
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            *args,
            "--outdir",
            str(outdir),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )


def _pdf_filter(tagged: bool) -> str:
    options = {"UseTaggedPDF": {"type": "boolean", "value": "true" if tagged else "false"}}
    return "pdf:writer_pdf_Export:" + json.dumps(options, separators=(",", ":"))


@dataclass(frozen=True)
class Made:
    path: Path
    lang: str
    route: str  # "DOCX -> PDF (tagged)", ...


def make_all() -> list[Made]:
    if shutil.which("soffice") is None:
        print("[pdftags] soffice not found: no generated documents", file=sys.stderr)
        return []
    WORK.mkdir(parents=True, exist_ok=True)
    made: list[Made] = []
    with tempfile.TemporaryDirectory() as tmp:
        work, profile = Path(tmp), Path(tmp) / "profile"
        for lang in ("en", "de"):
            docx = work / f"manual-{lang}.docx"
            make_docx(lang, docx)
            for tagged in (True, False):
                _soffice(["--convert-to", _pdf_filter(tagged), str(docx)], work, profile)
                name = f"lo-docx-{lang}-{'tagged' if tagged else 'untagged'}.pdf"
                shutil.move(str(work / f"manual-{lang}.pdf"), WORK / name)
                route = f"DOCX -> PDF ({'tagged' if tagged else 'untagged'})"
                made.append(Made(WORK / name, lang, route))
            _soffice(["--convert-to", "odt", str(docx)], work, profile)
            _soffice(["--convert-to", _pdf_filter(True), str(work / f"manual-{lang}.odt")],
                     work, profile)  # fmt: skip
            name = f"lo-odt-{lang}-tagged.pdf"
            shutil.move(str(work / f"manual-{lang}.pdf"), WORK / name)
            made.append(Made(WORK / name, lang, "DOCX -> ODT -> PDF (tagged)"))
    return made


def _layout_only(data: bytes) -> str:
    report = ExtractionReport(
        format=DocFormat.PDF, source_bytes=len(data), source_sha256=sha256_bytes(data)
    )
    limits = ExtractLimits()
    deadline = time.monotonic() + limits.max_seconds
    return extract_pdf(data, report=report, limits=limits, ocr=None, deadline=deadline,
                       structure=False)  # fmt: skip


_HEADING_LINE = re.compile(r"^(#{1,6}) (.+)$")


def heading_lines(text: str) -> list[str]:
    return [
        m.group(2).strip()
        for line in text.splitlines()
        if (m := _HEADING_LINE.match(line)) and not line.startswith("## Page ")
    ]


def heading_scores(text: str, lang: str) -> tuple[int, int, int]:
    """(true headings found as headings, heading lines that are true headings, heading
    lines); a true heading counts when a heading line is its text."""
    truth = {t for _l, t in _HEADINGS[lang]}
    found = heading_lines(text)
    return len(truth & set(found)), sum(1 for h in found if h in truth), len(found)


def producer(path: Path) -> str:
    proc = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=False)
    fields = dict(
        (k.strip(), v.strip())
        for k, _s, v in (ln.partition(":") for ln in proc.stdout.splitlines())
    )
    return f"{fields.get('Producer', '?')} / {fields.get('Creator', '?')}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pdftags")
    parser.add_argument("pdfs", nargs="*", type=Path)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    rows = [
        "| document | route / producer | verdict (ExtractionReport.structure) | headings found,"
        " tags | precision, tags | headings found, layout | precision, layout |"
        " running header/footer in text, tags / layout |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for made in make_all():
        data = made.path.read_bytes()
        tagged = extract(data, filename=made.path.name)
        layout = _layout_only(data)
        n = len(_HEADINGS[made.lang])
        hit_t, ok_t, all_t = heading_scores(tagged.text, made.lang)
        hit_l, ok_l, all_l = heading_scores(layout, made.lang)
        run_t = _RUNNING[made.lang] in tagged.text
        run_l = _RUNNING[made.lang] in layout
        rows.append(
            f"| {made.path.name} | LibreOffice {made.route} | {tagged.report.structure} |"
            f" {hit_t}/{n} | {ok_t}/{all_t} | {hit_l}/{n} | {ok_l}/{all_l} |"
            f" {'yes' if run_t else 'no'} / {'yes' if run_l else 'no'} |"
        )
        print(rows[-1], flush=True)
    for path in args.pdfs:
        result = extract(path.read_bytes(), filename=path.name)
        rows.append(f"| {path.stem} | {producer(path)} | {result.report.structure} | | | | | |")
        print(rows[-1], flush=True)
    if args.write:
        RESULTS.write_text(
            "# Tagged PDFs: tags against layout, per producer\n\n"
            "`.venv/bin/python -m bench.pdftags --write PDF...` (bench/pdftags.py says"
            " what is measured).\n\n" + "\n".join(rows) + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
