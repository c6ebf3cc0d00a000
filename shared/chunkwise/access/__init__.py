"""Access control: who asks (a verified identity) and what it may read (pure; no I/O).
samdocs/metadata-and-access.md, "Access control"."""

from chunkwise.access.clause import AccessPolicy, access_clause, combine
from chunkwise.access.identity import (
    AccessMode,
    AuthError,
    AuthReason,
    Identity,
    identity_from_claims,
)

__all__ = [
    "AccessMode",
    "AccessPolicy",
    "AuthError",
    "AuthReason",
    "Identity",
    "access_clause",
    "combine",
    "identity_from_claims",
]
