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
