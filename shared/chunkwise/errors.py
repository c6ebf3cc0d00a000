"""Typed errors of the domain core.

Every failure a caller can act on has its own class, so handlers can decide
between "retry" (transient) and "send to the DLQ" (permanent) without parsing
messages.
"""

from __future__ import annotations


class ChunkwiseError(Exception):
    """Base class of every error raised on purpose by chunkwise."""


class ConfigError(ChunkwiseError, ValueError):
    """A configuration value is invalid; the message names the field."""


class TokenizerError(ChunkwiseError):
    """The tokenizer file is missing or unreadable."""


class PermanentError(ChunkwiseError):
    """Input that will never succeed: retrying is pointless (goes to the DLQ)."""


class TransientError(ChunkwiseError):
    """A failure that may succeed when retried (throttling, outage)."""


class InputError(ChunkwiseError):
    """An input named by the caller cannot be read (missing file, no permission)."""


class QueryRejected(ChunkwiseError):
    """The search backend refused the query as malformed or too large (the caller's
    input, answered as 400). ``public`` is safe to return; the message is for logs."""

    def __init__(self, message: str, public: str = "the query was rejected as too complex") -> None:
        super().__init__(message)
        self.public = public
