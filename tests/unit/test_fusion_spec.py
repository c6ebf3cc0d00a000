"""Fusion variants by name: what `chunkwise eval --fusions` sweeps (pure)."""

from __future__ import annotations

import pytest

from chunkwise.errors import ConfigError
from chunkwise.search.fusion import parse_fusion
from chunkwise.search.hybrid import rrf_pipeline_body


def test_rrf_spec_is_the_default_pipeline_with_its_rank_constant() -> None:
    spec = parse_fusion("rrf:60")
    assert spec.pipeline_body()["phase_results_processors"] == rrf_pipeline_body(60)[
        "phase_results_processors"
    ]
    assert parse_fusion("RRF:20").name == "rrf:20"
    assert parse_fusion("rrf:20").pipeline_name == "chunkwise-fusion-rrf-20"


def test_normalisation_specs_weight_bm25_first() -> None:
    proc = parse_fusion("minmax:0.3").processor()["normalization-processor"]
    assert proc["normalization"] == {"technique": "min_max"}
    assert proc["combination"]["parameters"]["weights"] == [0.3, 0.7]
    assert parse_fusion("l2:0.5").processor()["normalization-processor"]["normalization"] == {
        "technique": "l2"
    }
    assert parse_fusion("l2:0.5").label == "norm-server[l2:0.5]"


@pytest.mark.parametrize("bad", ["rrf", "rrf:0", "rrf:2.5", "minmax:1", "l2:0", "zscore:0.5"])
def test_bad_specs_are_refused(bad: str) -> None:
    with pytest.raises(ConfigError):
        parse_fusion(bad)
