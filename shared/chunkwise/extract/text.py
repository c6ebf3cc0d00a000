"""Plain text and Markdown: decoding and newline normalisation.

Encodings accepted: UTF-8, UTF-8 with BOM, UTF-16 LE/BE with BOM, UTF-32 with
BOM, and -- only when it can be told with confidence -- legacy Windows-1252
(a superset of Latin-1's printable range, the legacy encoding of English and
German text). The cp1252 test is a strict, deterministic rule instead of a
statistical detector (charset-normalizer and friends guess among dozens of
code pages and change their answers between versions, and a wrong guess
silently corrupts every offset). A byte sequence is accepted as cp1252 when:
it is not valid UTF-8, contains no C0 control bytes besides tab/newline/CR/FF,
every byte decodes in cp1252, at most 30 % of the characters are non-ASCII,
and every non-ASCII character is a Latin letter of Latin-1/cp1252 standing
next to another letter, or one of a short list of typographic symbols (the
multiplication and division signs among them, and Ø/ø, the diameter sign of
German product lists, which stands alone: "Ø 4,3 mm", "M4 × 20"). Random
binary and texts in other code pages (Cyrillic, Greek, ...) fail the rule and
are rejected with UnsupportedEncoding.
"""

from __future__ import annotations

import re

from .errors import EmptyDocument, UnsupportedEncoding, UnsupportedFormat

_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
_ALLOWED_CONTROL = {0x09, 0x0A, 0x0C, 0x0D}
_LEGACY_SYMBOLS = set("€‚„…†‡‰‹›‘’“”•–—™«»°§©®±µ¶·¹²³¼½¾£¥¢¿¡\u00a0ªº¦¨¯´¸¬×÷")
# Letters that also serve as a symbol on their own: the diameter sign ("Ø 4,3 mm").
_STANDALONE_LETTERS = set("Øø")
_LEGACY_LETTERS = {chr(c) for c in range(0xC0, 0x100)} - {"\u00d7", "\u00f7"} | set("ŠšŽžŒœŸƒ")
_NEWLINES = re.compile(r"\r\n?|\f")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _control_bytes(data: bytes) -> int:
    return sum(1 for b in data if (b < 0x20 and b not in _ALLOWED_CONTROL) or b == 0x7F)


def _looks_like_cp1252(text: str) -> bool:
    # One pass over the non-ASCII characters, none of them collected: a large CSV
    # export holds millions (every "€" and "ü"), and a list of their positions
    # cost more memory than the text.
    count = 0
    limit = 0.3 * len(text)
    for match in _NON_ASCII.finditer(text):
        count += 1
        if count > limit:
            return False
        ch = match.group()
        if ch in _LEGACY_SYMBOLS or ch in _STANDALONE_LETTERS:
            continue
        if ch not in _LEGACY_LETTERS:
            return False
        i = match.start()
        left = text[i - 1] if i > 0 else " "
        right = text[i + 1] if i + 1 < len(text) else " "
        if not (left.isalpha() or right.isalpha()):
            return False
    return count > 0


def decode_text(data: bytes, *, declared: str | None = None) -> tuple[str, str]:
    """Decode bytes to str; return (text, encoding name). BOMs are stripped."""
    if not data:
        raise EmptyDocument("0-byte input")
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(enc), f"{enc}-bom"
            except UnicodeDecodeError as exc:
                raise UnsupportedEncoding(
                    f"starts with a {enc} byte-order mark but is not valid {enc} (byte {exc.start})"
                ) from None
    head = data[:8192]
    nuls = head.count(b"\x00")
    if nuls:
        raise UnsupportedFormat(
            f"binary content: {nuls} NUL bytes in the first {len(head)} bytes "
            "(not text; UTF-16/32 text needs a byte-order mark)"
        )
    controls = _control_bytes(head)
    if controls > max(2, len(head) // 200):
        raise UnsupportedFormat(
            f"binary content: {controls} control bytes in the first {len(head)} bytes"
        )
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        utf8_error = exc.start
    if declared:
        try:
            return data.decode(declared), declared
        except (LookupError, UnicodeDecodeError):
            pass
    if _control_bytes(data) <= max(2, len(data) // 200):
        try:
            candidate = data.decode("cp1252")
        except UnicodeDecodeError:
            candidate = None
        if candidate is not None and _looks_like_cp1252(candidate):
            return candidate, "cp1252"
    raise UnsupportedEncoding(
        f"not valid UTF-8 (first bad byte at offset {utf8_error}) and not confidently "
        "Windows-1252/Latin-1; re-save the file as UTF-8"
    )


def normalise_newlines(text: str) -> str:
    """CRLF, CR and form feed become LF; the canonical text uses LF only."""
    return _NEWLINES.sub("\n", text)


def extract_text(text: str) -> str:
    """Plain text is taken as is (newlines normalised, trailing spaces trimmed)."""
    out = "\n".join(line.rstrip() for line in normalise_newlines(text).split("\n")).strip("\n")
    if not out.strip():
        raise EmptyDocument("the text contains only whitespace")
    return out + "\n"
