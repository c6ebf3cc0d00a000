"""Format detection by content (magic bytes), the file name only breaking ties.

Binary formats are recognised by their signatures; only a PDF or a ZIP that
looks like a DOCX is accepted. Everything else must decode as text (see
text.decode_text) and is then HTML, Markdown or plain text by content and name.
"""

from __future__ import annotations

import re

from .errors import EmptyDocument, UnsupportedFormat
from .model import DocFormat

# (signature, offset, human name) of binary formats we refuse with a reason.
_REFUSED_SIGNATURES: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "PNG image"),
    (b"\xff\xd8\xff", 0, "JPEG image"),
    (b"GIF87a", 0, "GIF image"),
    (b"GIF89a", 0, "GIF image"),
    (b"II*\x00", 0, "TIFF image"),
    (b"MM\x00*", 0, "TIFF image"),
    (b"BM", 0, "BMP image"),
    (b"WEBP", 8, "WebP image"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 0, "legacy MS Office (OLE2: .doc/.xls/.ppt)"),
    (b"\x1f\x8b", 0, "gzip archive"),
    (b"BZh", 0, "bzip2 archive"),
    (b"7z\xbc\xaf\x27\x1c", 0, "7-Zip archive"),
    (b"Rar!\x1a\x07", 0, "RAR archive"),
    (b"\xfd7zXZ\x00", 0, "xz archive"),
    (b"\x7fELF", 0, "ELF executable"),
    (b"MZ", 0, "Windows executable"),
    (b"ID3", 0, "MP3 audio"),
    (b"ftyp", 4, "MP4/QuickTime media"),
    (b"OggS", 0, "Ogg media"),
    (b"{\\rtf", 0, "RTF document"),
)

_ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
_HTML_START = re.compile(
    rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b",
    re.IGNORECASE | re.DOTALL,
)
_HTML_EXT = (".html", ".htm", ".xhtml")
_MD_EXT = (".md", ".markdown", ".mdown", ".mkd")
_EXT_NAMES = {
    ".pdf": "PDF",
    ".docx": "DOCX",
    ".txt": "text",
    ".html": "HTML",
    ".htm": "HTML",
    ".md": "Markdown",
}


def _ext(filename: str | None) -> str:
    if not filename or "." not in filename.rsplit("/", 1)[-1]:
        return ""
    return "." + filename.rsplit(".", 1)[-1].lower()


def _mismatch(filename: str | None) -> str:
    ext = _ext(filename)
    if ext in _EXT_NAMES:
        return f" although the name {filename!r} says {_EXT_NAMES[ext]}"
    return ""


def sniff(data: bytes, filename: str | None = None) -> DocFormat | None:
    """Return the binary format (PDF, DOCX), or None for "must be text".

    Raises EmptyDocument for 0 bytes and UnsupportedFormat for recognised
    binary formats that we do not extract.
    """
    if not data:
        raise EmptyDocument("0-byte input")
    head = data[:1024]
    if b"%PDF-" in head:
        return DocFormat.PDF
    if head.startswith(_ZIP_SIGNATURES):
        return DocFormat.DOCX  # docx/container.py checks the container and its members
    for sig, off, name in _REFUSED_SIGNATURES:
        if head[off : off + len(sig)] == sig:
            if name == "Windows executable" and b"\x00" not in head[:64]:
                continue  # "MZ..." could be the start of a text file
            if name == "BMP image" and b"\x00" not in head[:32]:
                continue
            raise UnsupportedFormat(f"content is a {name}{_mismatch(filename)}")
    if _ext(filename) == ".pdf":
        raise UnsupportedFormat(f"no %PDF- signature in the first 1024 bytes{_mismatch(filename)}")
    if _ext(filename) == ".docx":
        raise UnsupportedFormat(f"not a ZIP container{_mismatch(filename)}")
    return None


def text_kind(data: bytes, text: str, filename: str | None) -> DocFormat:
    """HTML, Markdown or plain text for content that decoded as text."""
    ext = _ext(filename)
    if ext in _HTML_EXT:
        return DocFormat.HTML
    if _HTML_START.match(text[:4096].encode("utf-8", "replace")):
        return DocFormat.HTML
    if ext in _MD_EXT:
        return DocFormat.MARKDOWN
    return DocFormat.TEXT
