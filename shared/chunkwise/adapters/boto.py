"""What every boto3 adapter shares: the client factory and the one error classifier.

boto3 is imported lazily (the pure core never loads it); every client honours
``AWS_ENDPOINT_URL`` (LocalStack, moto) through botocore's own configuration.
"""

from __future__ import annotations

import importlib
from typing import Any

from chunkwise.errors import PermanentError, TransientError

# S3 codes of an object (version) that is not there.
OBJECT_MISSING = frozenset({"404", "NoSuchKey", "NotFound", "NoSuchVersion"})
# Gone while we were reading: a GET of a version a HEAD just named, a bucket
# removed under us. The next round re-HEADs, so these are transient.
CHANGED_WHILE_READING = OBJECT_MISSING | {"NoSuchBucket"}
# Codes worth a retry: throttling and server-side failures.
TRANSIENT_CODES = frozenset(
    {
        "500",
        "502",
        "503",
        "504",
        "SlowDown",
        "InternalError",
        "RequestTimeout",
        "ServiceUnavailable",
    }
)


def boto_client(service: str, client: Any | None = None, **kwargs: Any) -> Any:
    """``client`` if given, else a boto3 client with botocore's standard retries
    (``kwargs``: endpoint_url, region_name, ... as boto3.client takes them)."""
    if client is not None:
        return client
    boto3 = importlib.import_module("boto3")
    config = importlib.import_module("botocore.config")
    return boto3.client(
        service, config=config.Config(retries={"mode": "standard", "max_attempts": 5}), **kwargs
    )


def boto_errors() -> tuple[type[Exception], ...]:
    """The botocore exceptions an adapter call catches (and `classify` sorts)."""
    exceptions = importlib.import_module("botocore.exceptions")
    return (exceptions.ClientError, exceptions.BotoCoreError)


def error_code(exc: Exception) -> str:
    """The service's error code of a botocore ClientError ("" for anything else)."""
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return ""
    return str(response.get("Error", {}).get("Code", ""))


def classify(
    what: str, exc: Exception, *, changed: frozenset[str] = CHANGED_WHILE_READING
) -> Exception:
    """botocore exception -> TransientError / PermanentError (anything else unchanged).

    ``changed``: codes that mean "it went away while we were reading"; a HEAD, for
    which a missing object is an answer, passes none.
    """
    exceptions = importlib.import_module("botocore.exceptions")
    if isinstance(exc, exceptions.ClientError):
        code = error_code(exc)
        if code in TRANSIENT_CODES:
            return TransientError(f"{what}: {code}")
        if code in changed:
            return TransientError(f"{what}: {code} (changed while reading)")
        return PermanentError(f"{what}: {code}: {exc}")
    if isinstance(exc, exceptions.BotoCoreError):
        return TransientError(f"{what}: {exc}")
    return exc
