"""The poison documents of the fault review, generated (never committed).

- ``bomb.docx``: a real DOCX package whose ``word/document.xml`` is ~1 GiB of
  zeros deflated to ~1 MB, its declared size patched to 2 KB in both ZIP headers.
- ``wall.html``: ~19.5 MB of HTML paragraphs (under the 20 MiB HTML limit) that
  chunk into tens of thousands of chunks.
- ``long.md``: ~4 MB of prose under every size and chunk limit, whose embedding
  takes longer than its share of the invocation: only the deadline stops it.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
_STEP = 1 << 20


def docx_bomb(inflated_bytes: int = 1 << 30, declared: int = 2048) -> bytes:
    """A DOCX whose document part inflates to ``inflated_bytes`` but declares ``declared``."""
    with zipfile.ZipFile(DATA / "pricing_en.docx") as src:
        members = {i.filename: src.read(i) for i in src.infolist()}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            if name == "word/document.xml":
                with zf.open(name, "w", force_zip64=False) as member:
                    zero = bytes(_STEP)
                    for _ in range(inflated_bytes // _STEP):
                        member.write(zero)
            else:
                zf.writestr(name, content)
    return declare_size(buf.getvalue(), b"word/document.xml", declared)


def declare_size(data: bytes, member: bytes, size: int) -> bytes:
    """Patch a member's uncompressed size in its local header and central directory."""
    out = bytearray(data)
    for sig, name_off, size_off, len_off in (
        (b"PK\x03\x04", 30, 22, 26),
        (b"PK\x01\x02", 46, 24, 28),
    ):
        pos = 0
        while (pos := out.find(sig, pos)) >= 0:
            n = int.from_bytes(out[pos + len_off : pos + len_off + 2], "little")
            if out[pos + name_off : pos + name_off + n] == member:
                out[pos + size_off : pos + size_off + 4] = size.to_bytes(4, "little")
            pos += 4
    return bytes(out)


def wall_html(target_bytes: int = 19_500_000) -> bytes:
    """Many short, distinct paragraphs: the most chunks per byte a real page makes."""
    parts = ["<!doctype html><html lang=en><head><title>Wall</title></head><body>"]
    size = len(parts[0])
    i = 0
    while size < target_bytes:
        p = (
            f"<h2>Section {i}</h2><p>Paragraph {i}: the valve number {i} is checked "
            f"every {i % 97 + 1} days and replaced after {i % 13 + 2} years.</p>\n"
        )
        parts.append(p)
        size += len(p)
        i += 1
    parts.append("</body></html>")
    return "".join(parts).encode("utf-8")


def long_markdown(paragraphs: int = 4000) -> bytes:
    """Distinct prose paragraphs of ~1,000 characters: one chunk each."""
    words = (
        "pump valve filter seal gasket bearing motor housing impeller shaft inlet outlet "
        "pressure flow interval inspection torque lubricant coupling sensor controller"
    ).split()
    out = ["# Service manual\n"]
    for i in range(paragraphs):
        sentence = " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(12))
        body = " ".join(f"Step {i}.{k}: check the {sentence}." for k in range(8))
        out.append(f"## Procedure {i}\n\n{body}\n")
    return "\n".join(out).encode("utf-8")
