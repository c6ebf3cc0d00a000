"""The fusion of the hybrid query's two legs, by name (pure): one `FusionSpec` that makes
the server's search pipeline body and fuses client-side the same way, and what `chunkwise
eval --fusions` sweeps.

    minmax:0.7        the default (CHUNKWISE_FUSION; chosen by the sweep of #29,
                      samdocs/evaluation.md): 2.19's normalization-processor, min-max per
                      sub-query, arithmetic mean with weights (BM25 0.7, k-NN 0.3)
    minmax:0.5        ... with other weights
    l2:0.3            L2 normalisation, weights BM25 0.3, k-NN 0.7
    rrf:60            reciprocal rank fusion, rank constant 60 (the default before #29)
    rrf:20            ... with another rank constant

Client-side (`FusionSpec.fuse`, the fallback when the cluster has no neural-search or no
pipeline for the spec) computes what neural-search 2.19 computes, in its float32
arithmetic, so both paths give the same scores bit for bit and hence the same order
(neural-search 2.19.1, processor/normalization and processor/combination):

- min-max, per sub-query over the hits that sub-query returned: (s - min) / (max - min);
  a result of exactly 0 (the minimum) becomes 0.001; when max == min (one hit, or all
  equal) every hit of it scores 1.0;
- L2, per sub-query: s / sqrt(sum of s²) over its hits (0.001 if the norm is 0);
- arithmetic mean: (w_bm25 * n_bm25 + w_knn * n_knn) / (w_bm25 + w_knn), where a hit the
  other sub-query did not return has 0 there (neural-search's score array starts at 0,
  and 0 passes its ``score >= 0`` check, so the weight still counts);
- RRF: 1 / (k + rank) per sub-query, rounded to 10 decimals (half up) then to float32,
  summed in float32.

The server normalises over the sub-query hits of every shard; the client sees each leg's
global top ``size``. With one shard (chunkwise's indices) the two are the same hits.
Every variant's hits are then ordered by `chunkwise.search.hybrid.tie_key` (the one tie
rule), whichever side fused them.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from chunkwise.errors import ConfigError

Technique = Literal["rrf", "min_max", "l2"]
_SPEC = re.compile(r"^(rrf|minmax|l2):(\d+(?:\.\d+)?)$")


@dataclass(frozen=True)
class FusionSpec:
    technique: Technique
    rank_constant: int = 60  # rrf
    bm25_weight: float = 0.5  # normalisation: the lexical leg's weight, k-NN gets the rest

    @property
    def name(self) -> str:
        if self.technique == "rrf":
            return f"rrf:{self.rank_constant}"
        short = "minmax" if self.technique == "min_max" else "l2"
        return f"{short}:{self.bm25_weight:g}"

    @property
    def pipeline_name(self) -> str:
        return "chunkwise-fusion-" + re.sub(r"[^a-z0-9]+", "-", self.name)

    @property
    def label(self) -> str:
        """The fusion name of the hits' score breakdown (a swept variant's, with its name)."""
        return self.side_label("server") + f"[{self.name}]"

    def side_label(self, side: Literal["server", "client"]) -> str:
        """``rrf-server``, ``norm-client``, ...: the score breakdown's fusion field."""
        return ("rrf" if self.technique == "rrf" else "norm") + f"-{side}"

    @property
    def weights(self) -> tuple[float, float]:
        """The combination weights as the pipeline body sends them (BM25, k-NN)."""
        return (round(self.bm25_weight, 4), round(1 - self.bm25_weight, 4))

    def fuse(self, legs: Sequence[Sequence[tuple[str, float]]]) -> dict[str, float]:
        """Client-side fusion of the legs' ranked (id, score) lists, BM25 first: each id's
        fused score, exactly as the server's pipeline of this spec computes it."""
        if self.technique == "rrf":
            return rrf_scores([[d for d, _ in leg] for leg in legs], self.rank_constant)
        normalise = min_max_scores if self.technique == "min_max" else l2_scores
        return arithmetic_mean([normalise(leg) for leg in legs], self.weights)

    def processor(self) -> dict[str, Any]:
        if self.technique == "rrf":
            return rrf_processor(self.rank_constant)
        return {
            "normalization-processor": {
                "normalization": {"technique": self.technique},
                "combination": {
                    "technique": "arithmetic_mean",
                    "parameters": {"weights": list(self.weights)},
                },
            }
        }

    def pipeline_body(self) -> dict[str, Any]:
        return {
            "description": f"chunkwise hybrid fusion {self.name}",
            "phase_results_processors": [self.processor()],
        }


def rrf_processor(rank_constant: int) -> dict[str, Any]:
    """2.19's RRF processor. The rank constant belongs in ``combination.parameters``:
    neural-search ignores it (and uses 60) anywhere else."""
    return {
        "score-ranker-processor": {
            "combination": {"technique": "rrf", "parameters": {"rank_constant": rank_constant}}
        }
    }


