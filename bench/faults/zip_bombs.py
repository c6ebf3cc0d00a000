"""ZIP bombs in every container format chunkwise recognises, built in memory.

Each bomb is a minimal but well-formed package of its format (the parts the
sniffer looks for) with the payload in the format's main part:

- ``declared``: the main part is ``size`` bytes of zeros (1 GiB by default,
  ~1 MB deflated), its true size in the directory;
- ``liar``: the same stream, the directory claiming 2 KiB (both headers patched);
- ``spread``: 1,500 members of 900 KB of zeros each (each under the per-member
  ratio floor, 1.3 GB together);
- ``entries``: 60,000 empty members (the directory alone is 3 MB);
- ``nested``: the main part's folder holds a ``declared`` bomb as a ZIP member
  (a ZIP in the ZIP, the 42.zip trick).

The zeros are deflated once per size: a 1 MiB block compressed after a full
flush compresses to the same bytes every time, so N MiB of zeros is one block
repeated (0.04 s instead of 7 s for 1 GiB). CRCs are real.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from functools import lru_cache

_MIB = 1 << 20
FORMATS = ("docx", "xlsx", "pptx", "odt", "ods", "odp", "epub")
KINDS = ("declared", "liar", "spread", "entries", "nested")

_CONTENT_TYPES = b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'
_ODF = "application/vnd.oasis.opendocument."
#: format -> (skeleton members, the main part that carries the payload)
_PACKAGES: dict[str, tuple[dict[str, bytes], str]] = {
    "docx": ({"[Content_Types].xml": _CONTENT_TYPES}, "word/document.xml"),
    "xlsx": (
        {"[Content_Types].xml": _CONTENT_TYPES, "xl/workbook.xml": b"<workbook/>"},
        "xl/worksheets/sheet1.xml",
    ),
    "pptx": (
        {"[Content_Types].xml": _CONTENT_TYPES, "ppt/presentation.xml": b"<presentation/>"},
        "ppt/slides/slide1.xml",
    ),
    "odt": ({"mimetype": (_ODF + "text").encode()}, "content.xml"),
    "ods": ({"mimetype": (_ODF + "spreadsheet").encode()}, "content.xml"),
    "odp": ({"mimetype": (_ODF + "presentation").encode()}, "content.xml"),
    "epub": (
        {"mimetype": b"application/epub+zip", "META-INF/container.xml": b"<container/>"},
        "OEBPS/chapter1.xhtml",
    ),
}


@lru_cache(maxsize=4)
def deflated_zeros(size: int) -> tuple[bytes, int]:
    """(raw deflate stream, CRC-32) of ``size`` zero bytes (a multiple of 1 MiB)."""
    if size % _MIB:
        raise ValueError("size must be a multiple of 1 MiB")
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = bytes(_MIB)
    first = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    steady = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(size // _MIB):
        crc = zlib.crc32(block, crc)
    return first + steady * (size // _MIB - 1) + c.flush(), crc


def raw_zip(entries: list[tuple[str, bytes, int, int, int]]) -> bytes:
    """A ZIP from (name, stored bytes, method, uncompressed size, crc) entries."""
    out = io.BytesIO()
    central = []
    for name, payload, method, size, crc in entries:
        offset = out.tell()
        encoded = name.encode()
        head = (0x04034B50, 20, 0, method, 0, 0, crc, len(payload), size, len(encoded), 0)
        out.write(struct.pack("<IHHHHHIIIHH", *head) + encoded + payload)
        central.append(
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                *(0x02014B50, 20, 20, 0, method, 0, 0, crc, len(payload), size),
                *(len(encoded), 0, 0, 0, 0, 0, offset),
            )
            + encoded
        )
    start = out.tell()
    directory = b"".join(central)
    out.write(directory)
    n = len(entries)
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(directory), start, 0))
    return out.getvalue()


def _stored(name: str, content: bytes) -> tuple[str, bytes, int, int, int]:
    return (name, content, zipfile.ZIP_STORED, len(content), zlib.crc32(content))


def bomb(fmt: str, kind: str, size: int = 1 << 30) -> bytes:
    """The ``kind`` bomb of format ``fmt`` (see the module docstring)."""
    skeleton, main = _PACKAGES[fmt]
    entries = [_stored(name, content) for name, content in skeleton.items()]
    stream, crc = deflated_zeros(size)
    if kind in ("declared", "liar"):
        declared = size if kind == "declared" else 2048
        entries.append((main, stream, zipfile.ZIP_DEFLATED, declared, crc))
    elif kind == "spread":
        part = 900_000
        payload = zlib.compress(bytes(part), 9)[2:-4]
        crc_part = zlib.crc32(bytes(part))
        folder = main.rsplit("/", 1)[0] + "/" if "/" in main else ""
        for i in range(1500):
            entries.append((f"{folder}part{i}.xml", payload, zipfile.ZIP_DEFLATED, part, crc_part))
    elif kind == "entries":
        entries.extend(_stored(f"e/{i}", b"") for i in range(60_000))
    elif kind == "nested":
        inner = raw_zip([(main, stream, zipfile.ZIP_DEFLATED, size, crc)])
        entries.append(_stored(main, b"<x/>"))
        entries.append(_stored(main + ".zip", inner))
    else:
        raise ValueError(f"unknown bomb kind {kind!r}")
    return raw_zip(entries)
