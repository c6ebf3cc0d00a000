"""Bedrock adapters against botocore's Stubber: request bodies, batching, errors. No network."""

from __future__ import annotations

import io
import json
from typing import Any

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

from chunkwise.adapters.bedrock import (
    COHERE_MULTI_V3,
    TITAN_V2,
    CohereMultilingualV3Embedder,
    TitanV2Embedder,
)
from chunkwise.embedding.embed import Embedder
from chunkwise.errors import ConfigError, PermanentError, TransientError
from chunkwise.wiring.embedders import get_embedder


def _client() -> Any:
    return boto3.client(
        "bedrock-runtime",
        region_name="eu-central-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )


def _body(obj: object) -> StreamingBody:
    raw = json.dumps(obj).encode()
    return StreamingBody(io.BytesIO(raw), len(raw))


class _BodyMatcher:
    """Compares the JSON request body of invoke_model."""

    def __init__(self, expected: dict[str, Any]) -> None:
        self.expected = expected

    def __eq__(self, other: object) -> bool:
        return isinstance(other, bytes | str) and json.loads(other) == self.expected

    def __repr__(self) -> str:
        return f"JSON({self.expected!r})"


def _count(text: str) -> int:
    return len(text.split()) + 2


def test_titan_v2_sends_dimensions_and_normalize() -> None:
    client = _client()
    emb = TitanV2Embedder(256, client=client, token_counter=_count)
    assert isinstance(emb, Embedder)
    with Stubber(client) as stub:
        for text in ("eins", "zwei"):
            stub.add_response(
                "invoke_model",
                {
                    "body": _body({"embedding": [0.5] * 256, "inputTextTokenCount": 1}),
                    "contentType": "application/json",
                },
                {
                    "modelId": TITAN_V2,
                    "body": _BodyMatcher({"inputText": text, "dimensions": 256, "normalize": True}),
                    "contentType": "application/json",
                    "accept": "application/json",
                },
            )
        out = emb.embed(["eins", "zwei"])
        stub.assert_no_pending_responses()
    assert len(out) == 2 and all(len(v) == 256 for v in out)
    assert emb.name == TITAN_V2 and emb.dimension == 256 and emb.max_tokens <= 8192
    assert emb.count_tokens("a b c") == 5


def test_cohere_batches_by_96_and_uses_input_types() -> None:
    client = _client()
    emb = CohereMultilingualV3Embedder(client=client, token_counter=_count)
    texts = [f"text {i}" for i in range(100)]
    with Stubber(client) as stub:
        for chunk in (texts[:96], texts[96:]):
            stub.add_response(
                "invoke_model",
                {
                    "body": _body(
                        {
                            "embeddings": {"float": [[0.1] * 1024] * len(chunk)},
                            "response_type": "embeddings_by_type",
                        }
                    ),
                    "contentType": "application/json",
                },
                {
                    "modelId": COHERE_MULTI_V3,
                    "body": _BodyMatcher(
                        {
                            "texts": chunk,
                            "input_type": "search_document",
                            "truncate": "NONE",
                            "embedding_types": ["float"],
                        }
                    ),
                    "contentType": ANY,
                    "accept": ANY,
                },
            )
        stub.add_response(
            "invoke_model",
            {
                "body": _body({"embeddings": [[0.2] * 1024], "response_type": "embeddings_floats"}),
                "contentType": "application/json",
            },
            {
                "modelId": COHERE_MULTI_V3,
                "body": _BodyMatcher(
                    {
                        "texts": ["wo ist das?"],
                        "input_type": "search_query",
                        "truncate": "NONE",
                        "embedding_types": ["float"],
                    }
                ),
                "contentType": ANY,
                "accept": ANY,
            },
        )
        out = emb.embed(texts)
        q = emb.embed_query("wo ist das?")
        stub.assert_no_pending_responses()
    assert len(out) == 100 and len(q) == 1024 and q[0] == pytest.approx(0.2)


def test_throttling_is_transient_and_validation_is_permanent() -> None:
    client = _client()
    emb = TitanV2Embedder(client=client, token_counter=_count)
    with Stubber(client) as stub:
        stub.add_client_error("invoke_model", "ThrottlingException", "slow down", 429)
        with pytest.raises(TransientError, match="ThrottlingException"):
            emb.embed(["x"])
        stub.add_client_error("invoke_model", "ValidationException", "too long", 400)
        with pytest.raises(PermanentError, match="ValidationException"):
            emb.embed_query("x")


def test_wrong_dimension_in_response_is_permanent() -> None:
    client = _client()
    emb = TitanV2Embedder(512, client=client, token_counter=_count)
    with Stubber(client) as stub:
        stub.add_response(
            "invoke_model",
            {"body": _body({"embedding": [0.0] * 1024}), "contentType": "application/json"},
        )
        with pytest.raises(PermanentError, match="1024 dims"):
            emb.embed(["x"])


def test_config_validation_and_spec_factory() -> None:
    with pytest.raises(ConfigError, match="dimensions"):
        TitanV2Embedder(300)
    with pytest.raises(ConfigError, match="batch_size"):
        CohereMultilingualV3Embedder(batch_size=97)
    titan = get_embedder(f"bedrock:{TITAN_V2}?dimensions=512")
    assert titan.dimension == 512 and titan.name == TITAN_V2
    assert get_embedder(f"bedrock:{COHERE_MULTI_V3}").dimension == 1024
    with pytest.raises(ConfigError, match="unsupported"):
        get_embedder("bedrock:amazon.titan-embed-text-v1")
