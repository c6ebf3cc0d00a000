"""What the query function logs about every request: who asked, how many hits it got
and how many chunks access control withheld; never the query or any chunk's text
(pure; samdocs/metadata-and-access.md, "Audit").

The withheld count is measured in one extra round trip (`withheld_count_query`), only
in access mode ``groups`` and only for callers the access clause limits (not the admin
group): the chunks the lexical leg matches under the caller's own filters, minus those
the access clause lets through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from chunkwise.access import Identity
from chunkwise.search.hybrid import SearchFilters, bm25_clause


def withheld_count_query(
    query: str, filters: SearchFilters, *, lang: str | None = None
) -> dict[str, Any]:
    """Every chunk the lexical leg matches under the caller's own filters
    (``hits.total``) and, as aggregation ``visible``, those the access clause lets
    through.

    Lexical matches only: the k-NN leg ranks every chunk and so "matches" all of them.
    The count is of chunks (pending and live, any revision), not of documents; it goes
    to the log, never to the caller (it would tell the caller what exists)."""
    if filters.access is None:
        raise ValueError("withheld_count_query needs filters with an access clause")
    return {
        "size": 0,
        "track_total_hits": True,
        "query": {
            "bool": {
                "must": [bm25_clause(query, lang)],
                "filter": filters.without_access().clauses(),
            }
        },
        "aggs": {"visible": {"filter": filters.access}},
    }


def withheld_count(response: Mapping[str, Any]) -> int:
    """Chunks withheld, from the answer to `withheld_count_query`."""
    total = int(response["hits"]["total"]["value"])
    visible = int(response["aggregations"]["visible"]["doc_count"])
    return max(0, total - visible)


@dataclass(frozen=True)
class AuditRecord:
    """One query's audit line. ``access``: ``none`` (mode none), ``groups`` (limited to
    the caller's groups) or ``admin`` (the admin group: sees everything)."""

    status: int
    access: str
    subject: str | None = None
    issuer: str | None = None
    groups: int = 0
    k: int = 0
    filtered: bool = False
    hits: int = 0
    withheld: int = 0
    refused: str | None = None  # why the request was refused (an AuthReason, "bad request")

    @classmethod
    def of(cls, identity: Identity | None, **fields: Any) -> AuditRecord:
        if identity is None:
            return cls(**fields)
        return cls(
            subject=identity.subject, issuer=identity.issuer, groups=len(identity.groups), **fields
        )

    def fields(self) -> dict[str, Any]:
        return {"audit": asdict(self)}
