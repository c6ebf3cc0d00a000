"""The body size is the prose's: on most pages, outside typewriter fonts.

Headings are lines larger than the body text, so a body size taken from code
listings or small back matter made every prose line a heading (microtype-DE,
microtype-code). A typewriter font is known by its name or, when the name
does not say it ("LetterGothic12PitchBT-Roman"), by its widths: all equal.
"""

from __future__ import annotations

from chunkwise.extract import extract
from tests.raw_pdf import pdf_from_objects

_PROSE = "Every character needs a certain amount of protrusion and kerning here."
_CODE = "\\def\\MT@setup@{\\MT@map@clist@c\\MT@features{\\MT@feat@setup}}%"


def _pdf(pages: list[bytes]) -> bytes:
    """Pages sharing F1 (Times-Roman) and F2, a typewriter face whose name does not
    say so, with equal widths for its 95 glyphs."""
    widths = b" ".join([b"600"] * 95)
    kids = b" ".join(b"%d 0 R" % (5 + 2 * i) for i in range(len(pages)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(pages)),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+LetterGothic12PitchBT-Roman"
        b" /FirstChar 32 /LastChar 126 /Widths [%s] /Encoding /WinAnsiEncoding >>" % widths,
    ]
    for i, stream in enumerate(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources"
            b" << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>" % (6 + 2 * i)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    return pdf_from_objects(objects)


def _page(prose_lines: int, code_lines: int) -> bytes:
    ops = [b"BT /F1 10 Tf 12 TL 72 780 Td"]
    ops += [b"(%s) '" % _PROSE.encode()] * prose_lines
    ops += [b"/F2 8 Tf 10 TL"]
    ops += [b"(%s) '" % _CODE.replace("\\", "\\\\").encode()] * code_lines
    return b" ".join(ops) + b" ET"


def test_prose_between_more_code_in_an_unnamed_typewriter_font_is_not_a_heading() -> None:
    pages = [_page(4, 50), _page(4, 50), _page(4, 50)]
    text = extract(_pdf(pages), filename="manual.pdf").text
    assert _PROSE in text
    assert not [ln for ln in text.splitlines() if ln.startswith("#") and "protrusion" in ln]


def test_small_back_matter_on_few_pages_does_not_set_the_body_size() -> None:
    # An index and a licence in 8 pt on the last pages, more characters than the
    # 10 pt prose of the pages before them.
    small = b"BT /F1 8 Tf 9 TL 72 780 Td" + b" (%s) '" % _PROSE.encode() * 80 + b" ET"
    pages = [_page(20, 0)] * 4 + [small, small]
    text = extract(_pdf(pages), filename="manual.pdf").text
    assert not [ln for ln in text.splitlines() if ln.startswith("#") and "protrusion" in ln]
