"""Dev PDFs for #26's table failure classes, written with ReportLab (BSD, dev/bench only).

    python -m bench.pdftables.generate [OUT_DIR]   # default .local/pdftables/

Each case is one failure class of #26, built the way a generator lays it out (not copied
from any document): a table continued without its header row, a header row stranded at a
page foot, a repeated header on a long table, a "doubled" table (two sets of the same
columns side by side), ruled cells whose paths wrap at a hyphen or slash. The rows carry
their own row label in every cell ("R17 size"), so a cell under the wrong row is visible.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

GRID = TableStyle(
    [
        ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
        ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]
)
# ReportLab's own default draws no rules at all; generators add a rule under the header
# or zebra rows. Each case is written in each style.
STYLES = {
    "grid": GRID,
    "plain": TableStyle([("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold")]),
    "headrule": TableStyle(
        [
            ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
            ("LINEBELOW", (0, 0), (-1, 0), 1, colors.black),
        ]
    ),
    "zebra": TableStyle(
        [
            ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
            ("BACKGROUND", (0, 0), (-1, 0), colors.lightblue),
            ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.whitesmoke]),
        ]
    ),
}
HEADER = ["Package", "Version", "Size", "Section"]


def rows(n: int, first: int = 1) -> list[list[str]]:
    return [
        [f"pkg{i:03d}", f"{i}.{i % 7}", f"{i * 13} kB", f"sec{i % 5}"]
        for i in range(first, first + n)
    ]


def _doc(path: Path) -> SimpleDocTemplate:
    return SimpleDocTemplate(str(path), pagesize=A4, title=path.stem)


def continued_no_repeat(path: Path, style: TableStyle) -> None:
    """A long ruled table split across pages, the header NOT repeated (repeatRows=0)."""
    ss = getSampleStyleSheet()
    story = [
        Paragraph("Installed packages", ss["Heading1"]),
        Paragraph("The list below.", ss["Normal"]),
    ]
    story.append(Table([HEADER, *rows(90)], style=style, repeatRows=0))
    story.append(Paragraph("After the table.", ss["Normal"]))
    _doc(path).build(story)


def continued_repeat(path: Path, style: TableStyle) -> None:
    """The same long table with its header repeated on every page (repeatRows=1)."""
    ss = getSampleStyleSheet()
    story = [Paragraph("Installed packages", ss["Heading1"])]
    story.append(Table([HEADER, *rows(120)], style=style, repeatRows=1))
    _doc(path).build(story)


def stranded_header(path: Path, style: TableStyle) -> None:
    """Prose fills the page so that only the header row fits at its foot; the rows follow."""
    ss = getSampleStyleSheet()
    # Find the filler count whose table header lands alone at the page foot: ReportLab's
    # own layout decides, so try counts until page 1 ends with only the header row.
    base = [Paragraph("Stranded header", ss["Heading1"])]
    for count in range(30, 60):
        story = list(base)
        story += [
            Paragraph(f"Filler line {i} of the text before the table.", ss["Normal"])
            for i in range(count)
        ]
        story.append(Table([HEADER, *rows(12)], style=style, repeatRows=0))
        _doc(path).build(story)
        if _header_alone_at_foot(path):
            return
    raise SystemExit("no filler count strands the header")


def _header_alone_at_foot(path: Path) -> bool:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        if len(pdf.pages) < 2:
            return False
        first = pdf.pages[0].extract_text() or ""
        return first.rstrip().endswith("Section") and "pkg001" in (
            pdf.pages[1].extract_text() or ""
        )


def doubled(path: Path, style: TableStyle) -> None:
    """Two sets of the same columns side by side, across pages, header repeated."""
    head = ["Code", "Meaning", "Code", "Meaning"]
    body = [
        [f"E{i:03d}", f"meaning of E{i:03d}", f"E{i + 100:03d}", f"meaning of E{i + 100:03d}"]
        for i in range(1, 81)
    ]
    ss = getSampleStyleSheet()
    story = [
        Paragraph("Error codes", ss["Heading1"]),
        Table([head, *body], style=style, repeatRows=1),
    ]
    _doc(path).build(story)


def wrapped_paths(path: Path, style: TableStyle) -> None:
    """Ruled cells narrow enough that paths wrap at their own hyphen or slash."""
    ss = getSampleStyleSheet()
    cell = ss["Normal"]
    # Where the generator broke each path: after its own hyphen or slash (a <br/> here,
    # as an office suite or a narrow column breaks a word it cannot hyphenate).
    paths = [
        "/usr/lib/x86_64-linux-|gnu/pkgconfig/",
        "/usr/share/doc/|libreoffice-common/README",
        "/etc/systemd/system/|multi-user.target.wants/",
        "~/.config/autostart/org.|example-agent.desktop",
        "https://example.org/down-|loads/tool-1.2.tar.gz",
    ]
    data: list[list[object]] = [["Variable", "Directory"]]
    data += [
        [Paragraph(f"VAR_{i}", cell), Paragraph(p.replace("|", "<br/>"), cell)]
        for i, p in enumerate(paths)
    ]
    story = [
        Paragraph("Search paths", ss["Heading1"]),
        Table(data, colWidths=[70, 200], style=style),
    ]
    _doc(path).build(story)


CASES: dict[str, Callable[[Path, TableStyle], None]] = {
    "continued-no-repeat": continued_no_repeat,
    "continued-repeat": continued_repeat,
    "stranded-header": stranded_header,
    "doubled": doubled,
    "wrapped-paths": wrapped_paths,
}


def main(argv: list[str]) -> None:
    out = Path(argv[0]) if argv else Path(".local/pdftables")
    out.mkdir(parents=True, exist_ok=True)
    for style, table_style in STYLES.items():
        for name, build in CASES.items():
            build(out / f"{name}-{style}.pdf", table_style)
            print(out / f"{name}-{style}.pdf")


if __name__ == "__main__":
    main(sys.argv[1:])