def parse_fusion(spec: str) -> FusionSpec:
    """``rrf:K`` (K 1..1000), ``minmax:W`` or ``l2:W`` (W the BM25 weight, 0 < W < 1)."""
    m = _SPEC.match(spec.strip().lower())
    if not m:
        raise ConfigError(f"fusion {spec!r}: expected rrf:K, minmax:W or l2:W")
    kind, value = m.group(1), float(m.group(2))
    if kind == "rrf":
        if not (value.is_integer() and 1 <= value <= 1000):
            raise ConfigError(f"fusion {spec!r}: the rank constant is an integer from 1 to 1000")
        return FusionSpec("rrf", rank_constant=int(value))
    if not 0 < value < 1:
        raise ConfigError(f"fusion {spec!r}: the BM25 weight lies strictly between 0 and 1")
    return FusionSpec("min_max" if kind == "minmax" else "l2", bm25_weight=value)


DEFAULT_FUSION = FusionSpec("min_max", bm25_weight=0.7)


# --------------------------------------------------------------------------- client side
# neural-search computes in Java floats: every +, -, *, / rounded to float32. A double
# operation on float32 operands rounded once to float32 gives the same float (double has
# more than twice float's precision), so `f32` after each operation reproduces it.


def f32(x: float) -> float:
    """``x`` rounded to the nearest float32 (what Java's ``(float)`` does)."""
    return float(struct.unpack("f", struct.pack("f", x))[0])


MIN_SCORE = f32(0.001)  # min-max: the minimum's normalised score (not 0)
SINGLE_RESULT_SCORE = 1.0  # min-max: every hit's score when max == min


def _first(leg: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Each id's first occurrence, its score as the float32 the cluster computed."""
    seen: set[str] = set()
    out = []
    for doc, score in leg:
        if doc not in seen:
            seen.add(doc)
            out.append((doc, f32(score)))
    return out


def min_max_scores(leg: Sequence[tuple[str, float]]) -> dict[str, float]:
    """neural-search's MinMaxScoreNormalizationTechnique over one sub-query's hits."""
    hits = _first(leg)
    if not hits:
        return {}
    lo, hi = min(s for _, s in hits), max(s for _, s in hits)
    out: dict[str, float] = {}
    for doc, s in hits:
        if hi == lo and s == hi:
            out[doc] = SINGLE_RESULT_SCORE
            continue
        n = f32(f32(s - lo) / f32(hi - lo))
        out[doc] = MIN_SCORE if n == 0.0 else n
    return out


def l2_scores(leg: Sequence[tuple[str, float]]) -> dict[str, float]:
    """neural-search's L2ScoreNormalizationTechnique over one sub-query's hits."""
    hits = _first(leg)
    total = 0.0
    for _, s in hits:
        total = f32(total + f32(s * s))
    norm = f32(math.sqrt(total))
    return {doc: MIN_SCORE if norm == 0 else f32(s / norm) for doc, s in hits}


def arithmetic_mean(
    normalised: Sequence[Mapping[str, float]], weights: Sequence[float]
) -> dict[str, float]:
    """neural-search's ArithmeticMeanScoreCombinationTechnique: an id missing from a
    sub-query has 0 there, and that sub-query's weight still counts."""
    w = [f32(x) for x in weights]
    ids: dict[str, None] = {}
    for leg in normalised:
        ids.update(dict.fromkeys(leg))
    out: dict[str, float] = {}
    for doc in ids:
        combined, total = 0.0, 0.0
        for j, leg in enumerate(normalised):
            weight = w[j] if j < len(w) else 1.0
            combined = f32(combined + f32(leg.get(doc, 0.0) * weight))
            total = f32(total + weight)
        out[doc] = 0.0 if total == 0.0 else f32(combined / total)
    return out


def rrf_term(rank_constant: int, rank: int) -> float:
    """neural-search's RRF score of 1-based ``rank``: 1 / (k + rank) to 10 decimals, float32."""
    q = (Decimal(1) / Decimal(rank_constant + rank)).quantize(
        Decimal("1e-10"), rounding=ROUND_HALF_UP
    )
    return f32(float(q))


def rrf_scores(ranked: Sequence[Sequence[str]], rank_constant: int) -> dict[str, float]:
    """RRF as neural-search computes it: each list's terms summed in float32."""
    out: dict[str, float] = {}
    for lst in ranked:
        seen: set[str] = set()
        for rank, doc in enumerate(lst, start=1):
            if doc in seen:
                continue
            seen.add(doc)
            out[doc] = f32(out.get(doc, 0.0) + rrf_term(rank_constant, rank))
    return out
