"""Format detection by content (magic bytes, container members), the name only breaking ties.

The rules come from the format registry (extract/formats.py), applied in its
order: signatures (PDF), ZIP containers told apart by their members (OOXML by
``[Content_Types].xml`` and ``word/`` / ``xl/`` / ``ppt/``, OpenDocument and
EPUB by their ``mimetype`` member), legacy OLE2 files by their directory
entries (``WordDocument``, ``Workbook``, ``PowerPoint Document``; an
``EncryptedPackage`` is a password-protected OOXML file). A ZIP passes the
container guard (extract/containers.py) before any member is looked at.
Other binary formats are refused by their signature with a reason that names
them; everything else must decode as text and is told apart by the text rules
(HTML by its start or name, the rest by name, plain text by default).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from .containers import ZipContainer, is_zip
from .errors import EmptyDocument, EncryptedDocument, UnsupportedFormat
from .formats import REGISTRY, FormatSpec, Magic, Ole2Rule, Registry, TextRule, ZipRule
from .limits import ExtractLimits
from .model import DocFormat

# (signature, offset, human name) of binary formats no reader takes, refused with a reason.
_REFUSED_SIGNATURES: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "PNG image"),
    (b"\xff\xd8\xff", 0, "JPEG image"),
    (b"GIF87a", 0, "GIF image"),
    (b"GIF89a", 0, "GIF image"),
    (b"II*\x00", 0, "TIFF image"),
    (b"MM\x00*", 0, "TIFF image"),
    (b"BM", 0, "BMP image"),
    (b"WEBP", 8, "WebP image"),
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
OLE2_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_OLE2_ENTRY = 128  # bytes per directory entry; sectors are multiples of it
_MIMETYPE_BYTES = 256
_CONTENT_TYPES_BYTES = 1 << 20


@dataclass(frozen=True)
class Sniffed:
    """What the bytes are: a format (None: text, decided after decoding) and, for a
    ZIP format, its guarded container."""

    spec: FormatSpec | None
    container: ZipContainer | None = None


def extension(filename: str | None) -> str:
    if not filename or "." not in filename.rsplit("/", 1)[-1]:
        return ""
    return "." + filename.rsplit(".", 1)[-1].lower()


def _mismatch(filename: str | None, registry: Registry) -> str:
    spec = registry.by_extension(extension(filename))
    return f" although the name {filename!r} says {spec.name}" if spec else ""


def identify(
    data: bytes,
    filename: str | None = None,
    *,
    registry: Registry = REGISTRY,
    limits: ExtractLimits | None = None,
) -> Sniffed:
    """The binary format of the bytes, or Sniffed(None) for "must be text".

    Raises EmptyDocument for 0 bytes, UnsupportedFormat for binary formats no
    reader takes, EncryptedDocument for password-protected Office files, and
    the container guard's errors for hostile ZIPs.
    """
    if not data:
        raise EmptyDocument("0-byte input")
    head = data[:1024]
    for spec in registry.specs:
        if isinstance(spec.rule, Magic) and _magic(spec.rule, head):
            return Sniffed(spec)
    if is_zip(head):
        return _zip_format(data, filename, registry, limits or ExtractLimits())
    if head.startswith(OLE2_SIGNATURE):
        return Sniffed(_ole2_format(data, filename, registry))
    _refuse_signatures(head, filename, registry)
    expected = registry.by_extension(extension(filename))
    if expected is not None and not isinstance(expected.rule, TextRule):
        raise UnsupportedFormat(f"{_missing(expected.rule)}{_mismatch(filename, registry)}")
    return Sniffed(None)


def sniff(data: bytes, filename: str | None = None) -> DocFormat | None:
    """The binary format (PDF, DOCX, XLSX, ...), or None for "must be text"."""
    spec = identify(data, filename).spec
    return spec.format if spec else None


def _magic(rule: Magic, head: bytes) -> bool:
    if rule.within:
        return rule.signature in head[: rule.within]
    return head.startswith(rule.signature)


def _missing(rule: Magic | ZipRule | Ole2Rule) -> str:
    if isinstance(rule, Magic):
        where = f"in the first {rule.within} bytes" if rule.within else "at the start"
        return f"no {rule.signature.decode('latin-1')} signature {where}"
    if isinstance(rule, ZipRule):
        return "not a ZIP container"
    return "not an OLE2 compound file"


def _refuse_signatures(head: bytes, filename: str | None, registry: Registry) -> None:
    for sig, off, name in _REFUSED_SIGNATURES:
        if head[off : off + len(sig)] == sig:
            if name == "Windows executable" and b"\x00" not in head[:64]:
                continue  # "MZ..." could be the start of a text file
            if name == "BMP image" and b"\x00" not in head[:32]:
                continue
            raise UnsupportedFormat(f"content is a {name}{_mismatch(filename, registry)}")


# ----------------------------------------------------------------------------- ZIP


def _zip_format(
    data: bytes, filename: str | None, registry: Registry, limits: ExtractLimits
) -> Sniffed:
    container = ZipContainer.open(data, limits)
    for spec in registry.specs:
        if isinstance(spec.rule, ZipRule) and _zip_matches(spec.rule, container):
            container.label = spec.name
            return Sniffed(spec, container)
    raise UnsupportedFormat(
        f"content is {_zip_kind(container, registry)}{_mismatch(filename, registry)}"
    )


def _zip_matches(rule: ZipRule, container: ZipContainer) -> bool:
    if not all(container.has(m) for m in rule.members):
        return False
    if rule.mimetype is not None:
        marker = container.read_head("mimetype", _MIMETYPE_BYTES).decode("ascii", "replace")
        if marker.strip() != rule.mimetype:
            return False
    if rule.content_type is not None:
        types = container.read("[Content_Types].xml", cap=_CONTENT_TYPES_BYTES)
        return rule.content_type.encode() in types
    return True


def _zip_kind(container: ZipContainer, registry: Registry) -> str:
    """Name a ZIP no rule took; a near miss (the parts of a format, not its marker) says so."""
    for spec in registry.specs:
        rule = spec.rule
        if isinstance(rule, ZipRule) and rule.content_type is None:  # not a flavour
            parts = [m for m in rule.members if m not in ("[Content_Types].xml", "mimetype")]
            if parts and all(container.has(m) for m in parts):
                missing = [m for m in rule.members if not container.has(m)]
                return (
                    f"a ZIP archive with the parts of {spec.description} but not "
                    f"{', '.join(missing) or 'its marker'}: not a valid {spec.name}"
                )
    mimetype = container.read_head("mimetype", _MIMETYPE_BYTES).decode("ascii", "replace")
    if mimetype.strip():
        return f"a ZIP container of type {mimetype.strip()!r}, a format chunkwise does not read"
    return "a ZIP archive, not a document format chunkwise reads"


# ----------------------------------------------------------------------------- OLE2


def ole2_entries(data: bytes, names: tuple[str, ...]) -> set[str]:
    """Which of ``names`` are entries of an OLE2 directory.

    An entry is 128 bytes: its UTF-16LE name, then at +64 the name's byte length
    with the terminating NUL and at +66 its type (1 storage, 2 stream). Entries
    sit at multiples of 128 in the file (sectors are multiples of 128 bytes and
    follow a 512-byte header), which tells them from the same letters in content.
    """
    found = set()
    for name in names:
        encoded = name.encode("utf-16-le") + b"\x00\x00"
        pos = data.find(encoded)
        while pos >= 0:
            if pos % _OLE2_ENTRY == 0 and pos + 68 <= len(data):
                length, kind = struct.unpack_from("<HB", data, pos + 64)
                if length == len(encoded) and kind in (1, 2):
                    found.add(name)
                    break
            pos = data.find(encoded, pos + 1)
    return found


def _ole2_format(data: bytes, filename: str | None, registry: Registry) -> FormatSpec:
    if ole2_entries(data, ("EncryptedPackage",)):
        raise EncryptedDocument(
            "content is a password-protected Office file (an encrypted OOXML package); "
            "remove the password and upload again"
        )
    for spec in registry.specs:
        if isinstance(spec.rule, Ole2Rule) and ole2_entries(data, spec.rule.streams):
            return spec
    raise UnsupportedFormat(
        "content is a legacy MS Office (OLE2) file of an unknown kind"
        f"{_mismatch(filename, registry)}"
    )


# ----------------------------------------------------------------------------- text


def text_spec(text: str, filename: str | None, registry: Registry = REGISTRY) -> FormatSpec:
    """The text format of decoded content: by the content rules, then the name,
    in table order; plain text when none says otherwise."""
    ext = extension(filename)
    start = text[:4096].encode("utf-8", "replace")
    fallback = registry.spec(DocFormat.TEXT)
    for spec in registry.specs:
        rule = spec.rule
        if not isinstance(rule, TextRule):
            continue
        if ext in spec.extensions or (rule.content is not None and rule.content.match(start)):
            return spec
    return fallback


def text_kind(data: bytes, text: str, filename: str | None) -> DocFormat:
    """HTML, Markdown, CSV, ... or plain text for content that decoded as text."""
    return text_spec(text, filename).format
