"""The OpenSearch client: plain HTTP(S), or SigV4-signed for an AWS domain (``es``)
or a serverless collection (``aoss``).

`Client` is the type the rest of the package names the client by, so that only
adapters import opensearch-py.
"""

from __future__ import annotations

import importlib
from typing import Literal

from opensearchpy import OpenSearch, RequestsHttpConnection

from chunkwise.adapters.opensearch.index import connect
from chunkwise.errors import ConfigError

Client = OpenSearch
Auth = Literal["none", "sigv4-es", "sigv4-aoss"]


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
