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

    Request compression is off by default: a bulk body is mostly vector floats,
    and gzip of it measured at half the bulk time against a local node; turn it
    on for a remote cluster over a slow link.
    """
    return OpenSearch(
        hosts=[url],
        timeout=timeout,
        max_retries=0,
        retry_on_timeout=False,
        http_compress=http_compress,
        **kwargs,
    )


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
        use_ssl=url.startswith("https"),
        verify_certs=True,
        connection_class=RequestsHttpConnection,
    )
