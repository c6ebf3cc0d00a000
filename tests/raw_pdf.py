"""Hand-written PDF files for extraction tests that need objects reportlab does not
write (optional content, /Differences, a font program's own encoding, odd widths)."""

from __future__ import annotations


def pdf_from_objects(objects: list[bytes], version: str = "1.4") -> bytes:
    """A PDF of `objects`, numbered 1, 2, ... in order (object 1 is the catalog),
    with the cross-reference table and trailer that make it readable."""
    out = bytearray(b"%%PDF-%s\n" % version.encode())
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


TIMES = b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>"


def one_page_pdf(
    stream: bytes,
    fonts: list[bytes] | None = None,
    size: tuple[int, int] = (300, 200),
    more: list[bytes] | None = None,
) -> bytes:
    """One page drawing `stream`, with `fonts` as /F1, /F2, ... (Times-Roman alone by
    default). Objects: 1 catalog, 2 pages, 3 the page, 4 the content stream, then the
    fonts from 5 on, then `more` (a font's descriptor or program, numbered after them)."""
    fonts = fonts if fonts is not None else [TIMES]
    names = b" ".join(b"/F%d %d 0 R" % (i, 4 + i) for i in range(1, len(fonts) + 1))
    return pdf_from_objects(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d]" % size
            + b" /Resources << /Font << %s >> >> /Contents 4 0 R >>" % names,
            b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
            *fonts,
            *(more or []),
        ]
    )
