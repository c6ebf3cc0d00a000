"""The configured OpenSearch cluster: its client and the index adapter over it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chunkwise.adapters.opensearch.client import Client
    from chunkwise.adapters.opensearch.index import OpenSearchIndex
    from chunkwise.index.generation_model import GenerationModel
    from chunkwise.settings import OpenSearchSettings


#: Why a serverless collection is refused (the template's rule ServerlessIsRefused says
#: the same at deploy time; samdocs/architecture.md, "OpenSearch Serverless").
AOSS_REFUSED = (
    "OpenSearch Serverless is not supported: its vector collections do not accept custom "
    "document ids, _refresh, custom routing or if_seq_no/if_primary_term writes, and the "
    "revision protocol depends on all four; use a managed domain (es)"
)


def opensearch_client(settings: OpenSearchSettings) -> Client:
    """A client for the configured endpoint; SigV4 (``es`` or ``aoss``) when asked."""
    from chunkwise.adapters.opensearch.client import client_for
    from chunkwise.errors import ConfigError

    if settings.opensearch_auth == "sigv4-aoss":
        raise ConfigError(f"CHUNKWISE_OPENSEARCH_AUTH=sigv4-aoss: {AOSS_REFUSED}")
    return client_for(
        settings.opensearch_url,
        auth=settings.opensearch_auth,
        timeout=settings.opensearch_timeout,
        region=settings.region,
    )


def opensearch_index(
    settings: OpenSearchSettings,
    generation: str | None = None,
    client: Client | None = None,
    model: GenerationModel | None = None,
) -> OpenSearchIndex:
    """The write alias, or the physical index of ``generation`` (re-chunk builds);
    with ``model``, writes are refused into a generation of another model."""
    from chunkwise.adapters.opensearch.index import OpenSearchIndex

    names = settings.names
    target = names.index(generation) if generation else None
    return OpenSearchIndex(client or opensearch_client(settings), names, target=target, model=model)
