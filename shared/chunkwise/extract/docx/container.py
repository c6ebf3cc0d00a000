"""The DOCX container, checked before python-docx sees it: no zip bombs.

The ZIP central directory is inspected first: member count, declared
uncompressed size per member and in total, and the compression ratio of each
member are bounded (ExtractLimits). Declared sizes are not trusted beyond that:
``ZipFile.read`` inflates a member's whole compressed stream in one call and
only then cuts it to the declared size, so a member that declares 2 KB can
still take gigabytes on the way. Every member is therefore inflated here as a
stream in small steps, its real size counted against the same limits (a hard
cap), and python-docx gets a stored (not compressed) copy of the verified
members.
"""

from __future__ import annotations

import io
import zipfile
import zlib

from ..errors import CorruptDocument, ExtractionError, LimitExceeded, UnsupportedFormat
from ..limits import ExtractLimits

#: Bytes inflated per step: zlib is never asked for more than this at once.
INFLATE_STEP = 64 * 1024


def check_container(data: bytes, limits: ExtractLimits) -> None:
    """Reject non-DOCX ZIPs and zip bombs from the central directory alone."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise CorruptDocument(f"not a readable ZIP container: {exc}") from None
    with zf:
        _check_directory(zf.infolist(), limits)


def inflate_container(data: bytes, limits: ExtractLimits) -> bytes:
    """The DOCX's members inflated as streams under a hard cap, re-packed stored.

    The central directory checks come first (cheap); then each member's real
    inflated size counts against ``max_member_bytes`` and, summed, against
    ``max_decompressed_bytes``: memory stays within the limits whatever the
    directory claims. A member whose stream does not match its declared size
    or CRC is a corrupt document.
    """
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise CorruptDocument(f"not a readable ZIP container: {exc}") from None
    out = io.BytesIO()
    total = 0
    with zf, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as repacked:
        infos = zf.infolist()
        _check_directory(infos, limits)
        for info in infos:
            if info.is_dir():
                continue
            content = _inflate_member(zf, info, limits, limits.max_decompressed_bytes - total)
            total += len(content)
            repacked.writestr(info.filename, content)
    return out.getvalue()


def _inflate_member(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: ExtractLimits, room: int
) -> bytes:
    buf = bytearray()
    try:
        with zf.open(info) as member:
            while step := member.read(INFLATE_STEP):
                buf += step
                if len(buf) > limits.max_member_bytes:
                    raise LimitExceeded(
                        "max_member_bytes",
                        limits.max_member_bytes,
                        len(buf),
                        f"{info.filename} inflates past the limit (zip bomb?)",
                    )
                if len(buf) > room:
                    raise LimitExceeded(
                        "max_decompressed_bytes",
                        limits.max_decompressed_bytes,
                        limits.max_decompressed_bytes - room + len(buf),
                        "DOCX members inflate too much (zip bomb?)",
                    )
    except ExtractionError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        # zipfile raises BadZipFile for a CRC or size mismatch, RuntimeError when encrypted
        raise CorruptDocument(
            f"DOCX member {info.filename} does not inflate as declared: {type(exc).__name__}"
        ) from None
    return bytes(buf)


def _check_directory(infos: list[zipfile.ZipInfo], limits: ExtractLimits) -> None:
    """Member count, DOCX-ness, declared sizes and ratios (cheap, before inflating)."""
    if len(infos) > limits.max_zip_members:
        raise LimitExceeded(
            "max_zip_members", limits.max_zip_members, len(infos), "too many ZIP entries"
        )
    names = {i.filename for i in infos}
    if "word/document.xml" not in names:
        kind = (
            "XLSX"
            if "xl/workbook.xml" in names
            else "PPTX"
            if "ppt/presentation.xml" in names
            else "ODF"
            if "mimetype" in names
            else "ZIP archive"
        )
        raise UnsupportedFormat(f"ZIP container is a {kind}, not a DOCX (no word/document.xml)")
    total = 0
    for info in infos:
        total += info.file_size
        if info.file_size > limits.max_member_bytes:
            raise LimitExceeded(
                "max_member_bytes",
                limits.max_member_bytes,
                info.file_size,
                f"{info.filename} would inflate to {info.file_size} bytes (zip bomb?)",
            )
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > 1_000_000 and ratio > limits.max_compression_ratio:
            raise LimitExceeded(
                "max_compression_ratio",
                limits.max_compression_ratio,
                round(ratio),
                f"{info.filename} compresses {ratio:.0f}:1 (zip bomb?)",
            )
    if total > limits.max_decompressed_bytes:
        raise LimitExceeded(
            "max_decompressed_bytes",
            limits.max_decompressed_bytes,
            total,
            "DOCX members inflate too much (zip bomb?)",
        )
