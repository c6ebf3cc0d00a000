"""Typed extraction errors.

Every error is permanent (the same bytes will never extract): a handler sends
the message to the DLQ instead of retrying. Each carries a human-readable
``reason`` that names what was wrong and, for limits, which limit was hit.
"""

from __future__ import annotations

from chunkwise.errors import PermanentError


class ExtractionError(PermanentError):
    """Base class: the document cannot be turned into canonical text."""

    code = "extraction_error"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        return f"{type(self).__name__}: {self.reason}"


class UnsupportedFormat(ExtractionError):
    """The content is not one of the supported formats (or is binary)."""

    code = "unsupported_format"


class UnsupportedEncoding(UnsupportedFormat):
    """Text whose character encoding cannot be determined with confidence."""

    code = "unsupported_encoding"


class EmptyDocument(ExtractionError):
    """Zero bytes, or nothing but whitespace."""

    code = "empty_document"


class EncryptedDocument(ExtractionError):
    """The document needs a password to be read."""

    code = "encrypted_document"


class CorruptDocument(ExtractionError):
    """The document claims a format but cannot be parsed as such."""

    code = "corrupt_document"


class LimitExceeded(ExtractionError):
    """A configured limit (bytes, pages, decompressed size, time) was exceeded."""

    code = "limit_exceeded"

    def __init__(
        self, limit: str, value: int | float, actual: int | float, detail: str = ""
    ) -> None:
        self.limit = limit
        self.value = value
        self.actual = actual
        extra = f": {detail}" if detail else ""
        super().__init__(f"{limit}={value} exceeded (got {actual}){extra}")
