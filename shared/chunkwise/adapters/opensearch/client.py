"""The OpenSearch client: plain HTTP(S), or SigV4-signed for an AWS domain (``es``)
or a serverless collection (``aoss``).

`Client` is the type the rest of the package names the client by, so that only
adapters import opensearch-py.
"""

from __future__ import annotations

import importlib
from typing import Any, Literal

from opensearchpy import OpenSearch, RequestsHttpConnection

from chunkwise.errors import ConfigError

Client = OpenSearch
Auth = Literal["none", "sigv4-es", "sigv4-aoss"]


def connect(
    url: str, *, timeout: float = 30.0, http_compress: bool = False, **kwargs: Any
) -> OpenSearch:
    """A client for ``url`` with transport retries off (we retry with backoff).

    ``url`` may name several nodes of one cluster, comma-separated (the local 3-node
    cluster: `chunkwise local up --nodes 3`): requests go round-robin, and a node that
    refuses the connection or times out is set aside for a while (opensearch-py marks it
    dead), so that our retry goes to another node instead of the one just lost. An AWS
    domain has one endpoint (its load balancer does the same).

    Request compression is off by default: a bulk body is mostly vector floats,
    and gzip of it measured at half the bulk time against a local node; turn it
    on for a remote cluster over a slow link.
    """
    hosts = hosts_of(url)
    return OpenSearch(
        hosts=hosts,
        timeout=timeout,
        max_retries=0,
        # With max_retries=0 the transport still raises at once; "retry" only makes it
        # mark a node that timed out (a paused node) dead, so the next try goes elsewhere.
        retry_on_timeout=len(hosts) > 1,
        http_compress=http_compress,
        **kwargs,
    )


def hosts_of(url: str) -> list[str]:
    """The node URLs of ``url`` (one, or several comma-separated)."""
    hosts = [h.strip() for h in url.split(",") if h.strip()]
    if not hosts:
        raise ConfigError("OPENSEARCH_URL: no URL")
    return hosts


def client_for(
    url: str, *, auth: Auth = "none", timeout: float = 30.0, region: str = ""
) -> OpenSearch:
    """A client for ``url``; with SigV4 the credentials come from boto3's chain."""
    if auth == "none":
        return connect(url, timeout=timeout)
    from opensearchpy import AWSV4SignerAuth

    boto3 = importlib.import_module("boto3")
    session = boto3.Session()
    region = region or session.region_name
    if not region:
        raise ConfigError("CHUNKWISE_REGION / AWS_REGION: needed for SigV4 to OpenSearch")
    service = "aoss" if auth == "sigv4-aoss" else "es"
    return connect(
        url,
        timeout=timeout,
        http_auth=AWSV4SignerAuth(session.get_credentials(), region, service),
        use_ssl=hosts_of(url)[0].startswith("https"),
        verify_certs=True,
        connection_class=RequestsHttpConnection,
    )
