"""Amazon Bedrock embedders (the AWS side of the Embedder port).

- `amazon.titan-embed-text-v2:0`: one text per `InvokeModel` call; `dimensions`
  256/512/1024; `normalize` true (cosine-ready); input limit 8,192 tokens.
- `cohere.embed-multilingual-v3`: up to 96 texts per call, 1,024 dimensions,
  `input_type` search_document (chunks) / search_query (queries); input limit
  512 tokens. `truncate` is NONE: a chunk that does not fit must fail loudly,
  never be embedded half.

boto3 is imported lazily (the domain core must import without AWS). Bedrock's
tokenizers are not published, so `count_tokens` uses all-MiniLM-L6-v2's BERT
WordPiece tokenizer as an estimate; `max_tokens` is set below the documented
limits by a safety margin so that chunker sizes stay inside the real limit.

Throttling and service errors are retried by botocore (standard retry mode,
exponential backoff with jitter); what still fails is mapped to
`TransientError` (retry the message later) or `PermanentError` (DLQ).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from chunkwise.errors import ConfigError, PermanentError, TransientError
from chunkwise.models.sizes import FixedSizes

if TYPE_CHECKING:
    from chunkwise.models.counter import HFTokenCounter

TITAN_V2 = "amazon.titan-embed-text-v2:0"
COHERE_MULTI_V3 = "cohere.embed-multilingual-v3"
COHERE_MAX_BATCH = 96

_TRANSIENT_CODES = frozenset(
    {
        "ThrottlingException",
        "ServiceUnavailableException",
        "InternalServerException",
        "ModelNotReadyException",
        "ModelTimeoutException",
        "TooManyRequestsException",
    }
)

#: Tokens of one input text, as the model counts them (checked before every call).
CountTokens = Callable[[str], int]


def _estimate_counter(
    model_id: str, max_tokens: int, tokenizer_path: Path | None
) -> HFTokenCounter:
    """MiniLM's WordPiece tokenizer (the tokenizer layer in Lambda) as the sizer of
    a Bedrock model: it splits German into more pieces than the multilingual
    models' own tokenizers, so its estimate errs on the safe side. A configured
    `tokenizer_path` (`CHUNKWISE_MODEL_PATH`) is used instead of the installed file."""
    from chunkwise.models.counter import load_counter
    from chunkwise.models.files import minilm_model_path

    path = tokenizer_path or minilm_model_path()
    return load_counter(path, None, True).sizing_for(model_id, max_tokens)


def make_bedrock_client(region: str | None = None, max_attempts: int = 8) -> Any:
    """A bedrock-runtime client with botocore's standard retry mode."""
    boto3 = importlib.import_module("boto3")
    config = importlib.import_module("botocore.config")
    cfg = config.Config(retries={"mode": "standard", "max_attempts": max_attempts})
    return boto3.client("bedrock-runtime", region_name=region, config=cfg)


def _invoke(client: Any, model_id: str, body: dict[str, Any]) -> dict[str, Any]:
    exceptions = importlib.import_module("botocore.exceptions")
    try:
        resp = client.invoke_model(
            modelId=model_id,
            body=json.dumps(body).encode("utf-8"),
            contentType="application/json",
            accept="application/json",
        )
    except exceptions.ClientError as exc:
        code = str(exc.response.get("Error", {}).get("Code", ""))
        if code in _TRANSIENT_CODES:
            raise TransientError(f"bedrock {model_id}: {code} after retries: {exc}") from exc
        raise PermanentError(f"bedrock {model_id}: {code}: {exc}") from exc
    except (exceptions.EndpointConnectionError, exceptions.ConnectionError) as exc:
        raise TransientError(f"bedrock {model_id}: connection failed: {exc}") from exc
    raw = resp["body"].read()
    out: dict[str, Any] = json.loads(raw)
    return out


class _BedrockBase(FixedSizes):
    _name: str

    def __init__(
        self, client: Any | None, token_counter: CountTokens | None, tokenizer_path: Path | None
    ) -> None:
        self._client = client
        self._counter = token_counter
        self._tokenizer_path = tokenizer_path

    @property
    def languages(self) -> frozenset[str] | None:
        return None  # Titan v2 and Cohere multilingual v3 are multilingual models

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = make_bedrock_client()
        return self._client

    @property
    def name(self) -> str:
        return self._name

    def token_counter(self) -> HFTokenCounter:
        """The chunker's sizer for this model (an estimate, see the module doc)."""
        return _estimate_counter(self._name, self._max_tokens, self._tokenizer_path)

    def count_tokens(self, text: str) -> int:
        if self._counter is None:
            self._counter = self.token_counter().count
        return self._counter(text)

    def _check_dim(self, vec: list[float]) -> list[float]:
        if len(vec) != self._dimension:
            raise PermanentError(
                f"bedrock {self._name}: got {len(vec)} dims, expected {self._dimension}"
            )
        return [float(v) for v in vec]


