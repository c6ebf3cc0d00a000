"""PPTX: one section per slide with its Slide N anchor, reading order, lists, tables
with merged cells, groups, notes, hidden slides, counted pictures, shapes that fail."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chunkwise import chunk_text
from chunkwise.extract import (
    CorruptDocument,
    DocFormat,
    EmptyDocument,
    ExtractLimits,
    LimitExceeded,
    extract,
)

pptx = pytest.importorskip("pptx")
from pptx.util import Inches  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"
TITLE_ONLY, TITLE_AND_CONTENT, BLANK = 5, 1, 6
# A 1x1 PNG.
_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4530000000049454e44ae426082"
)


def deck(build: Callable[[Any], None]) -> bytes:
    prs = pptx.Presentation()
    build(prs)
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


def textbox(slide: Any, text: str, left: float, top: float, width: float = 3.0) -> Any:
    box = slide.shapes.add_textbox(Inches(left), Inches(top), Inches(width), Inches(0.8))
    box.text_frame.text = text
    return box


def test_each_slide_is_a_section_with_its_anchor_and_title() -> None:
    def build(prs: Any) -> None:
        for title in ("Einleitung", "Ergebnisse"):
            slide = prs.slides.add_slide(prs.slide_layouts[TITLE_AND_CONTENT])
            slide.shapes.title.text = title
            slide.placeholders[1].text = f"Text zu {title}"

    result = extract(deck(build), filename="d.pptx")
    assert result.report.format is DocFormat.PPTX
    assert result.text == (
        "## Slide 1\n\n### Einleitung\n\n- Text zu Einleitung\n\n"
        "## Slide 2\n\n### Ergebnisse\n\n- Text zu Ergebnisse\n"
    )
    assert result.report.pages == 2
    assert [(s.number, s.title, s.read) for s in result.report.slides] == [
        (1, "Einleitung", True),
        (2, "Ergebnisse", True),
    ]
    assert "python-pptx" in result.report.libraries


def test_chunks_cite_the_slide_as_their_page() -> None:
    def build(prs: Any) -> None:
        for n in range(1, 4):
            slide = prs.slides.add_slide(prs.slide_layouts[TITLE_AND_CONTENT])
            slide.shapes.title.text = f"Kapitel {n}"
            slide.placeholders[1].text = (f"Absatz {n} über die Wartung der Pumpe. " * 40).strip()

    text = extract(deck(build), filename="d.pptx").text
    chunks = chunk_text(text, lang="de")
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.body
        assert chunk.page_start == chunk.page_end
        assert list(chunk.heading_path) == [
            f"Slide {chunk.page_start}",
            f"Kapitel {chunk.page_start}",
        ]
    assert {c.page_start for c in chunks} == {1, 2, 3}


def test_text_frames_in_reading_order_title_first() -> None:
    def build(prs: Any) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[BLANK])
        textbox(slide, "unten", 1, 5)
        textbox(slide, "oben rechts", 6, 1.1)  # a little lower than its neighbour: same row
        textbox(slide, "oben links", 1, 1)
        title = slide.shapes.add_textbox(Inches(1), Inches(6.5), Inches(8), Inches(1))
        title.text_frame.text = "kein Titel: nur ein Textfeld"

    lines = [ln for ln in extract(deck(build), filename="d.pptx").text.split("\n") if ln]
    assert lines == [
        "## Slide 1",
        "oben links",
        "oben rechts",
        "unten",
        "kein Titel: nur ein Textfeld",
    ]


def test_bullets_numbers_and_levels() -> None:
    from pptx.oxml.ns import qn

    def build(prs: Any) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_AND_CONTENT])
        slide.shapes.title.text = "Liste"
        body = slide.placeholders[1].text_frame
        body.text = "Punkt A"
        sub = body.add_paragraph()
        sub.text, sub.level = "Unterpunkt A1", 1
        plain = body.add_paragraph()
        plain.text = "Kein Aufzählungszeichen"
        plain._p.get_or_add_pPr().append(plain._p.makeelement(qn("a:buNone"), {}))
        box = textbox(slide, "Erstens", 1, 6)
        second = box.text_frame.add_paragraph()
        second.text = "Zweitens"
        for paragraph in box.text_frame.paragraphs:
            ppr = paragraph._p.get_or_add_pPr()
            ppr.append(ppr.makeelement(qn("a:buAutoNum"), {"type": "arabicPeriod"}))

    text = extract(deck(build), filename="d.pptx").text
    assert (
        "- Punkt A\n  - Unterpunkt A1\n\nKein Aufzählungszeichen\n\n1. Erstens\n2. Zweitens" in text
    )


def test_table_with_merged_cells_and_a_grouping_header_row() -> None:
    def build(prs: Any) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
        slide.shapes.title.text = "Preise"
        shape = slide.shapes.add_table(4, 3, Inches(1), Inches(2), Inches(6), Inches(2))
        table = shape.table
        cells = [["Modell", "Preis", ""], ["", "netto", "brutto"], ["KP-40", "100", "119"],
                 ["", "200", "238"]]  # fmt: skip
        for r, row in enumerate(cells):
            for c, value in enumerate(row):
                table.cell(r, c).text = value
        table.cell(0, 1).merge(table.cell(0, 2))  # "Preis" over netto and brutto
        table.cell(2, 0).merge(table.cell(3, 0))  # one model, two rows

    result = extract(deck(build), filename="d.pptx")
    assert result.text.split("\n")[4:-1] == [
        "| Modell | Preis / netto | Preis / brutto |",
        "| --- | --- | --- |",
        "| KP-40 | 100 | 119 |",
        "| KP-40 | 200 | 238 |",
    ]
    (table,) = result.report.tables
    assert (table.header_rows, table.rows, table.page_start, table.page_end) == (2, 2, 1, 1)
    assert result.text[table.start : table.end].startswith(table.header)
    assert result.report.slides[0].tables == 1


def test_grouped_shapes_are_read_through_their_members() -> None:
    def build(prs: Any) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
        slide.shapes.title.text = "Organisation"
        outer = slide.shapes.add_group_shape()
        inner = outer.shapes.add_group_shape()
        for i, text in enumerate(("Vertrieb", "Produktion")):
            box = inner.shapes.add_textbox(Inches(1 + 3 * i), Inches(3), Inches(2), Inches(1))
            box.text_frame.text = text
        below = outer.shapes.add_textbox(Inches(1), Inches(5), Inches(2), Inches(1))
        below.text_frame.text = "Einkauf"

    text = extract(deck(build), filename="d.pptx").text
    assert text.endswith("### Organisation\n\nVertrieb\n\nProduktion\n\nEinkauf\n")


def test_notes_are_marked_and_a_hidden_slide_is_left_out_but_counted() -> None:
    def build(prs: Any) -> None:
        for title in ("Eins", "Geheim", "Drei"):
            slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
            slide.shapes.title.text = title
        prs.slides[0].notes_slide.notes_text_frame.text = "Sprechernotiz zu eins"
        prs.slides[2].notes_slide.notes_text_frame.text = "Lang. " * 400
        prs.slides[1]._element.set("show", "0")
        prs.slides[1].notes_slide.notes_text_frame.text = "geheime Notiz"

    result = extract(deck(build), filename="d.pptx")
    assert result.text.startswith(
        "## Slide 1\n\n### Eins\n\n#### Notes\n\nSprechernotiz zu eins\n\n## Slide 3\n\n### Drei\n"
    )
    assert "Geheim" not in result.text and "geheime" not in result.text
    assert "slide 2 is hidden: left out" in result.report.warnings
    assert [(s.number, s.read, s.notes) for s in result.report.slides] == [
        (1, True, True), (2, False, False), (3, True, True),
    ]  # fmt: skip
    assert result.report.pages == 3
    long_notes = [c for c in chunk_text(result.text, lang="de") if "Lang." in c.body]
    assert len(long_notes) >= 2 and all(
        list(c.heading_path) == ["Slide 3", "Drei", "Notes"] for c in long_notes[1:]
    )


def test_pictures_and_charts_are_counted_not_dropped_silently() -> None:
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE

    def build(prs: Any) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
        slide.shapes.title.text = "Umsatz"
        data = CategoryChartData()
        data.categories = ["2023", "2024"]
        data.add_series("Umsatz", (12.4, 14.1))
        slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, 0, 0, Inches(4), Inches(3), data)
        slide.shapes.add_picture(io.BytesIO(_PNG), Inches(5), Inches(1))
        slide.shapes.add_picture(io.BytesIO(_PNG), Inches(6), Inches(1))

    result = extract(deck(build), filename="d.pptx")
    (info,) = result.report.slides
    assert (info.charts, info.images) == (1, 2)
    assert "slide 1: 1 chart(s), 2 picture(s) not read" in result.report.warnings


def test_a_shape_that_cannot_be_read_is_left_out_with_a_warning() -> None:
    """python-pptx raises on some real shapes (ValueError on a 3-D bar chart's plot);
    here a table cell's span is not a number, which python-pptx reads as int()."""

    def build(prs: Any) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
        slide.shapes.title.text = "Trotzdem lesbar"
        shape = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1))
        shape.name = "Kaputte Tabelle"
        shape.table.cell(0, 0)._tc.set("gridSpan", "zwei")
        textbox(slide, "Der Rest der Folie", 1, 5)

    result = extract(deck(build), filename="d.pptx")
    assert "### Trotzdem lesbar" in result.text and "Der Rest der Folie" in result.text
    (warning,) = [w for w in result.report.warnings if "Kaputte Tabelle" in w]
    assert warning.startswith("slide 1: shape 'Kaputte Tabelle' could not be read (ValueError")


