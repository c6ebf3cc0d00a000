"""The access filter every query carries in access mode ``groups`` (pure).

A caller sees a chunk when the chunk's ``readers`` share a group with the caller's
groups; the admin group sees every chunk, including those whose document names no
readers (``readers == NO_READERS``), which nobody else sees. The clause is added by
the server to both legs of a query (BM25 and k-NN filter), before fusion and rerank.

`combine` puts the access clause and the caller's own filter side by side as two
members of one ``bool.filter``: both must hold, so nothing in the caller's filter (an
``orAll`` with a member every document matches, a ``notEquals`` on a key nobody has)
can widen what the access clause allows. The caller's filter cannot name ``readers``
either: `chunkwise.metadata.filters` refuses reserved keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chunkwise.access.identity import AccessMode, AuthError, AuthReason, Identity
from chunkwise.errors import ConfigError
from chunkwise.metadata.fields import NO_READERS, READERS_FIELD
from chunkwise.metadata.model import group_refusal

Clause = dict[str, Any]


def access_clause(
    identity: Identity | None, mode: AccessMode, admin_group: str | None = None
) -> Clause | None:
    """The filter clause that limits ``identity`` to what it may read; None in mode
    ``none`` (no limit). In mode ``groups``: no identity is a 401, an identity without
    groups a 403 (it could read nothing, and saying so beats an empty answer)."""
    if mode is AccessMode.NONE:
        return None
    refusal = group_refusal(admin_group) if admin_group is not None else None
    if refusal:
        raise ConfigError(f"admin_group: {refusal}")
    if identity is None:
        raise AuthError(AuthReason.MISSING, "access mode groups needs a verified identity")
    if admin_group is not None and admin_group in identity.groups:
        return {"match_all": {}}
    if not identity.groups:
        raise AuthError(AuthReason.NO_GROUPS, f"subject of {identity.issuer} has no groups")
    groups = sorted(g for g in identity.groups if g != NO_READERS)
    return {"terms": {READERS_FIELD: groups}}


def combine(access: Clause | None, user_filter: Clause | None) -> Clause:
    """One clause that requires both: the access clause and the caller's filter, each a
    member of its own in one ``bool.filter`` (so neither can stand in for the other)."""
    members = [c for c in (access, user_filter) if c is not None]
    if not members:
        return {"match_all": {}}
    return {"bool": {"filter": members}}


@dataclass(frozen=True)
class AccessPolicy:
    """A deployment's access mode and admin group: what `access_clause` needs besides
    the caller. The default is mode ``none`` (no limit), today's single-tenant
    behaviour; a library caller that passes an identity gets mode ``groups``."""

    mode: AccessMode = AccessMode.NONE
    admin_group: str | None = None

    def clause(self, identity: Identity | None) -> Clause | None:
        """The access clause for ``identity`` (None: no limit); AuthError as
        `access_clause` raises it."""
        return access_clause(identity, self.mode, self.admin_group)

    def is_admin(self, identity: Identity | None) -> bool:
        return (
            self.admin_group is not None
            and identity is not None
            and self.admin_group in identity.groups
        )