class TitanV2Embedder(_BedrockBase):
    """Titan Text Embeddings v2: one request per text, normalised vectors."""

    def __init__(
        self,
        dimensions: int = 1024,
        *,
        normalize: bool = True,
        client: Any | None = None,
        token_counter: CountTokens | None = None,
        max_tokens: int = 7500,
        tokenizer_path: Path | None = None,
    ) -> None:
        if dimensions not in (256, 512, 1024):
            raise ConfigError(f"dimensions: Titan v2 supports 256, 512, 1024; got {dimensions}")
        if not 1 <= max_tokens <= 8192:
            raise ConfigError(f"max_tokens: must be in 1..8192 for Titan v2, got {max_tokens}")
        super().__init__(client, token_counter, tokenizer_path)
        self._name = TITAN_V2
        self._dimension = dimensions
        self._normalize = normalize
        self._max_tokens = max_tokens
        self._batch_size = 1

    def _one(self, text: str) -> list[float]:
        body = {"inputText": text, "dimensions": self._dimension, "normalize": self._normalize}
        resp = _invoke(self.client, self._name, body)
        vec = resp.get("embedding")
        if not isinstance(vec, list):
            raise PermanentError(f"bedrock {self._name}: response without 'embedding'")
        return self._check_dim(vec)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a str")
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


class CohereMultilingualV3Embedder(_BedrockBase):
    """Cohere Embed Multilingual v3 (1,024 dims), batched by 96, input_type aware."""

    def __init__(
        self,
        *,
        client: Any | None = None,
        token_counter: CountTokens | None = None,
        batch_size: int = COHERE_MAX_BATCH,
        max_tokens: int = 480,
        tokenizer_path: Path | None = None,
    ) -> None:
        if not 1 <= batch_size <= COHERE_MAX_BATCH:
            raise ConfigError(f"batch_size: must be in 1..{COHERE_MAX_BATCH}, got {batch_size}")
        if not 1 <= max_tokens <= 512:
            raise ConfigError(f"max_tokens: must be in 1..512 for Cohere v3, got {max_tokens}")
        super().__init__(client, token_counter, tokenizer_path)
        self._name = COHERE_MULTI_V3
        self._dimension = 1024
        self._max_tokens = max_tokens
        self._batch_size = batch_size

    def _batch(
        self, texts: list[str], input_type: Literal["search_document", "search_query"]
    ) -> list[list[float]]:
        body = {
            "texts": texts,
            "input_type": input_type,
            "truncate": "NONE",
            "embedding_types": ["float"],
        }
        resp = _invoke(self.client, self._name, body)
        embs = resp.get("embeddings")
        if isinstance(embs, dict):  # response_type "embeddings_by_type"
            embs = embs.get("float")
        if not isinstance(embs, list) or len(embs) != len(texts):
            raise PermanentError(
                f"bedrock {self._name}: expected {len(texts)} embeddings in the response"
            )
        return [self._check_dim(v) for v in embs]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a str")
        items = list(texts)
        out: list[list[float]] = []
        for s in range(0, len(items), self._batch_size):
            out.extend(self._batch(items[s : s + self._batch_size], "search_document"))
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._batch([text], "search_query")[0]


def bedrock_embedder_from_spec(
    spec: str, *, tokenizer_path: Path | None = None
) -> TitanV2Embedder | CohereMultilingualV3Embedder:
    """ "amazon.titan-embed-text-v2:0?dimensions=512" or "cohere.embed-multilingual-v3";
    `tokenizer_path` is the file of the sizer's estimate (None: the installed MiniLM's)."""
    model, _, query = spec.partition("?")
    params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
    if model == TITAN_V2:
        try:
            dims = int(params.get("dimensions", "1024"))
        except ValueError as exc:
            raise ConfigError(f"dimensions: not an integer in {spec!r}") from exc
        return TitanV2Embedder(dims, tokenizer_path=tokenizer_path)
    if model == COHERE_MULTI_V3:
        return CohereMultilingualV3Embedder(tokenizer_path=tokenizer_path)
    raise ConfigError(f"embedder: unsupported Bedrock model {model!r}")
