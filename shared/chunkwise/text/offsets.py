"""UTF-8 byte offsets of code-point spans: the one place they are computed.

Python ``str`` offsets are code points; `Chunk.byte_start` / `byte_end` are the
same span in UTF-8 bytes (UTF-16 code units of ICU are converted in
`chunkwise.text.segment`). Lone surrogates, which a decoded document can carry,
count as the three bytes ``surrogatepass`` writes for them.
"""

from __future__ import annotations


def utf8_len(text: str) -> int:
    """Bytes of ``text`` in UTF-8."""
    return len(text.encode("utf-8", "surrogatepass"))


def byte_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The UTF-8 byte offsets of ``text[start:end]``."""
    byte_start = utf8_len(text[:start])
    return byte_start, byte_start + utf8_len(text[start:end])