def test_a_title_that_reads_as_an_anchor_is_a_paragraph() -> None:
    def build(prs: Any) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
        slide.shapes.title.text = "Folie 7"

    assert extract(deck(build), filename="d.pptx").text == "## Slide 1\n\nFolie 7\n"


def test_limits_and_broken_decks() -> None:
    def build(prs: Any) -> None:
        for _ in range(3):
            prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY]).shapes.title.text = "x"

    with pytest.raises(LimitExceeded) as e:
        extract(deck(build), filename="d.pptx", limits=ExtractLimits(max_pages=2))
    assert e.value.limit == "max_pages"
    empty = deck(lambda prs: prs.slides.add_slide(prs.slide_layouts[BLANK]))
    with pytest.raises(EmptyDocument):
        extract(empty, filename="d.pptx")
    broken = _replace_member(empty, "ppt/presentation.xml", b"<not-xml")
    with pytest.raises(CorruptDocument):
        extract(broken, filename="d.pptx")


def _replace_member(data: bytes, name: str, content: bytes) -> bytes:
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info.filename, content if info.filename == name else src.read(info))
    return out.getvalue()


def test_the_german_sample_deck_reads_as_german_slides() -> None:
    """tests/data/vortrag_de.pptx (make_slides.py): a table with notes, grouped text
    boxes beside a body, a hidden slide, an untitled closing slide with a picture."""
    result = extract((DATA / "vortrag_de.pptx").read_bytes(), filename="vortrag_de.pptx")
    text = result.text
    assert [ln for ln in text.split("\n") if ln.startswith("## ")] == [
        "## Slide 1", "## Slide 2", "## Slide 3", "## Slide 5",
    ]  # fmt: skip
    assert "Stundensatz" not in text and "Interne Kalkulation" not in text
    assert "| Gleitringdichtung | jährlich | 2,5 h |" in text
    assert "Ersatzteil: Dichtungssatz DS-4" in text
    chunks = chunk_text(text, lang="auto")
    assert chunks and {c.lang for c in chunks} == {"de"}
    closing = next(c for c in chunks if "Vielen Dank" in c.body)
    assert closing.page_end == 5
