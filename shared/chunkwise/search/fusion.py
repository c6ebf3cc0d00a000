"""Fusion variants of the hybrid query, by name (pure): what `chunkwise eval --fusions`
sweeps and what a search pipeline body is made of.

    rrf:60            reciprocal rank fusion, rank constant 60 (the default)
    rrf:20            ... with another rank constant
    minmax:0.5        2.19's normalization-processor: min-max per sub-query, arithmetic
                      mean with weights (BM25 0.5, k-NN 0.5)
    l2:0.3            L2 normalisation, weights BM25 0.3, k-NN 0.7

Every variant's hits are ordered by `chunkwise.search.hybrid.tie_key` (the one tie rule),
whichever processor fused them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
        """The fusion name of the hits' score breakdown."""
        return ("rrf-server" if self.technique == "rrf" else "norm-server") + f"[{self.name}]"

    def processor(self) -> dict[str, Any]:
        if self.technique == "rrf":
            return rrf_processor(self.rank_constant)
        return {
            "normalization-processor": {
                "normalization": {"technique": self.technique},
                "combination": {
                    "technique": "arithmetic_mean",
                    "parameters": {
                        "weights": [round(self.bm25_weight, 4), round(1 - self.bm25_weight, 4)]
                    },
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
